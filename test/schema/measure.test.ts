import { describe, expect, it } from 'vitest';
import { estimateTokens, jsonBytes, textBytes } from '../../src/schema/measure.js';

describe('measure (UTF-8 bytes of compact JSON)', () => {
  it('counts compact JSON, no whitespace', () => {
    expect(jsonBytes({ a: [1, 2], b: 'x' })).toBe('{"a":[1,2],"b":"x"}'.length);
  });

  it('counts multi-byte text in UTF-8, not UTF-16 units', () => {
    expect(jsonBytes('é')).toBe(4); // quotes + 2 bytes
    expect(jsonBytes('😀')).toBe(6); // quotes + 4 bytes, not 2 surrogate units
    expect(textBytes('漢字')).toBe(6);
  });

  it('measures values JSON cannot encode as 0', () => {
    expect(jsonBytes(undefined)).toBe(0);
  });

  it('estimates ~4 bytes per token, rounding up', () => {
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(1)).toBe(1);
    expect(estimateTokens(4000)).toBe(1000);
    expect(estimateTokens(4001)).toBe(1001);
  });
});
