import { describe, expect, it } from 'vitest';
import { listAllTools, parseToolsPage } from '../../src/upstream/listTools.js';

describe('permissive tools/list parsing (issue #2 item 3)', () => {
  it('drops each malformed tool with its reason and keeps the rest verbatim, unknown fields included', () => {
    const parsed = parseToolsPage([
      { name: 'ok', inputSchema: { type: 'object' }, title: 'OK', annotations: { readOnlyHint: true }, 'x-vendor': 1 },
      { name: 'bad', inputSchema: 'nope' },
      { inputSchema: {} },
      null,
      { name: 'ok', inputSchema: {} },
      { name: 'desc', description: 42, inputSchema: {} },
    ]);
    expect(parsed.tools).toEqual([
      { name: 'ok', inputSchema: { type: 'object' }, title: 'OK', annotations: { readOnlyHint: true }, 'x-vendor': 1 },
      { name: 'desc', inputSchema: {} },
    ]);
    expect(parsed.skipped.map((s) => `${s.name}: ${s.reason}`)).toEqual([
      'bad: "inputSchema" is not an object',
      '#2: missing or empty "name"',
      '#3: not an object',
      'ok: duplicate name',
    ]);
  });

  it('reads every page and stops at a repeated cursor', async () => {
    const pages: Record<string, Record<string, unknown>> = {
      start: { tools: [{ name: 'a', inputSchema: {} }], nextCursor: 'p2' },
      p2: { tools: [{ name: 'b', inputSchema: {} }], nextCursor: 'p3' },
      p3: { tools: [{ name: 'c', inputSchema: {} }], nextCursor: 'p2' },
    };
    const seen: (string | undefined)[] = [];
    const all = await listAllTools(async (cursor) => {
      seen.push(cursor);
      return pages[cursor ?? 'start'] as Record<string, unknown>;
    });
    expect(all.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual([undefined, 'p2', 'p3']);
  });

  it('a page whose tools is not an array is reported, not thrown', async () => {
    const all = await listAllTools(async () => ({ tools: 'many' }));
    expect(all.tools).toEqual([]);
    expect(all.skipped[0]?.reason).toMatch(/not an array/);
  });
});
