/**
 * Bad client input through the built CLI, over stdio and Streamable HTTP, in front of a real
 * upstream (server-everything): each kind of mistake gets the answer the spec gives it (a JSON-RPC
 * error or an isError result), then a seeded fuzz run of a few thousand hostile messages per
 * transport, after which the gateway still lists and calls tools and leaves no process behind.
 * Source: docs/robustness.md; JSON-RPC 2.0 §5.1; MCP spec, Basic › Messages, Server › Tools (errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSONRPCRequestSchema } from '@modelcontextprotocol/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { alive, descendants, serverEntry, textOf, waitFor, writeConfig } from '../helpers/gateway.js';
import { fuzzLines } from '../gateway/malformed.js';
import { readableId } from '../../src/gateway/fronts/invalidMessage.js';
import { openRawHttp, post, spawnHttp, startRawStdio, type Message, type RawHttpSession, type RawStdio, type SpawnedHttp } from '../gateway/wire.js';

const MiB = 1024 * 1024;
/**
 * Messages per transport, all of them sent every run: the work is counted, never cut short by a
 * wall-clock budget (2,000 of 2,500 within 22 s failed with 467 on a loaded 2-core machine).
 * About 20 s each on an idle machine; the per-test limit leaves a loaded one room.
 */
const FUZZ_COUNT = 2500;
/** Per-test limit in ms: generous, so load slows the run instead of failing it. */
const FUZZ_TEST_TIMEOUT_MS = 300_000;
const SEED = 0x5eed_0005;

/** Every 20 POSTs, three go without the session id, or with an Accept or Content-Type the spec forbids. */
const HEADER_VARIANTS: Readonly<Record<number, 'no session' | Record<string, string>>> = {
  7: 'no session',
  13: { accept: 'application/json' },
  17: { 'content-type': 'text/plain' },
};

const config = (): string => writeConfig({ mcpServers: { everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] } } });

/** A spec-mandated answer: a JSON-RPC error (code, id) or a tool result with isError. */
type Expected = { readonly code: number; readonly id: string | number | null; readonly status: number } | { readonly isError: true; readonly id: string };

interface Case {
  readonly name: string;
  readonly line: string;
  readonly expected: Expected;
}

const call = (id: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });

/** Mistakes with one right answer each (JSON-RPC 2.0 §5.1; MCP tools: unknown tool and bad arguments are isError results). */
const CASES: readonly Case[] = [
  { name: 'text that is not JSON → -32700', line: '{"jsonrpc":"2.0","id":', expected: { code: -32700, id: null, status: 400 } },
  { name: 'an empty batch → -32600', line: '[]', expected: { code: -32600, id: null, status: 400 } },
  { name: 'a bare number → -32600', line: '42', expected: { code: -32600, id: null, status: 400 } },
  { name: 'no "jsonrpc" member → -32600 with its id', line: '{"id":"c1","method":"ping"}', expected: { code: -32600, id: 'c1', status: 400 } },
  { name: 'an object as id → -32600', line: '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', expected: { code: -32600, id: null, status: 400 } },
  { name: 'an unknown method → -32601', line: '{"jsonrpc":"2.0","id":"c2","method":"no/such/method"}', expected: { code: -32601, id: 'c2', status: 200 } },
  { name: 'an unknown tools/list cursor → -32602', line: '{"jsonrpc":"2.0","id":"c3","method":"tools/list","params":{"cursor":"nope"}}', expected: { code: -32602, id: 'c3', status: 200 } },
  { name: 'an unknown tool → isError result', line: call('c4', { name: 'no_such_tool', arguments: {} }), expected: { isError: true, id: 'c4' } },
  { name: 'arguments of the wrong type for the tool → isError result', line: call('c5', { name: 'call_tool', arguments: { name: 'everything__get-sum', arguments: { a: 'two', b: [] } } }), expected: { isError: true, id: 'c5' } },
];

/**
 * Invalid requests whose id can be read: answered -32600 with that id, never id null (JSON-RPC 2.0 §5;
 * whose exact input is the first). A malformed response is not answered with its id.
 */
const READABLE_ID_CASES: readonly Case[] = [
  { name: 'params "x"', line: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}', expected: { code: -32600, id: 2, status: 400 } },
  { name: 'params "x" without "jsonrpc" (the issue text)', line: '{"id":2,"method":"tools/call","params":"x"}', expected: { code: -32600, id: 2, status: 400 } },
  { name: 'params an array', line: '{"jsonrpc":"2.0","id":"r1","method":"tools/list","params":[1,2]}', expected: { code: -32600, id: 'r1', status: 400 } },
  { name: 'method a number', line: '{"jsonrpc":"2.0","id":"r2","method":7}', expected: { code: -32600, id: 'r2', status: 400 } },
  { name: 'no method', line: '{"jsonrpc":"2.0","id":"r3"}', expected: { code: -32600, id: 'r3', status: 400 } },
  { name: '"jsonrpc": "1.0"', line: '{"jsonrpc":"1.0","id":"r4","method":"ping"}', expected: { code: -32600, id: 'r4', status: 400 } },
  { name: 'a fractional id', line: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', expected: { code: -32600, id: 1.5, status: 400 } },
  { name: 'a malformed response keeps id null', line: '{"jsonrpc":"2.0","id":"r5","result":"x"}', expected: { code: -32600, id: null, status: 400 } },
];

/** Request params of the wrong type: -32602 by the spec (JSON-RPC 2.0 §5.1, MCP Server › Tools › Error handling). */
const WRONG_PARAM_TYPES: readonly Case[] = [
  { name: 'tools/call with a number as name', line: call('p1', { name: 42 }), expected: { code: -32602, id: 'p1', status: 200 } },
  { name: 'tools/call with a string as arguments', line: call('p2', { name: 'call_tool', arguments: 'x' }), expected: { code: -32602, id: 'p2', status: 200 } },
  { name: 'tools/call without params', line: '{"jsonrpc":"2.0","id":"p3","method":"tools/call"}', expected: { code: -32602, id: 'p3', status: 200 } },
  { name: 'tools/list with a number as cursor', line: '{"jsonrpc":"2.0","id":"p4","method":"tools/list","params":{"cursor":5}}', expected: { code: -32602, id: 'p4', status: 200 } },
];

function checkAnswer(answer: Message | undefined, expected: Expected): void {
  expect(answer?.jsonrpc).toBe('2.0');
  expect(answer?.id ?? null).toBe(expected.id);
  if ('isError' in expected) expect(answer?.result?.isError).toBe(true);
  else expect(answer?.error?.code).toBe(expected.code);
}

/**
 * The ids of lines that are exactly one well-formed request other than initialize (among the lines
 * `eligible` picks), unique among every line sent that is answered with its own id: well-formed
 * requests and invalid ones whose id can be read (a mutated line can repeat
 * another's id, e.g. "fz-1796" cut to "fz-179").
 */
function expectedIds(lines: readonly string[], eligible: (index: number) => boolean = () => true): Set<string | number> {
  const counts = new Map<unknown, number>();
  const ids: (string | number)[] = [];
  lines.forEach((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    const parsed = JSONRPCRequestSchema.safeParse(value);
    const answeredId = parsed.success ? parsed.data.id : readableId(value);
    if (answeredId !== null) counts.set(answeredId, (counts.get(answeredId) ?? 0) + 1);
    if (parsed.success && parsed.data.method !== 'initialize' && eligible(index)) ids.push(parsed.data.id);
  });
  return new Set(ids.filter((id) => counts.get(id) === 1));
}

/** After the fuzz: the catalogue is listed and a real upstream tool answers. */
async function stillServes(request: (message: Message) => Promise<Message>): Promise<void> {
  const listed = await request({ jsonrpc: '2.0', id: 'after-list', method: 'tools/list' });
  const names = (listed.result?.tools as { name: string }[]).map((t) => t.name);
  expect(names.slice(0, 2)).toEqual(['tool_search', 'call_tool']);
  const echoed = await request({ jsonrpc: '2.0', id: 'after-call', method: 'tools/call', params: { name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message: 'still here' } } } });
  expect(textOf(echoed.result)).toBe('Echo: still here');
}

describe('bad client input over stdio', () => {
  let gateway: RawStdio;
  beforeAll(async () => {
    gateway = startRawStdio(config());
    await gateway.initialize();
  });
  afterAll(async () => {
    expect(await gateway.close()).toBe(0);
    expect(gateway.junk).toEqual([]);
  });

  for (const c of CASES) it(c.name, async () => checkAnswer(await gateway.reply(c.line), c.expected));

  for (const c of READABLE_ID_CASES) it(`invalid request, ${c.name} → -32600 with id ${JSON.stringify(c.expected.id)}`, async () => checkAnswer(await gateway.reply(c.line), c.expected));

  for (const c of WRONG_PARAM_TYPES) {
    it(`${c.name} gets an error response, not a crash`, async () => {
      const answer = await gateway.reply(c.line);
      expect(answer.id).toBe(c.expected.id);
      expect(answer.error?.code).toBeTypeOf('number');
    });
    it(`${c.name} → -32602`, async () => checkAnswer(await gateway.reply(c.line), c.expected));
  }

  it('a 3 MiB argument is forwarded and echoed whole', async () => {
    const message = 'z'.repeat(3 * MiB);
    const answer = await gateway.request({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message } } } });
    expect(textOf(answer.result)).toBe(`Echo: ${message}`);
  });

  it('a line over 10 MiB gets -32600 and the session goes on', async () => {
    const answer = await gateway.reply(call('huge', { name: 'call_tool', arguments: { message: 'h'.repeat(11 * MiB) } }), 20_000);
    expect(answer).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await gateway.request({ jsonrpc: '2.0', id: 'after-huge', method: 'ping' })).result).toEqual({});
  });
});

describe('bad client input over HTTP', () => {
  let gateway: SpawnedHttp;
  let session: RawHttpSession;
  beforeAll(async () => {
    gateway = await spawnHttp(config(), ['--http', '127.0.0.1:0']);
    session = await openRawHttp(gateway.url);
  });
  afterAll(async () => void (await gateway.stop()));

  for (const c of [...CASES, ...READABLE_ID_CASES]) {
    it(c.name, async () => {
      const answer = await session.post(c.line);
      expect(answer.status).toBe('status' in c.expected ? c.expected.status : 200);
      checkAnswer(answer.messages[0], c.expected);
    });
  }

  for (const c of WRONG_PARAM_TYPES) {
    it(`${c.name} gets an error response, not a crash`, async () => {
      const answer = await session.post(c.line);
      expect(answer.status).toBe(200);
      expect(answer.messages[0]?.error?.code).toBeTypeOf('number');
    });
    it(`${c.name} → -32602`, async () => checkAnswer((await session.post(c.line)).messages[0], c.expected));
  }
});

describe(`fuzz: ${FUZZ_COUNT} seeded hostile messages per transport`, () => {
  it('over stdio: every well-formed request answered once, stdout stays protocol, still serving, no process left', async () => {
    const gateway = startRawStdio(config());
    await gateway.initialize();
    const lines = [...fuzzLines(SEED, FUZZ_COUNT)];
    let sent = 0;
    while (sent < lines.length) {
      for (const line of lines.slice(sent, sent + 50)) gateway.write(line);
      await gateway.request({ jsonrpc: '2.0', id: `sync-${sent}`, method: 'ping' });
      sent += 50;
    }
    const wanted = expectedIds(lines);
    expect(wanted.size).toBeGreaterThan(FUZZ_COUNT / 5);
    expect(await waitFor(() => [...wanted].every((id) => gateway.received.some((m) => m.id === id)), 60_000)).toBe(true);
    for (const id of wanted) expect(gateway.received.filter((m) => m.id === id && ('result' in m || 'error' in m))).toHaveLength(1);
    expect(gateway.received.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(gateway.junk).toEqual([]);
    await stillServes((m) => gateway.request(m));
    const tree = descendants(gateway.pid);
    expect(await gateway.close()).toBe(0);
    expect(await waitFor(() => tree.every((pid) => !alive(pid)))).toBe(true);
  }, FUZZ_TEST_TIMEOUT_MS);

  it('over HTTP, some with wrong headers: every POST answered (never 5xx), well-formed requests once each, still serving, no process left', async () => {
    const gateway = await spawnHttp(config(), ['--http', '127.0.0.1:0']);
    const session = await openRawHttp(gateway.url);
    const lines = [...fuzzLines(SEED + 1, FUZZ_COUNT)];
    const statuses = new Map<number, number>();
    const answered = new Map<unknown, number>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < lines.length) {
        const variant = HEADER_VARIANTS[next % 20];
        const line = lines[next++] as string;
        const answer = variant === 'no session' ? await post(gateway.url, line) : await session.post(line, variant);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        for (const m of answer.messages) if ('result' in m || 'error' in m) answered.set(m.id, (answered.get(m.id) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const wanted = expectedIds(lines, (i) => HEADER_VARIANTS[i % 20] === undefined);
    expect(wanted.size).toBeGreaterThan(FUZZ_COUNT / 5);
    expect([...statuses.keys()].every((s) => [200, 202, 400, 406, 415].includes(s))).toBe(true);
    for (const id of wanted) expect(answered.get(id)).toBe(1);
    await stillServes((m) => session.request(m));
    const client = new Client({ name: 'after-fuzz', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'everything__get-sum', arguments: { a: 2, b: 40 } } }))).toContain('42');
    await client.close();
    const tree = descendants(gateway.child.pid as number);
    expect(await gateway.stop()).toBe(0);
    expect(await waitFor(() => tree.every((pid) => !alive(pid)))).toBe(true);
  }, FUZZ_TEST_TIMEOUT_MS);
});
