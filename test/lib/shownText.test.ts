/**
 * The walkers over an upstream's answers: every string and key of the whole answer is shown at any
 * depth (content blocks' `_meta`, annotations and resource links too), binary payloads, the fields
 * that route in lists, and numbers as they are, and a clean answer stays the same object
 * (docs/security.md, "Results").
 */
import { describe, expect, it } from 'vitest';
import { shownAnswer, shownResult, shownValue } from '../../src/lib/shownText.js';
import { cleanText } from '../../src/trust/clean.js';
import { withoutSecrets } from '../../src/upstream/failure.js';

const SECRET = 'sk-live-4f3e2d1c0b9a8877';
const show = (text: string): string => withoutSecrets(cleanText(text).text, [SECRET]);
const showKey = (key: string): string => withoutSecrets(cleanText(key, { lines: false }).text, [SECRET]);

describe('shownResult', () => {
  it('cleans and masks structuredContent and _meta at any depth, keys too; binary content and non-strings pass', () => {
    const hostile = `ok\u001b[31m red\u202e ${SECRET}\r\nnext`;
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const blob = { type: 'resource', resource: { uri: 'x://1', blob: 'AAEC' } };
    const result = {
      content: [image, blob],
      structuredContent: { a: hostile, list: [1, false, null, { [`k\u200bey\u0007`]: hostile, __proto__x: 'plain' }], deep: { deeper: { deepest: [hostile] } } },
      _meta: { [`t${SECRET}`]: hostile, n: 2 },
    };
    expect(shownResult(result, show, showKey)).toEqual({
      content: [image, blob],
      structuredContent: { a: 'ok red <redacted>\nnext', list: [1, false, null, { key: 'ok red <redacted>\nnext', __proto__x: 'plain' }], deep: { deeper: { deepest: ['ok red <redacted>\nnext'] } } },
      _meta: { 't<redacted>': 'ok red <redacted>\nnext', n: 2 },
    });
  });

  it('keeps a clean result, and the clean parts of a changed one, the same objects', () => {
    const clean = { content: [{ type: 'text', text: 'fine' }], structuredContent: { a: ['b', 1] }, _meta: { c: 'd' } };
    expect(shownResult(clean, show, showKey)).toBe(clean);
    const mixed = { structuredContent: { same: { a: 'b' }, changed: `x${SECRET}` } };
    const shown = shownResult(mixed, show, showKey) as { structuredContent: { same: unknown } };
    expect(shown.structuredContent.same).toBe(mixed.structuredContent.same);
  });

  it('keeps the first of two keys that clean to the same text, and a __proto__ key as a plain property', () => {
    const value = JSON.parse('{"a":"1","a\\u200b":"2","__proto__":{"polluted":"\\u001b[2Jyes"}}') as unknown;
    const shown = shownValue(value, show, showKey) as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(['a', '__proto__']);
    expect(shown.a).toBe('1');
    expect(Object.getOwnPropertyDescriptor(shown, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('throws RangeError for a structuredContent nested too deeply to walk (the connection answers it as the upstream error)', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(() => shownResult({ content: [], structuredContent: { deep } }, show, showKey)).toThrow(RangeError);
  });
});

describe('the whole answer', () => {
  const hostile = `ok\u001b]0;pwned\u0007 ${SECRET}\u202e`;
  const shown = 'ok <redacted>';

  it('shows every field of every content block but an image’s, audio’s or resource’s binary payload', () => {
    const result = {
      content: [
        { type: 'text', text: 'plain', _meta: { m: hostile }, annotations: { audience: ['user'], priority: 0.5, note: hostile } },
        { type: 'resource_link', uri: `https://x.example/${SECRET}`, name: hostile, title: hostile, description: hostile, mimeType: 'text/plain' },
        { type: 'image', data: `iVBOR${SECRET}`, mimeType: 'image/png', _meta: { alt: hostile } },
        { type: 'audio', data: 'AAAA\u0007', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'x://1', blob: `AA${SECRET}`, _meta: { x: hostile } } },
      ],
      isError: false,
    };
    expect(shownResult(result, show, showKey)).toEqual({
      content: [
        { type: 'text', text: 'plain', _meta: { m: shown }, annotations: { audience: ['user'], priority: 0.5, note: shown } },
        { type: 'resource_link', uri: 'https://x.example/<redacted>', name: shown, title: shown, description: shown, mimeType: 'text/plain' },
        { type: 'image', data: `iVBOR${SECRET}`, mimeType: 'image/png', _meta: { alt: shown } },
        { type: 'audio', data: 'AAAA\u0007', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'x://1', blob: `AA${SECRET}`, _meta: { x: shown } } },
      ],
      isError: false,
    });
  });

  it('a `data` or `blob` key elsewhere is text like any other', () => {
    const result = { content: [{ type: 'text', text: 'a', data: hostile, blob: hostile }], structuredContent: { type: 'image', data: hostile } };
    expect(shownResult(result, show, showKey)).toEqual({ content: [{ type: 'text', text: 'a', data: shown, blob: shown }], structuredContent: { type: 'image', data: shown } });
  });

  it('shows resources/read, prompts/get and completion/complete whole, blobs as they are', () => {
    expect(shownAnswer('resources/read', { contents: [{ uri: 'x://1', text: hostile, _meta: { m: hostile } }, { uri: 'x://1', blob: `AA${SECRET}` }] }, show, showKey)).toEqual({
      contents: [{ uri: 'x://1', text: shown, _meta: { m: shown } }, { uri: 'x://1', blob: `AA${SECRET}` }],
    });
    const prompt = { description: hostile, messages: [{ role: 'user', content: { type: 'resource_link', uri: 'x://y', name: 'n', description: hostile } }, { role: 'user', content: { type: 'image', data: `AA${SECRET}`, mimeType: 'image/png' } }] };
    expect(shownAnswer('prompts/get', prompt, show, showKey)).toEqual({
      description: shown,
      messages: [{ role: 'user', content: { type: 'resource_link', uri: 'x://y', name: 'n', description: shown } }, { role: 'user', content: { type: 'image', data: `AA${SECRET}`, mimeType: 'image/png' } }],
    });
    expect(shownAnswer('completion/complete', { completion: { values: [hostile], _meta: { m: hostile } } }, show, showKey)).toEqual({ completion: { values: [shown], _meta: { m: shown } } });
  });

  it('shows listed prompts, resources and templates but what routes: a prompt’s name, a URI, a URI template, the cursor', () => {
    const odd = `x\u200b${SECRET}`;
    expect(shownAnswer('prompts/list', { prompts: [{ name: odd, description: hostile, arguments: [{ name: 'a', description: hostile }], _meta: { m: hostile } }], nextCursor: odd }, show, showKey)).toEqual({
      prompts: [{ name: odd, description: shown, arguments: [{ name: 'a', description: shown }], _meta: { m: shown } }],
      nextCursor: odd,
    });
    expect(shownAnswer('resources/list', { resources: [{ uri: odd, name: hostile, description: hostile }] }, show, showKey)).toEqual({ resources: [{ uri: odd, name: shown, description: shown }] });
    expect(shownAnswer('resources/templates/list', { resourceTemplates: [{ uriTemplate: odd, name: 'n', _meta: { m: hostile } }] }, show, showKey)).toEqual({
      resourceTemplates: [{ uriTemplate: odd, name: 'n', _meta: { m: shown } }],
    });
  });

  it('keeps a clean answer the same object', () => {
    const read = { contents: [{ uri: 'x://1', text: 'fine', _meta: { a: 1 } }, { uri: 'x://1', blob: 'AAEC' }] };
    expect(shownAnswer('resources/read', read, show, showKey)).toBe(read);
    const listed = { prompts: [{ name: 'p', description: 'fine', arguments: [{ name: 'a' }] }] };
    expect(shownAnswer('prompts/list', listed, show, showKey)).toBe(listed);
  });
});
