/**
 * A Streamable HTTP client that sends calls and reads none of their answers cannot grow the gateway
 * without bound: past MAX_PENDING_OUTPUT_BYTES unread in its session's open responses, its answers
 * become the same short error the stdio front gives (docs/robustness.md). A raw client pipelines 20
 * calls answering 8 MiB each on one connection and reads nothing (this took the process to 348 MB
 * until the 60 s stall timeout); once every answer has reached the gateway from its upstream, the
 * client reads: every call is answered, far less than 160 MiB came, and the next call is served whole.
 * Both eras: a legacy session's calls, and 2026-07-28 calls (no session: bounded per connection).
 */
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_PENDING_OUTPUT_BYTES } from '../../src/gateway/fronts/stdio.js';
import { fixture, startHttp, waitFor, writeConfig, type HttpGateway } from '../helpers/gateway.js';

const CALLS = 20;
const MIB_PER_ANSWER = 8;
const REFUSAL = 'Not sent: over 40 MiB of earlier output wait unread for this client; read it, then retry';

let gateway: HttpGateway;
beforeAll(async () => {
  gateway = await startHttp(writeConfig({ mcpServers: { big: { command: 'node', args: [fixture('bigResult.mjs')], exposure: 'direct' } } }));
});
afterAll(async () => {
  await gateway?.stop();
});

/** Bytes process `pid` has read through syscalls (Linux /proc/<pid>/io rchar). */
const bytesRead = (pid: number): number => Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

/** The headers and body of a call of `era` (a legacy one in `session`). */
function request(era: 'legacy' | 'modern', session: string, id: number, mb: number): { headers: Record<string, string>; body: string } {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const params = { name: 'big__big', arguments: { mb } };
  if (era === 'legacy') return { headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) };
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'deaf', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  return {
    headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'big__big' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta } }),
  };
}

/** A legacy session's id, opened with initialize and initialized. */
async function legacySession(url: URL): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'deaf', version: '1' } } }),
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await (await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: initialized })).text();
  return session;
}

it.each(['legacy', 'modern'] as const)('%s: answers a pipelining client that reads nothing with errors past 40 MiB unread, then serves it whole once it reads', async (era) => {
  const url = new URL(gateway.url);
  const session = era === 'legacy' ? await legacySession(url) : '';
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.pause();
  const post = (id: number, mb: number): void => {
    const { headers, body } = request(era, session, id, mb);
    const lines = Object.entries({ ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) }).map(([name, value]) => `${name}: ${value}`);
    socket.write(`POST ${url.pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  };
  const pid = gateway.child.pid!;
  const before = bytesRead(pid);
  for (let id = 1; id <= CALLS; id += 1) post(id, MIB_PER_ANSWER);

  // Every answer has reached the gateway from its upstream while the client read nothing.
  expect(await waitFor(() => bytesRead(pid) - before >= CALLS * MIB_PER_ANSWER * 1024 * 1024, 120_000)).toBe(true);

  let received = '';
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    received += chunk.toString('latin1');
  });
  socket.resume();
  const answered = (): number => (received.match(/HTTP\/1\.1 200/g) ?? []).length;
  // Answers come in order; the last is a short error.
  expect(await waitFor(() => answered() === CALLS && received.includes(`"id":${CALLS}`), 60_000)).toBe(true);
  expect(bytes).toBeLessThan(MAX_PENDING_OUTPUT_BYTES + 3 * (MIB_PER_ANSWER + 1) * 1024 * 1024);
  const refused = received.split(REFUSAL).length - 1;
  expect(refused).toBeGreaterThan(0);
  expect(refused).toBeLessThan(CALLS);
  if (era === 'legacy') expect(gateway.stderr.join('\n')).toMatch(/the client is not reading: over 40 MiB wait for it/);

  // Once it has read, it is served whole again.
  received = '';
  post(99, 1);
  expect(await waitFor(() => received.includes('"id":99') && received.includes('x'.repeat(1024 * 1024)), 30_000)).toBe(true);
  expect(received).not.toContain(REFUSAL);
  socket.destroy();
}, 240_000);
