import { describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { fitResult, resultFromOutcome, textResultBound } from '../../src/gateway/results.js';
import type { CatalogEntry } from '../../src/catalog/types.js';

const entry = { server: 'up', upstreamName: 'echo' } as CatalogEntry;
const pass = (result: Record<string, unknown>) => resultFromOutcome({ kind: 'ok', result }, entry);

describe('resultFromOutcome on an upstream success', () => {
  it('passes a text result through as the very object the upstream sent (the quick check)', () => {
    const result = { content: [{ type: 'text', text: 'Echo: hi' }, { type: 'text', text: '' }], isError: false };
    expect(pass(result).result).toBe(result);
  });

  it('passes every other well-formed result through untouched, checked by the schema', () => {
    const results = [
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
      { content: [{ type: 'text', text: 'x', annotations: { priority: 1 } }], structuredContent: { n: 1 } },
      { content: [], _meta: { trace: 'x' } },
    ];
    for (const result of results) expect(pass(result)).toEqual({ result });
  });

  it('turns a malformed result into an isError the schema would also refuse, whichever shape it has', () => {
    const malformed = [
      { content: [{ type: 'text', text: 5 }] },
      { content: [{ type: 'text' }] },
      { content: 'Echo: hi' },
      { content: [{ type: 'text', text: 'x' }], isError: 'yes' },
      { content: [null] },
    ];
    for (const result of malformed) {
      expect(CallToolResultSchema.safeParse(result).success, JSON.stringify(result)).toBe(false);
      const { result: answer, failure } = pass(result);
      expect(failure, JSON.stringify(result)).toBe('malformed_result');
      expect(answer.isError).toBe(true);
      expect(JSON.stringify(answer.content)).toContain('upstream server \\"up\\" (tool \\"echo\\") returned a malformed result');
    }
  });
});

describe('fitResult measures only results that might be over the limit', () => {
  const measure = (value: unknown): { bytes: number } => ({ bytes: Buffer.byteLength(JSON.stringify(value)) });

  it('the text bound is never below the real size, whatever the characters', () => {
    for (const text of ['', 'plain', '\u0000\u001f\u0007'.repeat(50), '"\\'.repeat(40), '日本語'.repeat(30), '😀'.repeat(25), '\ud800 lone']) {
      for (const result of [{ content: [{ type: 'text' as const, text }] }, { content: [{ type: 'text' as const, text }, { type: 'text' as const, text }], isError: true }]) {
        expect(textResultBound(result)).toBeGreaterThanOrEqual(measure(result).bytes);
      }
    }
    expect(textResultBound({ content: [{ type: 'image', data: 'x', mimeType: 'image/png' }] })).toBe(Infinity);
    expect(textResultBound({ content: [], structuredContent: { a: 1 } })).toBe(Infinity);
  });

  it('a small text result is not measured; a big one, or one of another kind, is', () => {
    let measured = 0;
    const counting = (value: unknown): { bytes: number } => ((measured += 1), measure(value));
    const small = { content: [{ type: 'text' as const, text: 'ok' }] };
    expect(fitResult(small, 1000, counting)).toBe(small);
    expect(measured).toBe(0);
    const big = { content: [{ type: 'text' as const, text: 'x'.repeat(2000) }] };
    expect(fitResult(big, 1000, counting).isError).toBe(true);
    const structured = { content: [], structuredContent: { a: 1 } };
    expect(fitResult(structured, 1000, counting)).toBe(structured);
    expect(measured).toBe(2);
  });
});
