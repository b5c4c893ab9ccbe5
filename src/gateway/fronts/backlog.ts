/**
 * What waits unread for one HTTP client (a legacy session, or one connection's 2026-07-28 requests):
 * the bytes of its open responses that node:http holds because the client does not read them (a
 * response's own buffer, a pipelined response queued behind the one being written, and the socket's
 * buffer of the one being written). Response streams are copied into node:http as they come
 * (webBridge.ts), so nothing waits uncounted in front of it. Past the limits a notification to the
 * client is dropped and an answer replaced by a short error, as the stdio front does; a peer address's
 * clients together are bounded too. Source: docs/robustness.md, "Fault fixtures and limits".
 */
import type { ServerResponse } from 'node:http';
import { errorResponse, type ReadableId } from './invalidMessage.js';

/** The error an answer becomes while more than `limitBytes` wait unread for its client (the same words on stdio and HTTP). */
export function unreadRefusal(limitBytes: number): string {
  return `Not sent: over ${mib(limitBytes)} of earlier output wait unread for this client; read it, then retry`;
}

/** The error an answer becomes while more than `limitBytes` wait unread for the clients of its peer address together. */
export function peerUnreadRefusal(limitBytes: number): string {
  return `Not sent: over ${mib(limitBytes)} of earlier output wait unread for the clients at this address; read it, then retry`;
}

/** `bytes` in whole MiB, as the unread warnings and refusals say it (`40 MiB`). */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(0)} MiB`;
}

/** The bounds on what waits unread, in bytes (docs/robustness.md). */
export interface UnreadLimits {
  /** Past this much unread for a client, notifications to it (progress, log lines, list_changed) are dropped. */
  readonly notifications: number;
  /** Past this much unread for a client, answers to it become a short error. */
  readonly answers: number;
  /**
   * Past this much unread for all the clients of one peer address together, a client of that address
   * that has anything unread gets no notifications, and its answers become a short error unless it has
   * nothing unread and the answer is at most {@link UnreadLimits.smallAnswer}.
   */
  readonly peer: number;
  /** The largest answer still sent to a client with nothing unread while its address is over `peer`. */
  readonly smallAnswer: number;
}

/** What to do with one outbound message. */
export type UnreadVerdict = { readonly kind: 'send' } | { readonly kind: 'drop' } | { readonly kind: 'refuse'; readonly reason: string };

const SEND: UnreadVerdict = { kind: 'send' };
const DROP: UnreadVerdict = { kind: 'drop' };

/**
 * Bytes written to `responses` and not yet taken by the kernel: each response's `writableLength`
 * (its queued output, plus the socket's buffer for the one the socket is writing; a socket writes
 * one response at a time, so none is counted twice).
 */
function unreadBytes(responses: Iterable<ServerResponse>): number {
  let total = 0;
  for (const res of responses) total += res.writableLength;
  return total;
}

/** The open responses of every client, by peer address: what waits unread for each address. */
export class PeerBacklogs {
  private readonly open = new Map<string, Set<ServerResponse>>();

  /** Counts `res` under `peer` until it closes. */
  track(peer: string, res: ServerResponse): void {
    let set = this.open.get(peer);
    if (!set) this.open.set(peer, (set = new Set()));
    set.add(res);
    res.once('close', () => {
      set.delete(res);
      if (set.size === 0 && this.open.get(peer) === set) this.open.delete(peer);
    });
  }

  /** Bytes waiting unread in the open responses of `peer` ({@link unreadBytes}). */
  bytes(peer: string): number {
    return unreadBytes(this.open.get(peer) ?? []);
  }
}

/**
 * The open responses of one HTTP client, the bytes they hold unread, and what to do with the next
 * message to it. `warn` is told once when dropping or refusing starts and once when the client reads again.
 */
export class UnreadBacklog {
  private readonly open = new Set<ServerResponse>();
  /** Notifications dropped since dropping started; undefined while not dropping. */
  private dropped: number | undefined;
  /** Answers refused since refusing started; undefined while not refusing. */
  private refused: number | undefined;

  constructor(
    private readonly limits: UnreadLimits,
    private readonly peer: string,
    private readonly peers: PeerBacklogs,
    private readonly warn: (reason: string) => void,
  ) {}

  /** Counts `res` (for this client and its peer address) until it closes. */
  track(res: ServerResponse): void {
    this.open.add(res);
    this.peers.track(this.peer, res);
    res.once('close', () => this.open.delete(res));
  }

  /** Bytes waiting unread in this client's open responses ({@link unreadBytes}). */
  bytes(): number {
    return unreadBytes(this.open);
  }

  /** Whether nothing waits unread for this client and its address is under its bound: every message to it is sent as it is, unlooked at. */
  clear(): boolean {
    return this.bytes() === 0 && this.dropped === undefined && this.refused === undefined && !this.peerOver();
  }

  /** Whether to send or drop a notification to this client. */
  notification(): UnreadVerdict {
    const own = this.bytes();
    const over = own > this.limits.notifications || (own > 0 && this.peerOver());
    this.dropped = this.settle(over, this.dropped, 'notification(s) were dropped', () =>
      own > this.limits.notifications ? `the client is not reading: over ${mib(this.limits.notifications)} wait for it, so notifications to it are dropped until it reads again` : `the clients at ${this.peer} are not reading: over ${mib(this.limits.peer)} wait for them, so notifications to this one are dropped until it reads again`,
    );
    return over ? DROP : SEND;
  }

  /** Whether to send an answer (or a request) of `bytes()` bytes to this client, or refuse it and why. */
  answer(bytes: () => number): UnreadVerdict {
    const own = this.bytes();
    const ownOver = own > this.limits.answers;
    const over = ownOver || (this.peerOver() && (own > 0 || bytes() > this.limits.smallAnswer));
    this.refused = this.settle(over, this.refused, 'answer(s) to it were replaced by an error', () =>
      ownOver ? `the client is not reading: over ${mib(this.limits.answers)} wait for it, so answers to it are replaced by an error until it reads again` : `the clients at ${this.peer} are not reading: over ${mib(this.limits.peer)} wait for them, so answers to this one are replaced by an error until it reads again`,
    );
    if (!over) return SEND;
    return { kind: 'refuse', reason: ownOver ? unreadRefusal(this.limits.answers) : peerUnreadRefusal(this.limits.peer) };
  }

  private peerOver(): boolean {
    return this.peers.bytes(this.peer) > this.limits.peer;
  }

  /** The next count of a drop or refusal state, warning when it starts and when it ends. */
  private settle(over: boolean, count: number | undefined, what: string, why: () => string): number | undefined {
    if (over) {
      if (count === undefined) this.warn(why());
      return (count ?? 0) + 1;
    }
    if (count !== undefined) this.warn(`the client reads again; ${count} ${what} while it did not`);
    return undefined;
  }
}

/**
 * A chunk filter for `sendWebResponse` (webBridge.ts) on one client's SSE responses: while anything
 * waits unread for the client (or its address is over its bound), each message event is looked at: a
 * notification the backlog says to drop is dropped, an answer it refuses becomes the short error under
 * the answer's id. A request to the client is judged where it is sent (http.ts); anything else passes.
 */
export function unreadFilter(backlog: UnreadBacklog): (chunk: Uint8Array) => Uint8Array | undefined {
  return (chunk) => {
    if (backlog.clear()) return chunk;
    const event = sseMessage(chunk);
    if (!event) return chunk;
    const { head, message } = event;
    if (!('id' in message)) return backlog.notification().kind === 'drop' ? undefined : chunk;
    if ('method' in message) return chunk;
    const verdict = backlog.answer(() => chunk.length);
    if (verdict.kind !== 'refuse') return chunk;
    return new TextEncoder().encode(`${head}data: ${JSON.stringify(errorResponse(message.id as ReadableId, -32603, verdict.reason))}\n\n`);
  };
}

/**
 * The JSON-RPC message of one SSE event as the SDK writes them (`event: message`, an optional `id:`
 * line, one `data:` line), with the lines before `data:`; undefined for anything else (a priming event,
 * a keep-alive comment).
 */
function sseMessage(chunk: Uint8Array): { head: string; message: object } | undefined {
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
  const match = /^(event: message\n(?:id: [^\n]*\n)?)data: /.exec(text);
  if (!match) return undefined;
  try {
    const message: unknown = JSON.parse(text.slice(match[0].length));
    return typeof message === 'object' && message !== null && !Array.isArray(message) ? { head: match[1]!, message } : undefined;
  } catch {
    return undefined;
  }
}
