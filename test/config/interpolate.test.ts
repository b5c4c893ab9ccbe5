import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/config/interpolate.js';

describe('interpolate (DESIGN §12)', () => {
  it('expands ${VAR} in every string, nested in objects and arrays, not in keys', () => {
    const out = interpolate({ a: '${HOME}/x', b: ['${USER}', 1, true], '${KEY}': { c: 'pre-${USER}-post' } }, { HOME: '/h', USER: 'u' });
    expect(out.problems).toEqual([]);
    expect(out.value).toEqual({ a: '/h/x', b: ['u', 1, true], '${KEY}': { c: 'pre-u-post' } });
  });

  it('uses ${VAR:-default} when the variable is unset or empty', () => {
    expect(interpolate('${NOPE:-/tmp}/m.jsonl', {}).value).toBe('/tmp/m.jsonl');
    expect(interpolate('${EMPTY:-d}', { EMPTY: '' }).value).toBe('d');
  });

  it('names every missing variable at its JSON path', () => {
    const out = interpolate({ mcpServers: { 'a/b': { env: { T: '${TOKEN}', U: '${OTHER}' } } } }, {});
    expect(out.problems).toEqual([
      { path: '/mcpServers/a~1b/env/T', message: 'environment variable ${TOKEN} is not set' },
      { path: '/mcpServers/a~1b/env/U', message: 'environment variable ${OTHER} is not set' },
    ]);
  });

  it('leaves $${VAR} as a literal ${VAR}', () => {
    expect(interpolate('cost $${PRICE}', {})).toEqual({ value: 'cost ${PRICE}', problems: [] });
  });
});
