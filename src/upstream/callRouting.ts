/**
 * Which client an upstream's request (sampling/createMessage, elicitation/create) belongs to: the
 * client whose call caused it, or nobody — never a guess. Each request sent
 * upstream for a client is tracked while it waits for its answer; the decision is {@link ownerOf}.
 *
 * The related request comes from the transport: on Streamable HTTP an upstream sends a request that
 * belongs to a call on that call's own POST response stream (MCP spec 2025-11-25, Transports ›
 * Streamable HTTP: such messages "SHOULD relate to the originating client request"). The SDK client
 * reads each POST's stream in an async loop started by that POST, so the call's AsyncLocalStorage
 * context is the current one when the request's handler runs; that is how the related call is known
 * here. Requests on the GET stream, on SSE and on stdio come with no related call. Everything that
 * connects (transports, the GET stream) runs {@link outsideCalls}, so no call's context leaks into it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestOrigin } from './types.js';

/** One request sent upstream for a client, waiting for its answer. */
interface Pending {
  readonly origin: RequestOrigin;
  readonly router: CallRouter;
}

const related = new AsyncLocalStorage<Pending>();

/** Runs `fn` (and everything it starts) outside any call, so nothing it reads later is taken for a call's. */
export function outsideCalls<T>(fn: () => T): T {
  return related.exit(fn);
}

/**
 * Who an upstream request goes to, or why nobody can be told for certain; `idle` when no client call
 * waits on the upstream at all (the request is the upstream's own, e.g. roots/list at start-up).
 */
export type Owner = { readonly ok: true; readonly origin: RequestOrigin } | { readonly ok: false; readonly reason: string; readonly idle?: true };

/**
 * The rule (docs/tools.md, "Sampling, elicitation and roots"):
 * - the transport names the related call (`related` given): that call's client if the call still
 *   waits, else nobody (`'ended'`), even when another call would fit;
 * - no related call: the client of the calls waiting on this upstream when they all come from one
 *   client (under MCP a request about a call is sent before that call's answer, so no other client's
 *   call can be its cause); nobody when no call waits or calls from two or more clients wait.
 *   Calls {@link RequestOrigin.parked} (held for their client's `input_required` retry, their
 *   upstream waiting on that answer) count only when no other call waits: an idle held call does not
 *   make a running call's request ambiguous. On stdio nothing on the wire names
 *   the related call (the legacy JSON-RPC request carries no related id), so this is the only signal.
 * Returns the origin to use (the oldest waiting call of that client), or the reason for refusing.
 */
export function ownerOf(relatedOrigin: RequestOrigin | 'ended' | undefined, waiting: readonly RequestOrigin[], abandoned: readonly RequestOrigin[] = []): Owner {
  if (relatedOrigin === 'ended') return { ok: false, reason: 'the call it belongs to has already ended' };
  if (relatedOrigin) return { ok: true, origin: relatedOrigin };
  const running = waiting.filter((o) => o.parked?.() !== true);
  const candidates = running.length > 0 ? running : waiting;
  const first = candidates[0];
  if (!first) return { ok: false, reason: 'no client call is waiting on this server', idle: true };
  const clients = new Set(candidates.map((o) => o.session)).size;
  if (clients > 1) return { ok: false, reason: `calls from ${clients} clients are waiting on this server and the request does not say which one it belongs to` };
  // A call another client cancelled, or that timed out, may still be running upstream (cancellation
  // is only a request): its sampling or elicitation could come now, while this client's call waits.
  if (abandoned.some((o) => o.session !== first.session)) {
    return { ok: false, reason: 'a call another client cancelled or gave up on may still be running on this server, and the request does not say which one it belongs to' };
  }
  return { ok: true, origin: first };
}

/** How long a cancelled or timed-out call still counts as possibly running upstream (the default `maxTotalMs`). */
export const ABANDONED_MS = 600_000;
/** Most abandoned calls remembered per upstream connection; the oldest are forgotten first. */
const MAX_ABANDONED = 256;

/** A client's turn on one upstream: its requests from the upstream not yet answered, and when the last one was (performance.now ms). */
interface Turn {
  open: number;
  endedAt: number;
}

/** One per upstream connection: the requests waiting on it, by client, oldest first. */
export class CallRouter {
  private readonly waiting = new Set<Pending>();
  /**
   * By client session: the upstream's requests to it (sampling, elicitation, roots/list) still open.
   * While one is, that client's calls on this upstream are not idle (their upstream waits on the
   * client: a person may be answering), so their idle timeout must not end them.
   */
  private readonly turns = new Map<string, Turn>();
  /** Calls the gateway stopped waiting for without an answer (cancelled, timed out), with when they stop counting. */
  private readonly abandoned: { readonly origin: RequestOrigin; readonly until: number }[] = [];

  /**
   * `namesRelated`: whether the transport can name the related call (Streamable HTTP). Only then is
   * the call's context set, so a gateway with stdio upstreams alone never turns on Node's async
   * context tracking (promise hooks, process-wide) for nothing.
   */
  constructor(private readonly namesRelated = true) {}

  /**
   * Runs `send` as a request made for `origin` (untracked without one: toolshelf's own requests carry
   * no client's data). `unanswered` says from its value whether the upstream never answered it (the
   * client cancelled it or it timed out): the call then counts as abandoned for {@link ABANDONED_MS},
   * since the upstream may still be working on it.
   */
  track<T>(origin: RequestOrigin | undefined, send: () => Promise<T>, unanswered?: (value: T) => boolean): Promise<T> {
    return origin ? this.waitFor({ origin, router: this }, send, unanswered) : send();
  }

  /** {@link track} for one pending request: an async function, not a promise chain (fewer ticks per call). */
  private async waitFor<T>(pending: Pending, send: () => Promise<T>, unanswered?: (value: T) => boolean): Promise<T> {
    this.waiting.add(pending);
    try {
      const value = await (this.namesRelated ? related.run(pending, send) : send());
      if (unanswered?.(value)) this.abandon(pending.origin);
      return value;
    } finally {
      this.waiting.delete(pending);
      this.dropTurn(pending.origin.session);
    }
  }

  /**
   * Runs `ask`, the upstream's request put to `origin`'s client, as that client's turn: until it
   * settles, {@link clientActiveAt} for the client's calls is now.
   */
  async asking<T>(origin: RequestOrigin, ask: () => Promise<T>): Promise<T> {
    const turn = this.turns.get(origin.session) ?? { open: 0, endedAt: 0 };
    this.turns.set(origin.session, turn);
    turn.open += 1;
    try {
      return await ask();
    } finally {
      turn.open -= 1;
      turn.endedAt = performance.now();
      this.dropTurn(origin.session);
    }
  }

  /**
   * When a call made for `origin` last waited on its client, in performance.now ms: now while one of
   * the upstream's requests to that client is open, else when the last one was answered (0: never;
   * an untracked call: never). A call's idle time counts from the later of this and its own last progress.
   */
  clientActiveAt(origin: RequestOrigin | undefined): number {
    const turn = origin && this.turns.get(origin.session);
    if (turn === undefined) return 0;
    return turn.open > 0 ? performance.now() : turn.endedAt;
  }

  /** Forgets a client's turn once nothing of it is open and none of its calls waits (kept while a call may still read it). */
  private dropTurn(session: string): void {
    if (this.turns.get(session)?.open !== 0) return;
    for (const p of this.waiting) if (p.origin.session === session) return;
    this.turns.delete(session);
  }

  /** Forgets abandoned calls: the upstream they ran on has ended. */
  forgetAbandoned(): void {
    this.abandoned.length = 0;
  }

  private abandon(origin: RequestOrigin): void {
    this.abandoned.push({ origin, until: Date.now() + ABANDONED_MS });
    if (this.abandoned.length > MAX_ABANDONED) this.abandoned.shift();
  }

  /** The owner of the upstream request being handled now, by {@link ownerOf}. */
  owner(): Owner {
    const current = related.getStore();
    const relatedOrigin = current === undefined ? undefined : current.router === this && this.waiting.has(current) ? current.origin : 'ended';
    const now = Date.now();
    while (this.abandoned.length > 0 && this.abandoned[0]!.until <= now) this.abandoned.shift();
    return ownerOf(relatedOrigin, [...this.waiting].map((p) => p.origin), this.abandoned.map((a) => a.origin));
  }
}
