/**
 * Upstreams that misbehave at start or in their tool lists never take the gateway down: one that
 * never answers `initialize`, one with 5,000 tools, one with absurd schemas (1,000 levels deep, 1 MB,
 * self-referencing), one that sends hundreds of list_changed in a row. Each test shows the other
 * upstreams keep serving and that no process is left behind. For the first, the start timeout is
 * lowered to 2 s through `TOOLSHELF_START_TIMEOUT_MS`. Source: docs/robustness.md, docs/tools.md, docs/benchmarks.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startStdio, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';
import { closeAndExpectNoOrphans, startWithStartTimeout, structuredOf, upstreamPids } from '../upstream/e2eHelpers.js';

const START_TIMEOUT_MS = 2000;

async function counterAnswers(gw: Connected): Promise<void> {
  const answer = await gw.client.callTool({ name: 'counter__set_mode', arguments: { mode: 'eco' } });
  expect(textOf(answer)).toBe('mode=eco');
}

describe('an upstream that never answers initialize', () => {
  let gw: Connected;
  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        never: { command: 'node', args: [fixture('neverInit.mjs')] },
        // Its own generous start timeout: a loaded machine may take more than 2 s to start it.
        counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct', startTimeoutMs: 60_000 },
      },
    });
    // debug: a retry with the same cause is logged at debug only.
    gw = await startWithStartTimeout(path, START_TIMEOUT_MS, ['--log-level', 'debug']);
  });
  afterAll(() => closeAndExpectNoOrphans(gw));

  it('is given up after the start timeout while the others serve, and retried with backoff', async () => {
    // The log shows the start timed out and the other upstream served (no wall-clock bound).
    const log = gw.stderr.join('\n');
    expect(log).toMatch(/upstream "never" failed to start: did not finish starting within [\d.]+ s \(startTimeoutMs\)/);
    expect(log).toMatch(/upstreams: 1\/2 connected/);
    await counterAnswers(gw);
    expect(await waitFor(() => gw.stderr.some((line) => /upstream "never" will be retried in [\d.]+ s \(attempt 2\)/.test(line)), 8000)).toBe(true);
    await counterAnswers(gw);
    // A timed-out start is ended in the background (SIGTERM ignored → SIGKILL after the grace period).
    expect(upstreamPids(gw, 'neverInit.mjs').length).toBeLessThanOrEqual(2);
  });
});

describe('upstreams with hostile tool lists', () => {
  let gw: Connected;
  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        thousands: { command: 'node', args: [fixture('thousands.mjs')] },
        absurd: { command: 'node', args: [fixture('absurd.mjs')] },
        storm: { command: 'node', args: [fixture('storm.mjs')], exposure: 'direct' },
        counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
      },
    });
    gw = await startStdio(path);
  });
  afterAll(() => closeAndExpectNoOrphans(gw));

  it('serves 5,000 tools listed over pages: a small first tools/list, search and calls by name', async () => {
    const list = await gw.client.listTools();
    expect(JSON.stringify(list).length).toBeLessThan(40_000);
    const search = await gw.client.callTool({ name: 'tool_search', arguments: { query: 'thousands__tool_04321' } });
    expect(structuredOf<{ tools: { name: string }[] }>(search).tools[0]?.name).toBe('thousands__tool_04321');
    const call = await gw.client.callTool({ name: 'thousands__tool_04999', arguments: { id: 7 } });
    expect(textOf(call)).toBe('tool_04999 got {"id":7}');
    const bad = await gw.client.callTool({ name: 'thousands__tool_00001', arguments: { id: 'seven' } });
    expect(bad.isError).toBe(true);
    await counterAnswers(gw);
  });

  it('serves tools with absurd schemas (1,000 levels deep, 1 MB, self-referencing) and their plain neighbour', async () => {
    const search = await gw.client.callTool({ name: 'tool_search', arguments: { query: 'object nested levels deep', limit: 3 } });
    const found = structuredOf<{ tools: { name: string; parameters?: unknown }[] }>(search).tools;
    expect(found.map((t) => t.name)).toContain('absurd__deep');
    // Strong matches carry their projected schema, the others a one-line summary.
    expect(found.some((t) => t.parameters !== undefined)).toBe(true);
    for (const tool of found) if (tool.parameters !== undefined) expect(JSON.stringify(tool.parameters).length).toBeLessThanOrEqual(5000);
    const call = async (name: string, args: Record<string, unknown>): Promise<string> => textOf(await gw.client.callTool({ name, arguments: args }));
    // First calls compile each canonical schema for admission while another upstream is being called;
    // the compile cost itself is checked against a same-run baseline in test/schema/hostile.test.ts.
    const [deep, wide, recursive, plain] = await Promise.all([
      call('absurd__deep', { root: { next: { next: {} } } }),
      call('absurd__wide', { code: 'product_1999', query: 'x' }),
      call('absurd__recursive', { tree: { children: [{ children: [] }] } }),
      call('absurd__plain', { text: 'still plain' }),
      counterAnswers(gw),
    ]);
    expect([deep, wide, recursive, plain]).toEqual(['deep ok', 'wide ok', 'recursive ok', 'still plain']);
    expect((await gw.client.callTool({ name: 'absurd__wide', arguments: { code: 'nope' } })).isError).toBe(true);
  });

  it('re-lists once for a burst of 500 list_changed and tells the client once', async () => {
    const lists = async (): Promise<number> => Number(textOf(await gw.client.callTool({ name: 'storm__list_count', arguments: {} })));
    expect((await gw.client.listTools()).tools.map((t) => t.name)).toContain('storm__generation_0');
    let told = 0;
    gw.client.setNotificationHandler('notifications/tools/list_changed', () => void (told += 1));
    const before = await lists();
    const [storm] = await Promise.all([gw.client.callTool({ name: 'storm__storm', arguments: { count: 500 } }), counterAnswers(gw)]);
    expect(textOf(storm)).toBe('announced 500 times');
    expect(await waitFor(() => told > 0, 30_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(told).toBe(1);
    expect((await lists()) - before).toBe(1);
    expect((await gw.client.listTools()).tools.map((t) => t.name)).toContain('storm__generation_1');
    await counterAnswers(gw);
  });
});
