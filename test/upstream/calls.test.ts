import { describe, expect, it } from 'vitest';
import { withoutServerInfo } from '../../src/upstream/calls.js';

describe('withoutServerInfo (a forwarded result named the upstream as the responder)', () => {
  it("drops the upstream's serverInfo and keeps every other _meta key", () => {
    const result = { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'evil', version: '1.0.0' }, trace: 'x' } };
    expect(withoutServerInfo(result)).toEqual({ content: [], _meta: { trace: 'x' } });
  });

  it('drops _meta left empty, and returns a result without serverInfo as the same object', () => {
    expect(withoutServerInfo({ content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'evil', version: '1' } } })).toEqual({ content: [] });
    const plain = { content: [], _meta: { trace: 'x' } };
    expect(withoutServerInfo(plain)).toBe(plain);
    const none = { contents: [] };
    expect(withoutServerInfo(none)).toBe(none);
  });
});
