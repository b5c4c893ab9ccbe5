/**
 * The stdio call lane (gateway/fronts/callLane.ts) and direct upstream calls (upstream/directCall.ts) change
 * the path of a plain tools/call, never its answer: over raw stdio, each call is sent once in the
 * plain shape the lane takes and once with one extra `_meta` key that sends it through the SDK
 * Server instead, and the two answers must be byte-identical (ids aside), for both eras, against a
 * 2025-era upstream (direct calls) and a modern one (SDK Client). A client's cancellation of a lane
 * call reaches the upstream, and no response is sent for it, as the SDK does.
 * Source: docs/benchmarks.md (proxy overhead per call); MCP spec, Utilities › Cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serverEntry, writeConfig } from '../helpers/gateway.js';
import { startRawStdio, type Message, type RawStdio } from '../gateway/wire.js';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'lane-e2e', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What must come back the same both ways: name and arguments of each call. */
const CALLS: [string, Record<string, unknown>][] = [
  ['up__echo', { message: 'hello lane' }],
  ['mo__echo', { text: 'hello modern upstream' }],
  ['slow__ticks', { count: 2, everyMs: 10 }],
  ['no_such_tool', {}],
  ['up__echo', { message: 5 }],
  ['tool_search', { query: 'echo text back' }],
  ['call_tool', { name: 'mo__echo', arguments: { text: 'bridged' } }],
  ['call_tool', { name: 'mo__echo' }],
];

let config: string;
beforeAll(() => {
  config = writeConfig({
    mcpServers: {
      up: { command: 'node', args: [serverEntry('everything'), 'stdio'], tools: { echo: { exposure: 'direct' } }, exposure: 'deferred' },
      mo: { command: 'node', args: [fixture('modernOnly.mjs')], protocol: 'modern', exposure: 'deferred' },
      slow: { command: 'node', args: [fixture('progress.mjs')], exposure: 'direct', timeoutMs: 5000 },
    },
  });
});

/** `message` without its id, as compact JSON. */
function withoutId(message: Message): string {
  const { id: _id, ...rest } = message;
  return JSON.stringify(rest);
}

describe.each(['legacy', 'modern'] as const)('a %s client: the lane answers as the SDK path does', (era) => {
  let gw: RawStdio;
  const meta = (extra: Record<string, unknown>): Record<string, unknown> => (era === 'modern' ? { ...envelope, ...extra } : extra);
  /** An extra `_meta` key the lane does not take: the request goes through the SDK Server. */
  const sdkOnly = era === 'modern' ? { 'io.modelcontextprotocol/logLevel': 'emergency' } : { 'x-lane-e2e': 'sdk' };
  const call = (id: string, name: string, args: Record<string, unknown>, extra: Record<string, unknown>): Message => {
    const _meta = meta(extra);
    return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(Object.keys(_meta).length > 0 ? { _meta } : {}) } };
  };

  beforeAll(async () => {
    gw = startRawStdio(config);
    if (era === 'legacy') await gw.initialize();
    else await gw.discover(envelope);
  });
  afterAll(async () => {
    await gw.close();
  });

  it.each(CALLS.map((c, i) => [i, ...c] as const))('call %i: %s', async (i, name, args) => {
    // The SDK path first: a deferred tool called by name is promoted then, so the lane's call sees the same state.
    const sdk = await gw.request(call(`sdk-${i}`, name, args, sdkOnly));
    const lane = await gw.request(call(`lane-${i}`, name, args, {}));
    expect(withoutId(lane)).toBe(withoutId(sdk));
    expect(lane.id).toBe(`lane-${i}`);
  });

  it('progress a plain call asks for arrives under its token, as through the SDK path', async () => {
    const progress = (token: string): Message[] => gw.received.filter((m) => m.method === 'notifications/progress' && (m.params as { progressToken?: unknown }).progressToken === token);
    const sdk = await gw.request(call('sdk-progress', 'slow__ticks', { count: 3, everyMs: 10 }, { ...sdkOnly, progressToken: 'p-sdk' }));
    // A legacy call with a progress token is a lane call; a modern one goes through the SDK as well (its progress is a round's).
    const lane = await gw.request(call('lane-progress', 'slow__ticks', { count: 3, everyMs: 10 }, { progressToken: 'p-lane' }));
    expect(withoutId(lane)).toBe(withoutId(sdk));
    expect(progress('p-lane').map((m) => JSON.stringify({ ...(m.params as object), progressToken: 'x' }))).toEqual(
      progress('p-sdk').map((m) => JSON.stringify({ ...(m.params as object), progressToken: 'x' })),
    );
    expect(progress('p-lane')).toHaveLength(3);
  });

  it('a cancelled call gets no response and the upstream is told', async () => {
    const cancelled = async (): Promise<{ cancelled: { requestId: number }[]; hangs: number[] }> => {
      const answer = await gw.request(call(`count-${Math.random()}`, 'slow__cancellations', {}, {}));
      return (answer.result as { structuredContent: { cancelled: { requestId: number }[]; hangs: number[] } }).structuredContent;
    };
    const before = await cancelled();
    gw.write(JSON.stringify(call('hang-1', 'slow__hang', {}, {})));
    let after = before;
    for (let i = 0; i < 50 && after.hangs.length === before.hangs.length; i++) after = await cancelled();
    expect(after.hangs).toHaveLength(before.hangs.length + 1);
    gw.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'hang-1', reason: 'user stop', ...(era === 'modern' ? { _meta: envelope } : {}) } }));
    for (let i = 0; i < 50 && after.cancelled.length === before.cancelled.length; i++) after = await cancelled();
    expect(after.cancelled.map((c) => c.requestId)).toContain(after.hangs.at(-1));
    expect(gw.received.filter((m) => m.id === 'hang-1')).toEqual([]);
  });
});
