/**
 * A direct tools/call (directCall.ts) ends exactly as the SDK Client's request does
 * (calls.ts `sendToolCall`), on the same connected upstream. 2025 era: results of every shape, a
 * JSON-RPC error with data, progress, responses that are not valid (the call times out), the caller
 * cancelling, and the upstream exiting mid-call. 2026-07-28 era: plain results, progress, and
 * `input_required` rounds (sampling, elicitation) that the Client's engine fulfils through the relay
 * and retries. Source: docs/benchmarks.md (proxy overhead per call).
 */
import type { Client } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerConfig } from '../../src/config/types.js';
import { sendToolCall, type CallContext } from '../../src/upstream/calls.js';
import { directTransport, plainModernResult, sendDirectToolCall } from '../../src/upstream/directCall.js';
import { newUpstreamClient, type ServerRequestRelay } from '../../src/upstream/relay.js';
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
  return { client, transport, context: { server, isCurrent: () => current, retryInMs: () => (current ? undefined : 500), clientActiveAt: () => 0 } };
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

  it.each(['not_object', 'extra_key'])('%s: an answer that is no valid JSON-RPC response fails the call at once, not at the idle timeout', async (name) => {
    const { sdk, direct } = await both(name);
    expect(direct).toEqual(sdk);
    expect(sdk.outcome).toMatchObject({ kind: 'upstream_error', message: expect.stringContaining('not a valid JSON-RPC response') });
  });

  it('silent: no answer at all, so the idle timeout ends it', async () => {
    const { sdk, direct } = await both('silent');
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

  it('the wall clock set back an hour during a call does not hold it past its idle timeout (its timer read Date.now)', async () => {
    const { client, transport, context } = await connect();
    // Only Date is faked (a clock step such as NTP makes); timers and performance.now stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const call = sendDirectToolCall(client, transport, 'silent', {}, {}, context);
      vi.setSystemTime(Date.now() - 3_600_000);
      // 400 ms on the real clock; an hour on the one that was read. 10 s is headroom, not a bound.
      const stillWaiting = new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000).unref());
      expect(await Promise.race([call, stillWaiting])).toEqual({ kind: 'timeout', ms: 400 });
    } finally {
      vi.useRealTimers();
    }
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

describe('a direct call to a 2026-07-28 upstream ends as the SDK Client request does', () => {
  const asked: string[] = [];
  const relay: ServerRequestRelay = (_key, method) => {
    asked.push(method);
    return Promise.resolve(method === 'sampling/createMessage' ? { role: 'assistant', model: 'm', content: { type: 'text', text: 'a sample' } } : { action: 'accept', content: { reply: 'yes' } });
  };
  const modernServer = { command: process.execPath, args: [fixture('modernOnly.mjs')], timeoutMs: 400 } as ServerConfig;

  async function connectModern(): Promise<{ client: Client; transport: ChildStdioTransport; context: CallContext }> {
    const transport = new ChildStdioTransport({ command: process.execPath, args: [fixture('modernOnly.mjs')] }, process.cwd(), () => undefined);
    opened.push(transport);
    const origin = { session: 's', ask: () => Promise.reject(new Error('unused')) };
    const client = newUpstreamClient('mo', '0.0.0', relay, () => ({ ok: true, origin }), { mode: { pin: '2026-07-28' } });
    await client.connect(transport);
    // The Client's first request after discovery carries the envelope the direct path copies.
    await client.listTools();
    return { client, transport, context: { server: modernServer, isCurrent: () => true, retryInMs: () => undefined, clientActiveAt: () => 0 } };
  }

  async function bothModern(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<{ sdk: Sent; direct: Sent }> {
    const { client, transport, context } = await connectModern();
    expect(directTransport(client)).toBe(transport);
    const run = async (send: (o: CallOptions) => Promise<CallOutcome | symbol>): Promise<Sent> => {
      const progress: ProgressUpdate[] = [];
      return { outcome: (await send({ ...options, onProgress: (p) => progress.push(p) })) as CallOutcome, progress };
    };
    const sdk = await run((o) => sendToolCall(client, name, args, o, context));
    const direct = await run((o) => sendDirectToolCall(client, transport, name, args, o, context));
    return { sdk, direct };
  }

  it('no direct path before the Client has sent its envelope', async () => {
    const transport = new ChildStdioTransport({ command: process.execPath, args: [fixture('modernOnly.mjs')] }, process.cwd(), () => undefined);
    opened.push(transport);
    const client = newUpstreamClient('mo', '0.0.0', relay, () => ({ ok: false, reason: 'none' }), { mode: { pin: '2026-07-28' } });
    await client.connect(transport);
    expect(directTransport(client)).toBeUndefined();
    await client.listTools();
    expect(transport.envelope).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'toolshelf' } });
    expect(directTransport(client)).toBe(transport);
  });

  it.each([
    ['echo', { text: 'hi' }],
    ['ticks', { count: 3 }],
    ['nope', {}],
  ])('%s', async (name, args) => {
    const { sdk, direct } = await bothModern(name, args);
    expect(direct).toEqual(sdk);
    expect(sdk.outcome.kind).toBe('ok');
  });

  it.each(['sampling', 'elicitation'])('an input_required round for %s is fulfilled through the relay and retried', async (kind) => {
    asked.length = 0;
    const { sdk, direct } = await bothModern('ask', { kind, prompt: 'Well?' });
    expect(direct).toEqual(sdk);
    expect(sdk.outcome).toMatchObject({ kind: 'ok', result: { content: [{ type: 'text', text: expect.stringContaining('answered') }] } });
    expect(asked).toEqual(kind === 'sampling' ? ['sampling/createMessage', 'sampling/createMessage'] : ['elicitation/create', 'elicitation/create']);
  });

  it('a hung call times out and is cancelled upstream, both ways', async () => {
    const { client, transport, context } = await connectModern();
    const count = async (): Promise<string> => ((await sendToolCall(client, 'cancellations', {}, {}, context)) as { result: { content: { text: string }[] } }).result.content[0]!.text;
    const sdk = await sendToolCall(client, 'hang', {}, {}, context);
    const direct = await sendDirectToolCall(client, transport, 'hang', {}, {}, context);
    expect(direct).toEqual(sdk);
    expect(sdk).toEqual({ kind: 'timeout', ms: 400 });
    for (let i = 0; i < 50 && (await count()) !== '2'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await count()).toBe('2');
  });
});

describe('plainModernResult: the modern results a direct call settles without the Client', () => {
  const content = [{ type: 'text', text: 'x' }];
  const info = { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '1' } };

  it('complete text results, with isError or the server info, lose resultType and keep their key order', () => {
    expect(JSON.stringify(plainModernResult({ content, resultType: 'complete', _meta: info }))).toBe(JSON.stringify({ content, _meta: info }));
    expect(plainModernResult({ isError: true, content, resultType: 'complete' })).toEqual({ isError: true, content });
  });

  it('anything else is left to the Client: other result types, content, _meta keys or fields', () => {
    for (const value of [
      { content, resultType: 'input_required' },
      { content },
      { content: [{ type: 'image', data: 'x', mimeType: 'image/png' }], resultType: 'complete' },
      { content, structuredContent: {}, resultType: 'complete' },
      { content, isError: 'yes', resultType: 'complete' },
      { content, resultType: 'complete', _meta: { ...info, trace: 1 } },
      { content, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 5 } } },
    ]) {
      expect(plainModernResult(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it('what it takes is a valid CallToolResult', () => {
    for (const value of [{ content, resultType: 'complete' }, { content: [], resultType: 'complete', _meta: info, isError: false }]) {
      const taken = plainModernResult(value);
      expect(taken).toBeDefined();
      expect(CallToolResultSchema.safeParse(taken).success).toBe(true);
    }
  });
});
