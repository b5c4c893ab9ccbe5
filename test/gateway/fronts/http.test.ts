/**
 * serveHttp in process, with real GatewaySessions over an empty shelf (no upstreams): idle sessions
 * are closed after `idleMs` and busy ones are not, a refused initialize leaves no session behind,
 * and close() ends every session; a slow client is closed at the header timeout and one address
 * holds at most its connection cap. Loopback sockets only. Source: docs/http.md; docs/robustness.md; MCP
 * spec, Transports › Streamable HTTP (session management).
 */
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { applyDefaults } from '../../../src/config/defaults.js';
import { serveHttp, type HttpFront } from '../../../src/gateway/fronts/http.js';
import { GatewaySession } from '../../../src/gateway/legacy/session.js';
import { UpstreamSubscriptions } from '../../../src/gateway/subscriptions.js';
import { buildShelf } from '../../../src/shelf/build.js';
import { nullTrace } from '../../../src/trace/jsonl.js';
import { silentLogger } from '../../../src/trace/log.js';
import { initializeRequest, openRawHttp, post, PROTOCOL_VERSION } from '../wire.js';

const config = applyDefaults({ mcpServers: {} }, tmpdir());
const shelf = buildShelf(config, new Map(), undefined);
const noUpstream = { code: -32000, message: 'no upstreams in this test' };

function makeSession(id: string): GatewaySession {
  return new GatewaySession({
    id,
    version: '0.0.0-test',
    shelf: () => shelf,
    caller: { callTool: async () => ({ kind: 'unavailable', reason: noUpstream.message }) },
    admit: (_entry, args) => ({ ok: true, args }),
    trace: nullTrace,
    logger: silentLogger,
    measure: (value) => ({ bytes: JSON.stringify(value).length, tokens: 0 }),
    passthrough: {
      directory: { capabilities: () => [], request: async () => ({ ok: false, error: noUpstream }) },
      routes: { resources: new Map(), prompts: new Map(), templates: [] },
      naming: config.naming,
      prefixed: () => true,
      upstreamSubscriptions: new UpstreamSubscriptions(async () => undefined),
    },
    settings: { discoveryEnabled: true, defaultLimit: 5, maxLimit: 20, captureToolIo: false, callTool: 'auto' },
  });
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** Opens the GET stream of session `id` and resolves once its headers arrived; abort() ends it. */
async function openStream(url: string, id: string): Promise<AbortController> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION }, signal: controller.signal });
  expect(response.status).toBe(200);
  return controller;
}

/** Retries `check` every 50 ms for up to 30 s; true once it held. */
async function waitUntil(check: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) if (await check()) return true;
  return false;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('serveHttp sessions', () => {
  let front: HttpFront | undefined;
  const closed: string[] = [];
  const start = async (idleMs?: number, maxSessions?: number): Promise<HttpFront> => {
    front = await serveHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, createSession: makeSession, onSessionClosed: (id) => closed.push(id), ...(idleMs ? { idleMs } : {}), ...(maxSessions ? { maxSessions } : {}) });
    return front;
  };
  afterEach(async () => {
    await front?.close();
    front = undefined;
    closed.length = 0;
  });

  it('a session idle longer than idleMs is closed: told once, and its id then gets 404', async () => {
    // idleMs wide enough for the ping to follow the initialize on a loaded machine.
    const { url } = await start(2000);
    const session = await openRawHttp(url);
    expect((await session.request(ping(1))).result).toEqual({});
    // However long a loaded machine takes to sweep: closed once, never twice.
    expect(await waitUntil(async () => closed.length > 0)).toBe(true);
    await sleep(700);
    expect(closed).toEqual([session.id]);
    expect((await session.post(ping(2))).status).toBe(404);
  });

  it('a session whose client holds its GET stream open is not idle, however long it sends nothing', async () => {
    // idleMs wide enough for the GET to follow the initialize on a loaded machine; the wait well past it.
    const { url } = await start(2000);
    const session = await openRawHttp(url);
    // What an SDK client does after initialize: a GET stream for list_changed, held while it waits for the user.
    const stream = await openStream(url, session.id);
    await sleep(3500);
    // Before: closed after idleMs, so the client's next call got 404 (the SDK client does not re-initialize).
    expect(closed).toEqual([]);
    expect((await session.request(ping(1))).result).toEqual({});
    stream.abort();
    // Idle time counts from the end of its last exchange.
    expect(await waitUntil(async () => closed.length === 1)).toBe(true);
  });

  it('a session with requests more often than idleMs stays open', async () => {
    // Gaps of about a tenth of idleMs, over longer than idleMs in all: only a stall of seconds could fail it.
    const { url } = await start(4000);
    const session = await openRawHttp(url);
    for (let i = 0; i < 12; i += 1) {
      expect((await session.request(ping(i))).result).toEqual({});
      await sleep(400);
    }
    expect(closed).toEqual([]);
  });

  it('a refused initialize (batched with another message) leaves no session behind', async () => {
    const { url } = await start();
    const answer = await post(url, [initializeRequest(1), ping(2)]);
    expect(answer.status).toBe(400);
    expect(answer.messages[0]?.error?.code).toBe(-32600);
    expect(closed).toHaveLength(1);
  });

  it('close() ends every open session', async () => {
    const { url } = await start();
    const ids = [(await openRawHttp(url)).id, (await openRawHttp(url)).id];
    await front?.close();
    front = undefined;
    expect([...closed].sort()).toEqual([...ids].sort());
  });

  it('at maxSessions, closes the least recently used idle session for a new one; its id then gets 404', async () => {
    const { url } = await start(undefined, 2);
    const a = await openRawHttp(url);
    const b = await openRawHttp(url);
    expect((await b.request(ping(1))).result).toEqual({});
    const c = await openRawHttp(url);
    expect(closed).toEqual([a.id]);
    expect((await a.post(ping(2))).status).toBe(404);
    expect((await b.request(ping(3))).result).toEqual({});
    expect((await c.request(ping(4))).result).toEqual({});
  });

  it('refuses a new session with 503 only while every session has a stream open, and accepts again once one is idle', async () => {
    const { url } = await start(undefined, 2);
    const streams = await Promise.all([openRawHttp(url), openRawHttp(url)].map(async (opening) => openStream(url, (await opening).id)));
    await expect(openRawHttp(url)).rejects.toThrow(/503|Too many sessions/);
    expect(closed).toEqual([]);
    streams[1]?.abort();
    expect(await waitUntil(async () => (await post(url, initializeRequest())).status === 200)).toBe(true);
    expect(closed).toHaveLength(1);
    streams[0]?.abort();
  });

  it('a GET stream the client drops is released: the next GET is served, not refused as a second stream (node:http ⇄ Web bridge)', async () => {
    const { url } = await start();
    const session = await openRawHttp(url);
    const headers = { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-06-18' };
    for (let i = 0; i < 3; i += 1) {
      const dropped = new AbortController();
      const stream = await fetch(url, { headers, signal: dropped.signal });
      expect(stream.status).toBe(200);
      dropped.abort();
      await sleep(100);
    }
    expect((await session.request(ping(9))).result).toEqual({});
  });
});

/** A raw TCP connection to `url`'s port, optionally from another loopback address (another peer). */
function rawSocket(url: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything `socket` receives until the server closes it. */
function untilClosed(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

describe('serveHttp bounds slow clients and connections per peer', () => {
  let front: HttpFront | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await front?.close();
    front = undefined;
  });
  const start = async (options: { headersTimeoutMs?: number; maxConnectionsPerPeer?: number }): Promise<string> => {
    front = await serveHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, createSession: makeSession, onSessionClosed: () => undefined, ...options });
    return front.url;
  };

  it('closes a client that sends its headers byte by byte (slowloris) once the header timeout passes, while others are served', async () => {
    const url = await start({ headersTimeoutMs: 500 });
    const slow = await rawSocket(url);
    sockets.push(slow);
    const ended = untilClosed(slow);
    const { host } = new URL(url);
    const head = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nX-Padding: ${'a'.repeat(10_000)}`;
    let sent = 0;
    const drip = setInterval(() => {
      if (!slow.destroyed && sent < head.length) slow.write(head[sent++]!);
    }, 20);
    try {
      // However slow the machine: the server ends it (408) long before the 10,000 bytes are sent.
      const text = await ended;
      expect(text).toMatch(/^HTTP\/1\.1 408/);
      expect(sent).toBeLessThan(head.length);
    } finally {
      clearInterval(drip);
    }
    const session = await openRawHttp(url);
    expect((await session.request(ping(1))).result).toEqual({});
  });

  it('refuses the N+1th connection from one address with 503, serves other addresses, and takes it again once one closes', async () => {
    const url = await start({ maxConnectionsPerPeer: 3 });
    for (let i = 0; i < 3; i += 1) sockets.push(await rawSocket(url));
    const extra = await rawSocket(url);
    sockets.push(extra);
    const refused = await untilClosed(extra);
    expect(refused).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(refused).toContain('Too many connections from this address');
    // Another peer (a second loopback address) is served meanwhile.
    const other = await rawSocket(url, '127.0.0.2');
    sockets.push(other);
    const answered = untilClosed(other);
    other.end(`POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: ${JSON.stringify(initializeRequest()).length}\r\n\r\n${JSON.stringify(initializeRequest())}`);
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);
    // One of the first three closes: the address gets a connection again.
    const first = sockets[0]!;
    const gone = new Promise((r) => first.once('close', r));
    first.destroy();
    await gone;
    expect(await waitUntil(async () => {
      const again = await rawSocket(url);
      sockets.push(again);
      const text = untilClosed(again);
      again.end(`POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: ${JSON.stringify(ping(1)).length}\r\n\r\n${JSON.stringify(ping(1))}`);
      return !(await text).includes(' 503 ');
    })).toBe(true);
  });
});
