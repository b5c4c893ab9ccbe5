/**
 * Per-call limits through the built CLI with a real SDK Client: upstream progress reaches the client
 * under its own progress token and keeps a call alive past the idle timeout; a hung upstream costs
 * the caller only the server's `timeoutMs` while other upstreams keep answering; a client's
 * cancellation (signal or its own timeout) reaches the upstream as `notifications/cancelled`; the
 * same over Streamable HTTP.
 * Source: docs/robustness.md; MCP spec, Utilities › Progress and › Cancellation.
 */
import type { Client, Transport, JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alive,
  descendants,
  fixture,
  startHttp,
  startStdio,
  textOf,
  waitFor,
  writeConfig,
  type Connected,
  type HttpGateway,
} from '../helpers/gateway.js';
import { closeAndExpectNoOrphans, expectChildren, structuredOf } from '../upstream/e2eHelpers.js';

type Cancellations = { cancelled: { requestId: number; reason?: string }[]; hangs: number[] };

/** Polls the fixture until it saw `notifications/cancelled` for its latest `hang` call (up to 3 s). */
async function latestHangCancelled(client: Client): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    const { cancelled, hangs } = structuredOf<Cancellations>(await client.callTool({ name: 'slowpoke__cancellations', arguments: {} }));
    if (hangs.length > 0 && cancelled.some((c) => c.requestId === hangs.at(-1))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('timeouts, progress and cancellation', () => {
  let gw: Connected;
  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        slowpoke: { command: 'node', args: [fixture('progress.mjs')], timeoutMs: 1000, exposure: 'direct' },
        counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
      },
    });
    gw = await startStdio(path);
  });
  afterAll(() => closeAndExpectNoOrphans(gw));

  const cancellations = async (): Promise<Cancellations> =>
    structuredOf<Cancellations>(await gw.client.callTool({ name: 'slowpoke__cancellations', arguments: {} }));

  it('forwards upstream progress under the client’s token, in order before the result, and progress resets the 1 s timeout', async () => {
    const wire: JSONRPCMessage[] = [];
    const transport = gw.client.transport as Transport;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      wire.push(message);
      deliver?.(message, extra);
    };
    const updates: unknown[] = [];
    const started = Date.now();
    const result = await gw.client.callTool({ name: 'slowpoke__ticks', arguments: { count: 5, everyMs: 400 } }, {
      onprogress: (p) => void updates.push(p),
      timeout: 10_000,
    });
    transport.onmessage = deliver;
    expect(Date.now() - started).toBeGreaterThan(1900);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('ticked 5 times');
    const isProgress = (m: JSONRPCMessage): boolean => 'method' in m && m.method === 'notifications/progress';
    const progress = wire.filter(isProgress).map((m) => (m as { params: { progressToken: unknown } }).params);
    const token = progress[0]?.progressToken;
    expect(progress).toEqual([1, 2, 3, 4, 5].map((i) => ({ progressToken: token, progress: i, total: 5, message: `tick ${i}` })));
    expect(wire.findIndex((m) => 'result' in m)).toBeGreaterThan(wire.findLastIndex(isProgress));
    // The SDK Client itself drops a final progress read in the same chunk as the result.
    expect(updates.length).toBeGreaterThanOrEqual(4);
    expect(updates.slice(0, 4)).toEqual([1, 2, 3, 4].map((i) => ({ progress: i, total: 5, message: `tick ${i}` })));
  });

  it('lets upstream progress keep a call alive even when the client asked for none', async () => {
    const result = await gw.client.callTool({ name: 'slowpoke__ticks', arguments: { count: 4, everyMs: 400 } });
    expect(textOf(result)).toBe('ticked 4 times');
  });

  it('costs the caller of a hung upstream only its timeout; other upstreams answer meanwhile; the upstream is told to cancel', async () => {
    const started = Date.now();
    let pending = true;
    const hung = gw.client.callTool({ name: 'slowpoke__hang', arguments: {} }).then((r) => ({ result: r, ms: Date.now() - started }));
    void hung.finally(() => (pending = false));
    // Counted, not timed: answers from the other upstream while the hung call waits.
    let answeredMeanwhile = 0;
    for (let i = 0; i < 5; i++) {
      const answer = await gw.client.callTool({ name: 'counter__set_mode', arguments: { mode: 'eco' } });
      expect(textOf(answer)).toBe('mode=eco');
      if (pending) answeredMeanwhile += 1;
    }
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(1);
    const { result, ms } = await hung;
    expect(result.isError).toBe(true);
    // Its own 1 s timeout ended it (a hung call never ends otherwise); a lower bound load cannot break.
    expect(textOf(result)).toBe('upstream server "slowpoke" (tool "hang") did not answer within 1000 ms; the call was cancelled.');
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(await latestHangCancelled(gw.client)).toBe(true);
    await expectChildren(gw, 2);
  });

  it('passes a client’s cancellation (AbortSignal) on to the upstream', async () => {
    const controller = new AbortController();
    const call = gw.client.callTool({ name: 'slowpoke__hang', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort('user pressed stop'), 200);
    await expect(call).rejects.toThrow();
    expect(await latestHangCancelled(gw.client)).toBe(true);
    await expectChildren(gw, 2);
  });

  it('passes a client’s own request timeout on to the upstream as a cancellation', async () => {
    await expect(gw.client.callTool({ name: 'slowpoke__hang', arguments: {} }, { timeout: 300 })).rejects.toThrow(/timed out/i);
    expect(await latestHangCancelled(gw.client)).toBe(true);
    const { cancelled } = await cancellations();
    expect(cancelled).toHaveLength(3);
    await expectChildren(gw, 2);
  });
});

describe('timeouts, progress and cancellation for a Streamable HTTP client', () => {
  let gw: HttpGateway;
  let client: Client;
  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        slowpoke: { command: 'node', args: [fixture('progress.mjs')], timeoutMs: 1000, exposure: 'direct' },
        counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
      },
    });
    gw = await startHttp(path);
    client = await gw.connect();
  });
  afterAll(async () => {
    const pids = [gw.child.pid as number, ...descendants(gw.child.pid as number)];
    await gw.stop();
    expect(await waitFor(() => pids.every((pid) => !alive(pid)), 8000)).toBe(true);
  });

  it('forwards progress to the HTTP session and passes its cancellation upstream', async () => {
    const updates: number[] = [];
    const result = await client.callTool({ name: 'slowpoke__ticks', arguments: { count: 4, everyMs: 400 } }, {
      onprogress: (p) => void updates.push(p.progress),
      timeout: 10_000,
    });
    expect(textOf(result)).toBe('ticked 4 times');
    expect(updates.slice(0, 3)).toEqual([1, 2, 3]);

    const controller = new AbortController();
    const hung = client.callTool({ name: 'slowpoke__hang', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort('user pressed stop'), 200);
    await expect(hung).rejects.toThrow();
    expect(await latestHangCancelled(client)).toBe(true);
    expect(textOf(await client.callTool({ name: 'counter__set_mode', arguments: { mode: 'eco' } }))).toBe('mode=eco');
  });
});
