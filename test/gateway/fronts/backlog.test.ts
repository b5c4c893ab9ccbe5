/**
 * What waits unread for HTTP clients (gateway/fronts/backlog.ts): a client's own bounds (notifications
 * dropped, answers refused), its address's bound over all its clients, the warnings said once when
 * each starts and ends, and the SSE filter that applies them to the SDK's message events.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { expect, it } from 'vitest';
import { PeerBacklogs, UnreadBacklog, unreadFilter, type UnreadLimits } from '../../../src/gateway/fronts/backlog.js';

const LIMITS: UnreadLimits = { notifications: 20, answers: 40, peer: 100, smallAnswer: 10 };

/** A response that holds `writableLength` bytes unread (what node:http reports) until closed. */
function response(writableLength = 0): ServerResponse & { writableLength: number } {
  return Object.assign(new EventEmitter(), { writableLength }) as unknown as ServerResponse & { writableLength: number };
}

function client(peers: PeerBacklogs, peer = '127.0.0.1'): { backlog: UnreadBacklog; warnings: string[] } {
  const warnings: string[] = [];
  return { backlog: new UnreadBacklog(LIMITS, peer, peers, (reason) => warnings.push(reason)), warnings };
}

const event = (message: object, id = ''): Uint8Array => new TextEncoder().encode(`event: message\n${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`);
const text = (chunk: Uint8Array | undefined): string | undefined => (chunk ? new TextDecoder().decode(chunk) : undefined);

it('drops notifications past its notification bound and refuses answers past its answer bound, warning once each way', () => {
  const peers = new PeerBacklogs();
  const { backlog, warnings } = client(peers);
  const res = response(21);
  backlog.track(res);
  expect(backlog.notification().kind).toBe('drop');
  expect(backlog.notification().kind).toBe('drop');
  expect(backlog.answer(() => 1).kind).toBe('send');
  res.writableLength = 41;
  expect(backlog.answer(() => 1)).toEqual({ kind: 'refuse', reason: 'Not sent: over 0 MiB of earlier output wait unread for this client; read it, then retry' });
  expect(warnings).toHaveLength(2);
  res.writableLength = 0;
  expect(backlog.notification().kind).toBe('send');
  expect(backlog.answer(() => 1).kind).toBe('send');
  expect(warnings.slice(2)).toEqual(['the client reads again; 2 notification(s) were dropped while it did not', 'the client reads again; 1 answer(s) to it were replaced by an error while it did not']);
  expect(backlog.clear()).toBe(true);
});

it('past the address bound, refuses a client with anything unread and large answers, but answers a reading client small ones', () => {
  const peers = new PeerBacklogs();
  const deaf = Array.from({ length: 4 }, () => client(peers));
  for (const { backlog } of deaf) backlog.track(response(30));
  const reader = client(peers);
  const other = client(peers, '10.0.0.2');
  expect(deaf[0]!.backlog.answer(() => 1).kind).toBe('refuse');
  expect(deaf[0]!.backlog.notification().kind).toBe('drop');
  expect(reader.backlog.answer(() => 10).kind).toBe('send');
  expect(reader.backlog.notification().kind).toBe('send');
  expect(reader.backlog.answer(() => 11)).toEqual({ kind: 'refuse', reason: 'Not sent: over 0 MiB of earlier output wait unread for the clients at this address; read it, then retry' });
  expect(other.backlog.clear()).toBe(true);
  expect(other.backlog.answer(() => 1000).kind).toBe('send');
  expect(deaf[0]!.warnings[0]).toMatch(/^the clients at 127\.0\.0\.1 are not reading/);
});

it('stops counting a response once it closes', () => {
  const peers = new PeerBacklogs();
  const { backlog } = client(peers);
  const res = response(500);
  backlog.track(res);
  expect(peers.bytes('127.0.0.1')).toBe(500);
  res.emit('close');
  expect(backlog.bytes()).toBe(0);
  expect(peers.bytes('127.0.0.1')).toBe(0);
});

it('filters SSE message events: passes all while clear, drops notifications and replaces answers under their id while not', () => {
  const peers = new PeerBacklogs();
  const { backlog } = client(peers);
  const res = response(0);
  backlog.track(res);
  const filter = unreadFilter(backlog);
  const progress = event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
  const answer = event({ jsonrpc: '2.0', id: 7, result: { content: [] } }, 'e1');
  expect(filter(progress)).toBe(progress);
  res.writableLength = 50;
  expect(filter(progress)).toBeUndefined();
  expect(JSON.parse(text(filter(answer))!.split('data: ')[1]!)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Not sent: over 0 MiB of earlier output wait unread for this client; read it, then retry' } });
  expect(text(filter(answer))).toMatch(/^event: message\nid: e1\ndata: /);
  const keepAlive = new TextEncoder().encode(': keep-alive\n\n');
  expect(filter(keepAlive)).toBe(keepAlive);
  const request = event({ jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: {} });
  expect(filter(request)).toBe(request);
});
