/**
 * serveHttp in process, with real GatewaySessions over an empty shelf (no upstreams): idle sessions
 * are closed after `idleMs` and busy ones are not, a refused initialize leaves no session behind,
 * and close() ends every session. Loopback sockets only. Source: issue #5 item 5; DESIGN §11; MCP
 * spec, Transports › Streamable HTTP (session management).
 */
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { applyDefaults } from '../../src/config/defaults.js';
import { serveHttp, type HttpFront } from '../../src/gateway/http.js';
import { GatewaySession } from '../../src/gateway/session.js';
import { buildShelf } from '../../src/shelf.js';
import { nullTrace } from '../../src/trace/jsonl.js';
import { silentLogger } from '../../src/trace/log.js';
import { initializeRequest, openRawHttp, post } from './wire.js';

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
    },
    settings: { discoveryEnabled: true, defaultLimit: 5, maxLimit: 20, captureToolIo: false, callTool: 'auto' },
  });
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('serveHttp sessions (DESIGN §11)', () => {
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
    const { url } = await start(200);
    const session = await openRawHttp(url);
    expect((await session.request(ping(1))).result).toEqual({});
    await sleep(700);
    expect(closed).toEqual([session.id]);
    expect((await session.post(ping(2))).status).toBe(404);
  });

  it('a session with requests more often than idleMs stays open', async () => {
    const { url } = await start(400);
    const session = await openRawHttp(url);
    for (let i = 0; i < 12; i += 1) {
      expect((await session.request(ping(i))).result).toEqual({});
      await sleep(100);
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

  it('refuses a new session with 503 once maxSessions are open, and accepts again after one ends (breaker M8)', async () => {
    const { url } = await start(undefined, 2);
    const a = await openRawHttp(url);
    await openRawHttp(url);
    await expect(openRawHttp(url)).rejects.toThrow(/503|Too many sessions/);
    expect(await a.remove()).toBe(200);
    await expect(openRawHttp(url)).resolves.toBeDefined();
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
