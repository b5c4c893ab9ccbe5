/**
 * A direct tools/call (directCall.ts) ends exactly as the SDK Client's request does
 * (calls.ts `sendToolCall`), on the same connected 2025-era upstream: results of every shape, a
 * JSON-RPC error with data, progress, responses that are not valid (the call times out), the caller
 * cancelling, and the upstream exiting mid-call. Issue #9 "Numbers".
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../src/config/types.js';
import { sendToolCall, type CallContext } from '../../src/upstream/calls.js';
import { directTransport, sendDirectToolCall } from '../../src/upstream/directCall.js';
import { newUpstreamClient } from '../../src/upstream/relay.js';
import { ChildStdioTransport } from '../../src/upstream/stdioTransport.js';
import type { CallOptions, CallOutcome, ProgressUpdate } from '../../src/upstream/types.js';
import { fixture } from '../helpers/gateway.js';

const server = { command: process.execPath, args: [fixture('oddResults.mjs')], timeoutMs: 400 } as ServerConfig;
const opened: ChildStdioTransport[] = [];

async function connect(script = 'oddResults.mjs'): Promise<{ client: Client; transport: ChildStdioTransport; context: CallContext }> {
  const transport = new ChildStdioTransport({ command: process.execPath, args: [fixture(script)] }, process.cwd(), () => undefined);
  opened.push(transport);
  const client = newUpstreamClient('odd', '0.0.0', undefined, () => ({ ok: false, reason: 'none' }));
  let current = true;
  client.onclose = () => (current = false);
  await client.connect(transport);
  return { client, transport, context: { server, isCurrent: () => current, retryInMs: () => (current ? undefined : 500) } };
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});

type Sent = { outcome: CallOutcome; progress: ProgressUpdate[] };

/** The same call both ways on one connection (or on one each, for calls that end it). */
async function both(name: string, options: CallOptions = {}, fresh = false, script?: string): Promise<{ sdk: Sent; direct: Sent }> {
  const first = await connect(script);
  const second = fresh ? await connect(script) : first;
  const run = async (send: (o: CallOptions) => Promise<CallOutcome | symbol>): Promise<Sent> => {
    const progress: ProgressUpdate[] = [];
    const outcome = (await send({ ...options, onProgress: (p) => progress.push(p) })) as CallOutcome;
    return { outcome, progress };
  };
  const sdk = await run((o) => sendToolCall(first.client, name, { a: 1 }, o, first.context));
  const transport = directTransport(second.client);
  expect(transport).toBe(second.transport);
  const direct = await run((o) => sendDirectToolCall(second.client, transport!, name, { a: 1 }, o, second.context));
  return { sdk, direct };
}

describe('a direct upstream call ends as the SDK Client request does', () => {
  it.each(['text', 'structured', 'failed', 'error', 'progress'])('%s', async (name) => {
    const { sdk, direct } = await both(name);
    expect(direct).toEqual(sdk);
    expect(sdk.outcome.kind).toBe(name === 'error' ? 'upstream_error' : 'ok');
  });

  it('the upstream serverInfo is dropped from _meta, other keys kept', async () => {
    const { direct } = await both('structured');
    expect(direct.outcome).toEqual({ kind: 'ok', result: { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 }, _meta: { trace: 't-1' } } });
  });

  it.each(['not_object', 'extra_key', 'silent'])('%s: never a valid answer, so the idle timeout ends it', async (name) => {
    const { sdk, direct } = await both(name);
    expect(direct).toEqual(sdk);
    expect(sdk.outcome).toEqual({ kind: 'timeout', ms: 400 });
  });

  it('progress resets the idle timeout; the total cap still ends the call', async () => {
    const { sdk, direct } = await both('ticking', { timeoutMs: 800, maxTotalMs: 1500 });
    expect(direct.outcome).toEqual(sdk.outcome);
    expect(sdk.outcome).toEqual({ kind: 'timeout', ms: 1500 });
    // Counted, not timed: far more than one idle period's worth of progress came before the cap.
    expect(Math.min(sdk.progress.length, direct.progress.length)).toBeGreaterThan(4);
  });

  it('the caller cancelling ends it as cancelled, before or during the call', async () => {
    const aborted = new AbortController();
    aborted.abort('before');
    expect(await both('silent', { signal: aborted.signal })).toEqual({ sdk: { outcome: { kind: 'cancelled' }, progress: [] }, direct: { outcome: { kind: 'cancelled' }, progress: [] } });
    const { sdk, direct } = await both('silent', { signal: AbortSignal.timeout(100) });
    expect(direct).toEqual(sdk);
    expect(sdk.outcome).toEqual({ kind: 'cancelled' });
  });

  it('the upstream exiting mid-call makes it unavailable, with the restart time', async () => {
    const { sdk, direct } = await both('exit', {}, true);
    expect(direct).toEqual(sdk);
    expect(sdk.outcome).toEqual({ kind: 'unavailable', reason: 'the connection closed during the call', retryInMs: 500 });
  });

  it('arguments JSON cannot hold are not sent, and say so', async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { next: deep };
    const { client, transport, context } = await connect();
    const outcomes = await Promise.all([sendToolCall(client, 'text', deep, {}, context), sendDirectToolCall(client, transport, 'text', deep, {}, context)]);
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[0]).toMatchObject({ kind: 'upstream_error', notSent: true });
  });

  it('a server that echoes ids and progress tokens as strings ("-3" for -3) is answered, as the SDK Client matches them by number', async () => {
    const { sdk, direct } = await both('strid', {}, false, 'rude.mjs');
    expect(direct).toEqual(sdk);
    expect(sdk).toEqual({ outcome: { kind: 'ok', result: { content: [{ type: 'text', text: 'answered under a string id' }] } }, progress: [{ progress: 1, total: 1 }] });
  });

  it('a result with _meta, and own "__proto__" keys, reaches the caller byte for byte as the SDK Client parse leaves it: _meta first, no __proto__', async () => {
    const { sdk, direct } = await both('proto', {}, false, 'rude.mjs');
    expect(JSON.stringify(direct)).toBe(JSON.stringify(sdk));
    expect(JSON.stringify(sdk.outcome)).toBe('{"kind":"ok","result":{"_meta":{"k":1},"content":[{"type":"text","text":"p"}]}}');
  });

  it('progress reaches the caller as the SDK Client schema parse leaves it: known keys in schema order, unknown ones dropped, an invalid one dropped', async () => {
    const { sdk, direct } = await both('oddprogress', {}, false, 'rude.mjs');
    expect(JSON.stringify(direct)).toBe(JSON.stringify(sdk));
    expect(JSON.stringify(sdk.progress)).toBe('[{"progress":1,"total":2,"message":"first"}]');
    // Lines that are not JSON-RPC (no "jsonrpc", an extra top-level key) are no progress at all.
    const bare = await both('bareprogress', {}, false, 'rude.mjs');
    expect(bare.direct).toEqual(bare.sdk);
    expect(bare.sdk.progress).toEqual([]);
  });

  it('a resultType in a 2025-era result is dropped, as the SDK Client 2025 codec drops it (a modern client must not see an upstream input_required)', async () => {
    const { sdk, direct } = await both('typed', {}, false, 'rude.mjs');
    expect(JSON.stringify(direct)).toBe(JSON.stringify(sdk));
    expect(sdk.outcome).toEqual({ kind: 'ok', result: { content: [{ type: 'text', text: 'a 2025 result after all' }], requestState: 'forged' } });
  });

  it('a call that times out is cancelled upstream with the reason the SDK Client gives, and its late answer is dropped', async () => {
    const { client, transport, context } = await connect('rude.mjs');
    const sdk = await sendToolCall(client, 'late', {}, {}, context);
    const direct = await sendDirectToolCall(client, transport, 'late', {}, {}, context);
    expect(direct).toEqual(sdk);
    expect(sdk).toEqual({ kind: 'timeout', ms: 400 });
    const listed = (await sendToolCall(client, 'cancelled', {}, {}, context)) as { result: { structuredContent: { cancelled: { reason: string }[] } } };
    const reasons = listed.result.structuredContent.cancelled.map((c) => c.reason);
    expect(reasons).toEqual(['SdkError: Request timed out', 'SdkError: Request timed out']);
  });
});
