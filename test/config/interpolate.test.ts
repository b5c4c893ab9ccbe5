import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/config/interpolate.js';

describe('interpolate', () => {
  it('expands ${VAR} in every string, nested in objects and arrays, not in keys', () => {
    const out = interpolate({ a: '${HOME}/x', b: ['${USER}', 1, true], '${KEY}': { c: 'pre-${USER}-post' } }, { HOME: '/h', USER: 'u' });
    expect(out.problems).toEqual([]);
    expect(out.value).toEqual({ a: '/h/x', b: ['u', 1, true], '${KEY}': { c: 'pre-u-post' } });
  });

  it('uses ${VAR:-default} when the variable is unset or empty', () => {
    expect(interpolate('${NOPE:-/tmp}/m.jsonl', {}).value).toBe('/tmp/m.jsonl');
    expect(interpolate('${EMPTY:-d}', { EMPTY: '' }).value).toBe('d');
    expect(interpolate('${NOPE:-}', {})).toMatchObject({ value: '', problems: [] });
  });

  it('names every missing variable at its JSON path', () => {
    const out = interpolate({ mcpServers: { 'a/b': { env: { T: '${TOKEN}', U: '${OTHER}' } } } }, {});
    expect(out.problems).toEqual([
      { path: '/mcpServers/a~1b/env/T', message: 'environment variable ${TOKEN} is not set' },
      { path: '/mcpServers/a~1b/env/U', message: 'environment variable ${OTHER} is not set' },
    ]);
  });

  it('leaves $${VAR} as a literal ${VAR}', () => {
    expect(interpolate('cost $${PRICE}', {})).toMatchObject({ value: 'cost ${PRICE}', problems: [] });
  });

  it('records the text as written of every string it changed, by path', () => {
    const out = interpolate({ a: { url: '${U}', plain: 'x' } }, { U: 'http://h' });
    expect([...out.sources]).toEqual([['/a/url', '${U}']]);
  });
});

describe('interpolate edge cases', () => {
  it('${A:-${B}} with A=a is "a", with no stray brace; the unused default needs no B', () => {
    expect(interpolate('${A:-${B}}', { A: 'a' })).toMatchObject({ value: 'a', problems: [] });
  });

  it('${NOPE:-${B}} with NOPE unset and B=b is "b"', () => {
    expect(interpolate('${NOPE:-${B}}', { B: 'b' })).toMatchObject({ value: 'b', problems: [] });
    expect(interpolate('${NOPE:-${B:-inner}}/x', {})).toMatchObject({ value: 'inner/x', problems: [] });
    expect(interpolate('<${NOPE:-pre-${B}-post}>', { B: 'b' }).value).toBe('<pre-b-post>');
  });

  it('a default that is used names its own missing variable', () => {
    expect(interpolate({ k: '${NOPE:-${ALSO_NOPE}}' }, {}).problems).toEqual([{ path: '/k', message: 'environment variable ${ALSO_NOPE} is not set' }]);
  });

  it('${S} with S=x$${y} keeps the value as it is: values are never re-processed', () => {
    expect(interpolate('${S}', { S: 'x$${y}' })).toMatchObject({ value: 'x$${y}', problems: [] });
    expect(interpolate('${S}', { S: '${T}', T: 't' })).toMatchObject({ value: '${T}', problems: [] });
    expect(interpolate('${NOPE:-${S}}', { S: '$${z}' }).value).toBe('$${z}');
  });

  it('${E} with E set to "" is "": set but empty is set; only :- treats empty as unset', () => {
    expect(interpolate('${E}', { E: '' })).toMatchObject({ value: '', problems: [] });
    expect(interpolate('${E:-d}', { E: '' }).value).toBe('d');
  });

  it.each([
    ['${}', 'malformed placeholder "${}": expected a variable name after "${" (write $${ for a literal ${)'],
    ['${A', 'malformed placeholder "${A": no closing "}" (write $${ for a literal ${)'],
    ['x ${1A} y', 'malformed placeholder "${1": expected a variable name after "${" (write $${ for a literal ${)'],
    ['${A-b}', 'malformed placeholder "${A-": expected "}" or ":-" after the name A (write $${ for a literal ${)'],
    ['${A:-b', 'malformed placeholder "${A:-b": no closing "}" (write $${ for a literal ${)'],
    ['${A:-${B}', 'malformed placeholder "${A:-${B}": no closing "}" (write $${ for a literal ${)'],
    ['${A:-${B:-${C}}}', 'malformed placeholder "${A:-${B:-${C}": defaults nest at most one level deep'],
  ])('%s is a "malformed placeholder" problem at its path, and the string is left as written', (text, message) => {
    const out = interpolate({ at: text }, { A: 'a', B: 'b', C: 'c' });
    expect(out.value).toEqual({ at: text });
    expect(out.problems).toEqual([{ path: '/at', message }]);
  });

  it('quotes at most 40 characters of a long malformed placeholder', () => {
    const [problem] = interpolate(`\${A:-${'x'.repeat(100)}`, {}).problems;
    expect(problem?.message).toBe(`malformed placeholder "\${A:-${'x'.repeat(35)}…": no closing "}" (write $\${ for a literal \${)`);
  });

  it('keeps "$" and "}" outside placeholders, and $${ inside a default, literal', () => {
    expect(interpolate('$HOME $ {x} a}b ${A}} $$ $', { A: 'a' }).value).toBe('$HOME $ {x} a}b a} $$ $');
    expect(interpolate('${NOPE:-$${lit}', {}).value).toBe('${lit');
  });
});

describe('interpolate with keys from the file', () => {
  it('keeps a "__proto__" key as an own key instead of replacing the prototype', () => {
    const raw = JSON.parse('{"mcpServers":{"__proto__":{"command":"${CMD}"},"constructor":{"command":"c"},"toString":{"command":"t"}}}') as unknown;
    const out = interpolate(raw, { CMD: 'node' });
    const servers = (out.value as { mcpServers: Record<string, unknown> }).mcpServers;
    expect(Object.getPrototypeOf(servers)).toBe(Object.prototype);
    expect(Object.keys(servers)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(servers, '__proto__')?.value).toEqual({ command: 'node' });
    expect(Object.getOwnPropertyDescriptor(servers, 'constructor')?.value).toEqual({ command: 'c' });
  });
});
