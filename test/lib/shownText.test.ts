/**
 * The walkers over an upstream's answer text: a call result's structuredContent and _meta have every
 * string and key shown at any depth, binary and numbers as they are, and a clean result stays the
 * same object (docs/security.md, "Results").
 */
import { describe, expect, it } from 'vitest';
import { shownResult, shownValue } from '../../src/lib/shownText.js';
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
