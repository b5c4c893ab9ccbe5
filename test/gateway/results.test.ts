import { describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { resultFromOutcome } from '../../src/gateway/results.js';
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
