import { afterEach, describe, expect, it, vi } from 'vitest';
import { listAllTools, listingWarnings, MAX_PAGES, MAX_TOOLS, parseToolsPage } from '../../src/upstream/listTools.js';

const FAR = Date.now() + 3_600_000;

describe('permissive tools/list parsing', () => {
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
    }, FAR);
    expect(all.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual([undefined, 'p2', 'p3']);
  });

  it('a page whose tools is not an array is reported, not thrown', async () => {
    const all = await listAllTools(async () => ({ tools: 'many' }), FAR);
    expect(all.tools).toEqual([]);
    expect(all.named[0]?.reason).toMatch(/not an array/);
  });
});

describe('hostile listings stay bounded', () => {
  afterEach(() => vi.useRealTimers());

  /** `pagebigdup` (test/fixtures/servers/faulty.mjs): every page repeats the same 2,000 names under a new cursor. */
  const pageBigDup = async (cursor: string | undefined): Promise<Record<string, unknown>> => {
    const page = cursor ? Number(cursor.slice(1)) : 0;
    return { tools: Array.from({ length: 2000 }, (_, i) => ({ name: `dup${i}`, inputSchema: {} })), nextCursor: `c${page + 1}` };
  };

  it('1,000 pages × 2,000 repeated names: 2,000 tools kept and 12 warning lines, not 1,998,000', async () => {
    const listing = await listAllTools(pageBigDup, FAR);
    expect(listing.tools).toHaveLength(2000);
    expect(listing.pages).toBe(MAX_PAGES);
    expect(listing.dropped).toEqual(new Map([['duplicate name', 1_998_000]]));
    const lines = listingWarnings(listing, 30_000);
    expect(lines).toHaveLength(12);
    expect(lines.slice(0, 2)).toEqual(['dropped tool dup0: duplicate name', 'dropped tool dup1: duplicate name']);
    expect(lines[10]).toBe('…and 1997990 more dropped (reasons: duplicate name ×1997990)');
    expect(lines[11]).toBe('stopped listing after 1000 pages (the cursor never ended); kept the 2000 tools listed');
  });

  it('counts every reason in the summary line', () => {
    const named = Array.from({ length: 10 }, (_, i) => ({ name: `#${i}`, reason: 'not an object' }));
    const dropped = new Map([
      ['not an object', 12],
      ['duplicate name', 5],
    ]);
    expect(listingWarnings({ tools: [], named, dropped, pages: 1 }, 1000)).toContain('…and 7 more dropped (reasons: not an object ×2, duplicate name ×5)');
  });

  it('asks for no page once the deadline has passed, keeps what was listed, and gives each page only the time left', async () => {
    vi.useFakeTimers();
    const timeouts: number[] = [];
    const deadline = Date.now() + 1000;
    const listing = await listAllTools(async (cursor, timeoutMs) => {
      timeouts.push(timeoutMs);
      vi.advanceTimersByTime(300);
      return pageBigDup(cursor);
    }, deadline);
    expect(timeouts).toEqual([1000, 700, 400, 100]);
    expect(listing.stoppedBy).toBe('deadline');
    expect(listing.tools).toHaveLength(2000);
    expect(listingWarnings(listing, 1000).at(-1)).toBe('stopped listing after 4 pages: it took longer than 1000 ms; kept the 2000 tools listed');
  });

  it(`keeps at most ${MAX_TOOLS} tools from one upstream and says so`, async () => {
    let served = 0;
    const listing = await listAllTools(async () => {
      const tools = Array.from({ length: 7000 }, (_, i) => ({ name: `t${served + i}`, inputSchema: {} }));
      served += 7000;
      return { tools, nextCursor: `c${served}` };
    }, FAR);
    expect(listing.tools).toHaveLength(MAX_TOOLS);
    expect(listing.pages).toBe(3);
    expect(listingWarnings(listing, 1000)).toEqual([`stopped listing at ${MAX_TOOLS} tools, the most kept from one upstream; the rest are not served`]);
  });
});
