/**
 * Faults found in the stdio call lane (gateway/fronts/callLane.ts) and direct upstream calls
 * (upstream/directCall.ts), each with the exact input that failed, over raw stdio to the built CLI
 * in front of a rude 2025-era upstream (fixtures/servers/rude.mjs). A call sent in the lane's shape
 * must end exactly as the same call sent through the SDK Server (a modern call with a progress token
 * goes there) did. Source: docs/benchmarks.md; MCP spec 2026-07-28, Basic › `_meta`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, writeConfig } from '../helpers/gateway.js';
import { startRawStdio, type Message, type RawStdio } from '../gateway/wire.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const INFO = 'io.modelcontextprotocol/clientInfo';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const envelope = { [PV]: '2026-07-28', [INFO]: { name: 'faults-e2e', version: '1' }, [CAPS]: { sampling: {} } };

let config: string;
let gw: RawStdio;
beforeAll(async () => {
  config = writeConfig({
    mcpServers: {
      rude: { command: 'node', args: [fixture('rude.mjs')], exposure: 'direct', timeoutMs: 5000 },
      odd: { command: 'node', args: [fixture('oddResults.mjs')], exposure: 'direct', timeoutMs: 5000 },
    },
  });
  gw = startRawStdio(config);
  await gw.discover(envelope);
});
afterAll(async () => {
  await gw.close();
});

/** A modern tools/call; with a progress token it goes through the SDK Server, without one through the lane. */
function call(id: string, name: string, meta: Record<string, unknown>, sdk: boolean): Message {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: { ...meta, ...(sdk ? { progressToken: `${id}-token` } : {}) } } };
}

/** The `_meta` the upstream received, its own progress token (the direct call's id) masked. */
async function upstreamMeta(id: string, sdk: boolean): Promise<unknown> {
  const answer = await gw.request(call(id, 'rude__meta', envelope, sdk));
  const meta = JSON.parse((answer.result as { content: { text: string }[] }).content[0]!.text) as Record<string, unknown>;
  return { ...meta, progressToken: typeof meta.progressToken };
}

describe('a modern client over stdio: lane calls end as SDK-path calls', () => {
  it('the request envelope is not forwarded upstream in _meta (it was: protocolVersion, clientInfo and capabilities reached the upstream)', async () => {
    const sdk = await upstreamMeta('meta-sdk', true);
    expect(sdk).toEqual({ progressToken: 'number' });
    expect(await upstreamMeta('meta-lane', false)).toEqual(sdk);
  });

  it.each([
    ['clientInfo.title not a string', { ...envelope, [INFO]: { name: 'x', version: '1', title: 5 } }],
    ['clientInfo.icons not an array', { ...envelope, [INFO]: { name: 'x', version: '1', icons: 'x' } }],
    ['sampling capability not an object', { ...envelope, [CAPS]: { sampling: 5 } }],
    ['roots.listChanged not a boolean', { ...envelope, [CAPS]: { roots: { listChanged: 'yes' } } }],
  ])('an envelope the SDK refuses (%s) is refused the same way, not served', async (_label, meta) => {
    const sdk = await gw.request(call('bad-sdk', 'rude__meta', meta, true));
    const lane = await gw.request(call('bad-lane', 'rude__meta', meta, false));
    expect(sdk.error?.code).toBe(-32602);
    expect(lane.error).toEqual(sdk.error);
  });
});

describe('a modern client over stdio: lane results are encoded as the SDK encodes them', () => {
  it('a result with capabilities.tasks (a field 2026-07-28 deleted) loses it, as the SDK 2026 codec drops it', async () => {
    const sdk = await gw.request(call('caps-sdk', 'rude__caps', envelope, true));
    const lane = await gw.request(call('caps-lane', 'rude__caps', envelope, false));
    expect(sdk.result?.capabilities).toEqual({ tools: {} });
    expect(JSON.stringify(lane.result)).toBe(JSON.stringify(sdk.result));
  });
});

describe('a modern client over stdio: input_required from a lane call passes the SDK seam', () => {
  it('an upstream sampling request with tools, to a client that declared sampling without tools, is refused with -32021 as through the SDK Server', async () => {
    const sdk = await gw.request(call('tools-sdk', 'rude__asktools', envelope, true));
    const lane = await gw.request(call('tools-lane', 'rude__asktools', envelope, false));
    expect(sdk.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: { tools: {} } } } });
    expect(lane.error).toEqual(sdk.error);
  });

  it('one the client can answer is an input_required round, as before', async () => {
    const lane = await gw.request(call('ask-lane', 'rude__ask', envelope, false));
    expect(lane.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'sampling-1': { method: 'sampling/createMessage' } } });
  });
});

describe('a connection that opened with server/discover is pinned to the modern era by its first request, lane call or not', () => {
  it.each([
    ['through the SDK Server', true],
    ['in the lane shape', false],
  ])('a modern call %s, then a legacy initialize: the initialize is refused and modern calls go on', async (_label, sdk) => {
    const probe = startRawStdio(config);
    try {
      await probe.discover(envelope);
      expect((await probe.request(call('first', 'rude__args', envelope, sdk))).result).toBeDefined();
      const init = await probe.request({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'switcher', version: '1' } } });
      expect(init.error).toBeDefined();
      expect((await probe.request(call('after', 'rude__args', envelope, false))).result).toMatchObject({ resultType: 'complete' });
    } finally {
      await probe.close();
    }
  });
});

describe('a modern client over stdio, a 2025-era upstream (direct calls)', () => {
  it('a result carrying resultType "input_required" reaches the client as a complete result, as through the SDK Client (which drops the key)', async () => {
    const answer = await gw.request(call('typed', 'rude__typed', envelope, false));
    expect(answer.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'a 2025 result after all' }], requestState: 'forged' });
  });
});

describe('a legacy client over stdio: lane calls end as SDK-path calls', () => {
  let legacy: RawStdio;
  beforeAll(async () => {
    legacy = startRawStdio(config);
    await legacy.initialize();
  });
  afterAll(async () => {
    await legacy.close();
  });

  it('arguments with an own "__proto__" key reach the upstream as through the SDK (its schema parse drops the key; the lane forwarded it)', async () => {
    const line = (id: string, meta: string): string => `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"rude__args","arguments":{"__proto__":{"isAdmin":true},"a":1}${meta}}}`;
    const answered = async (id: string, meta: string): Promise<Message> => {
      const answer = new Promise<Message>((resolve, reject) => {
        const poll = (tries: number): void => {
          const found = legacy.received.find((m) => m.id === id);
          if (found) resolve(found);
          else if (tries > 200) reject(new Error(`no answer to ${id}`));
          else setTimeout(() => poll(tries + 1), 25);
        };
        poll(0);
      });
      legacy.write(line(id, meta));
      return answer;
    };
    const sdk = await answered('proto-sdk', ',"_meta":{"x-path":"sdk"}');
    const lane = await answered('proto-lane', '');
    expect(sdk.result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    expect(lane.result).toEqual(sdk.result);
  });

  it('a cancellation ends a lane call as it ends an SDK-path one: no reason gives the SDK abort reason, a reason that is not a string cancels nothing', async () => {
    const cancels = async (): Promise<{ requestId: number; reason: string }[]> => {
      const answer = await legacy.request({ jsonrpc: '2.0', id: `list-${Math.random()}`, method: 'tools/call', params: { name: 'rude__cancelled', arguments: {} } });
      // Calls left running (a cancellation that cancels nothing) time out, and are cancelled, on their own: not counted.
      return (answer.result as { structuredContent: { cancelled: { requestId: number; reason: string }[] } }).structuredContent.cancelled.filter((c) => !c.reason.startsWith('SdkError'));
    };
    /** Starts a call to rude__late (through the SDK Server when `sdk`), cancels it with `extra`, and gives the reason the upstream got, if any. */
    const cancelled = async (id: string, sdk: boolean, extra: Record<string, unknown>): Promise<string | undefined> => {
      const before = (await cancels()).length;
      legacy.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'rude__late', arguments: {}, ...(sdk ? { _meta: { 'x-path': 'sdk' } } : {}) } }));
      // The call is running upstream once a later call has been answered (calls to one upstream are written in order).
      await cancels();
      legacy.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, ...extra } }));
      // A cancellation the gateway acts on is written upstream before the next call.
      await cancels();
      const after = await cancels();
      return after.length > before ? after.at(-1)!.reason : undefined;
    };
    const noReason = await cancelled('bare-sdk', true, {});
    expect(noReason).toBe('AbortError: This operation was aborted');
    expect(await cancelled('bare-lane', false, {})).toBe(noReason);
    expect(await cancelled('number-sdk', true, { reason: 5 })).toBeUndefined();
    expect(await cancelled('number-lane', false, { reason: 5 })).toBeUndefined();
    expect(legacy.received.filter((m) => typeof m.id === 'string' && /^(bare|number)-/.test(m.id))).toEqual([]);
  });

  it.each([
    ['id 1e21', '1e21', '{}'],
    ['id 2^53 + 1', '9007199254740993', '{}'],
    ['progress token 1e300', '"big-token"', '{"progressToken":1e300}'],
  ])('a tools/call with %s (an integer, but not one the SDK schema takes) is refused with its id, as with one more _meta key (it got id null)', async (_label, id, meta) => {
    const line = (extra: string): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"rude__args","arguments":{},"_meta":${meta.replace(/}$/, extra)}}}`;
    const sdk = await legacy.reply(line(`${meta === '{}' ? '' : ','}"x-path":"sdk"}`));
    const plain = await legacy.reply(line('}'));
    expect(sdk).toMatchObject({ id: JSON.parse(id) as unknown, error: { code: -32600 } });
    expect(plain).toEqual(sdk);
  });

  it('two calls under one id, then its cancellation: only the later call is cancelled, as through the SDK Server alone', async () => {
    const cancels = async (): Promise<number> => {
      const answer = await legacy.request({ jsonrpc: '2.0', id: `count-${Math.random()}`, method: 'tools/call', params: { name: 'rude__cancelled', arguments: {} } });
      // Cancellations for this test's reason only: calls left running elsewhere time out (and are cancelled) on their own.
      return (answer.result as { structuredContent: { cancelled: { reason: string }[] } }).structuredContent.cancelled.filter((c) => c.reason === 'stop').length;
    };
    const cancelledBy = async (id: string, sdk: boolean): Promise<number> => {
      const before = await cancels();
      const late = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'rude__late', arguments: {}, ...(sdk ? { _meta: { 'x-path': 'sdk' } } : {}) } });
      legacy.write(late);
      legacy.write(late);
      await cancels();
      legacy.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'stop' } }));
      await cancels();
      return (await cancels()) - before;
    };
    expect(await cancelledBy('dup-sdk', true)).toBe(1);
    expect(await cancelledBy('dup-lane', false)).toBe(1);
  });
});

describe.each(['legacy', 'modern'] as const)('a %s client over stdio: a cancellation ends lane calls as the SDK ends its own', (era) => {
  let client: RawStdio;
  beforeAll(async () => {
    client = startRawStdio(config);
    if (era === 'legacy') await client.initialize();
    else await client.discover(envelope);
  });
  afterAll(async () => {
    await client.close();
  });

  /** A tools/call of `name`; `sdk` adds a `_meta` key the lane does not take, so it goes through the SDK Server. */
  const request = (id: string, name: string, sdk: boolean): Message => {
    const meta = era === 'modern' ? { ...envelope, ...(sdk ? { progressToken: `${id}-token` } : {}) } : sdk ? { 'x-path': 'sdk' } : undefined;
    return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) } };
  };
  let counted = 0;
  /** The reasons of the cancellations rude.mjs received for `id`. */
  const reasonsFor = async (id: string): Promise<string[]> => {
    const answer = await client.request(request(`count-${(counted += 1)}`, 'rude__cancelled', false));
    const all = (answer.result as { structuredContent: { cancelled: { requestId: number; reason: string }[] } }).structuredContent.cancelled;
    return all.filter((c) => c.reason.startsWith(`${id}:`)).map((c) => c.reason);
  };
  /** Starts rude__late under `id`, sends `cancel` for it, and gives the reasons the upstream got for it. */
  const cancelWith = async (id: string, sdk: boolean, cancel: (params: Record<string, unknown>) => Record<string, unknown>): Promise<string[]> => {
    client.write(JSON.stringify(request(id, 'rude__late', sdk)));
    // Running upstream once a later call is answered (calls to one upstream are written in order).
    await reasonsFor(id);
    client.write(JSON.stringify(cancel({ requestId: id, reason: `${id}: stop` })));
    // A cancellation acted on is written upstream before the next call.
    await reasonsFor(id);
    return reasonsFor(id);
  };

  it.each([
    ['a lane call, then an SDK-path call', false, 'sdk', 1],
    ['an SDK-path call, then a lane call', true, 'lane', 1],
    ['a lane call, then tools/list (answered before the cancellation)', false, 'tools/list', 0],
  ] as const)('%s under one id, then its cancellation: only the later request is cancelled, as by the SDK alone (the lane cancelled the lane call too)', async (label, firstSdk, second, expected) => {
    const id = `${era}-dup-${label.replace(/\W+/g, '-')}`;
    client.write(JSON.stringify(request(id, 'rude__late', firstSdk)));
    await reasonsFor(id);
    const later = second === 'tools/list' ? { jsonrpc: '2.0', id, method: 'tools/list', params: era === 'modern' ? { _meta: envelope } : {} } : request(id, 'rude__late', second === 'sdk');
    client.write(JSON.stringify(later));
    await reasonsFor(id);
    client.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: `${id}: stop` } }));
    await reasonsFor(id);
    expect(await reasonsFor(id)).toHaveLength(expected);
  });

  it('an SDK-path call and a lane call under one id in one write, then its cancellation: the later one is cancelled, whichever path each took (the SDK could enter the earlier one after the lane call and take the id over)', async () => {
    // One of the two hangs on another upstream, so whether rude.mjs is told of the cancellation says which call it ended.
    const combos = [
      [true, 'rude__late', 'odd__silent'],
      [false, 'odd__silent', 'rude__late'],
      [true, 'odd__silent', 'rude__late'],
      [false, 'rude__late', 'odd__silent'],
    ] as const;
    const ended: string[] = [];
    for (const [firstSdk, earlier, later] of combos) {
      const id = `${era}-chunk-${String(firstSdk)}-${earlier}`;
      client.write(`${JSON.stringify(request(id, earlier, firstSdk))}\n${JSON.stringify(request(id, later, !firstSdk))}`);
      await reasonsFor(id);
      client.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: `${id}: stop` } }));
      await reasonsFor(id);
      ended.push((await reasonsFor(id)).length === 1 ? 'rude__late' : 'odd__silent');
    }
    expect(ended).toEqual(combos.map(([, , later]) => later));
  });

  it.each([
    ['no "jsonrpc"', (params: Record<string, unknown>) => ({ method: 'notifications/cancelled', params })],
    ['"jsonrpc": "1.0"', (params: Record<string, unknown>) => ({ jsonrpc: '1.0', method: 'notifications/cancelled', params })],
    ['an id (a request, not a notification)', (params: Record<string, unknown>) => ({ jsonrpc: '2.0', id: `req-${String(params.requestId)}`, method: 'notifications/cancelled', params })],
    ['an extra top-level key', (params: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params, extra: true })],
  ])('with %s (the lane aborted the call and told the upstream)', async (label, cancel) => {
    const key = label.replace(/\W+/g, '-');
    expect(await cancelWith(`${era}-${key}-sdk`, true, cancel)).toEqual([]);
    expect(await cancelWith(`${era}-${key}-lane`, false, cancel)).toEqual([]);
    // The same cancellation well formed ends the call both ways: the calls above were cancellable.
    const valid = (params: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
    expect(await cancelWith(`${era}-${key}-sdk-valid`, true, valid)).toEqual([`${era}-${key}-sdk-valid: stop`]);
    expect(await cancelWith(`${era}-${key}-lane-valid`, false, valid)).toEqual([`${era}-${key}-lane-valid: stop`]);
  });
});
