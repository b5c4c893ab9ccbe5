/**
 * The rounds of every modern (2026-07-28) tools/call, prompts/get and resources/read: each is started
 * here ({@link HeldCalls.serve}), and one whose upstream needs the client's input is served as
 * multi-round-trip `input_required` results until it completes. An upstream asks for sampling or elicitation by sending
 * a request in the middle of a tools/call, and waits for the answer on that same call; the modern
 * client can only answer by retrying its tools/call with `inputResponses`. So the upstream call is
 * held open in this process: the first round returns `input_required` naming each pending upstream
 * request, the retry hands the answers back upstream and waits again, until the upstream's result is
 * returned as the retry's result.
 *
 * `requestState` is a random 128-bit id of the held call's current round, not data: it is a
 * capability (only the client that got it can resume the call), checked by lookup and bound here to
 * the request's method, name and arguments, its expiry and a single use (each round gets a fresh one);
 * tampering can only fail the request, so it is not signed (spec: integrity protection MAY be omitted
 * then), and a state that names nothing held here is refused with -32602 (spec: reject state that
 * fails verification). A held call cannot move between processes (its upstream request is in flight
 * here), so a retry that a load balancer sends to another replica gets that refusal, telling the model
 * to call again; one that never comes is given up after {@link HOLD_MS}, and the upstream's request fails. tools/call,
 * prompts/get and resources/read are held alike (the three may answer `input_required`).
 *
 * Input keys are the upstream's own when it named them (a modern upstream's `inputRequests`), else
 * `<kind>-<n>`. A legacy upstream sends a round's requests one by one with nothing marking the last,
 * so a round is answered once no new request came for {@link ROUND_SETTLE_MS}. While its client holds
 * the round, the call is parked (RequestOrigin.parked): its upstream waits on that answer.
 * A request the client did not declare the capability for (but roots/list, answered with no roots) gets the upstream -32601
 * ({@link ClientLacksCapability}), as a legacy client's call does, and the round fails with -32021
 * MissingRequiredClientCapability (HTTP 400; SEP-2575 makes it a MUST, tools/call included; a legacy client's
 * tools/call gets an `isError` naming the same capability, dispatch.ts). The upstream ends the request by itself
 * (not cancelled: a cancelled call would count as abandoned, callRouting.ts).
 * Source: MCP spec 2026-07-28, Basic › Patterns › Multi-round-trip requests; docs/tools.md.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type InputRequiredResult,
  type Result,
  type LoggingLevel,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ClientLacksCapability, clientCapabilityFor, noRoots } from '../../lib/relayedRequests.js';
import type { RequestOrigin } from '../../upstream/types.js';
import { upstreamLog, type HeldRequest } from '../passthrough.js';
import { MAX_SESSIONS, RELAY_TIMEOUT_MS } from '../sessionOptions.js';

/** How long a held call waits for the client's retry after answering `input_required`, in ms (a person may be answering; the legacy relay's limit). */
export const HOLD_MS = RELAY_TIMEOUT_MS;

/**
 * How long a round stays open for more requests after the last one came, in ms: a legacy upstream
 * writes a round's requests back to back (the SDK's shim: all of one `input_required` at once), so
 * they arrive within a few ms; a person answers the round, so the wait costs nothing noticeable.
 */
export const ROUND_SETTLE_MS = 50;

/** The answer (a -32602 error) to a retry that names no call held here: the spec's refusal of state that fails verification. */
export const NOT_HELD_TEXT =
  'This call was waiting for your answer on another toolshelf instance, or waited longer than 10 minutes, and cannot be resumed here. Call the tool again.';

interface Ask {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  sent: boolean;
  resolve(result: Record<string, unknown>): void;
}

/**
 * Runs one request to its end. `extra` carries the held call's own signal and progress sink; `origin`
 * is where the upstream's sampling, elicitation and roots/list during it go (to this call only).
 */
export type StartCall<R extends Result> = (extra: ServerContext, origin: RequestOrigin) => Promise<R>;

/** How the started request ended: its result, or what it threw. */
type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** Modern requests started by this process, for {@link HeldCall.id}. */
let heldCallCount = 0;

/** One request from a modern client whose upstream request may outlive the round that started it. */
class HeldCall<R extends Result> {
  /**
   * Names the call as a routing session (`modern:<id>`, callRouting.ts): unique in the process, not a
   * secret, so a counter. Random bytes cost a getrandom call each (about 40 µs per modern call on
   * a VM) and are spent only on a `requestState`, when the call is held.
   */
  readonly id = String((heldCallCount += 1));
  /**
   * The `requestState` of the round last answered: a fresh random id each round, so an earlier
   * round's state no longer resumes the call. Empty until the first `input_required`.
   */
  state = '';
  private readonly asks = new Map<string, Ask>();
  private readonly abort = new AbortController();
  private asked = 0;
  private outcome: Outcome<R> | undefined;
  private refusal: MissingRequiredClientCapabilityError | undefined;
  private parked = false;
  private wake: (() => void) | undefined;
  private round: { ctx: ServerContext; progressToken: unknown } | undefined;
  private expiry: NodeJS.Timeout | undefined;
  /** Forgets the call in its {@link HeldCalls} once its retry is given up on. */
  private expired: (() => void) | undefined;
  /** Progress still being written to the client: the round's result waits for it, so none arrives after the result (and is dropped). */
  private sending: Promise<unknown> = Promise.resolve();

  /**
   * The retry must be the same request: same method, name and arguments (MRTR: the originating
   * request). Undefined for arguments JSON cannot hold (nested too deeply): no retry matches them,
   * and the call itself goes on to fail as a legacy client's does, with an `isError`.
   */
  readonly key: string | undefined;

  constructor(request: HeldRequest) {
    this.key = requestKey(request);
  }

  /** Starts the request for its first round (`request`, `ctx`), so the round's capabilities are known to its first upstream request. */
  start(run: StartCall<R>, request: HeldRequest, ctx: ServerContext): void {
    this.round = { ctx, progressToken: request.params._meta?.progressToken };
    const extra = { mcpReq: { signal: this.abort.signal, notify: (n: { method: string; params?: Record<string, unknown> }) => this.notify(n) } };
    const origin: RequestOrigin = {
      session: `modern:${this.id}`,
      ask: (method, params, signal, key) => this.ask(method, params, signal, key),
      parked: () => this.parked,
      log: (server, params) => this.log(server, params),
    };
    void run(extra as unknown as ServerContext, origin).then(
      (value) => this.end({ ok: true, value }),
      (error: unknown) => this.end({ ok: false, error }),
    );
  }

  private end(outcome: Outcome<R>): void {
    this.outcome = outcome;
    this.wake?.();
  }

  /** Whether the client declared, on the current round's `_meta`, the capability `method` needs. */
  private canAnswer(method: string): boolean {
    const caps = this.round?.ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as ClientCapabilities | undefined;
    const capability = clientCapabilityFor(method);
    return capability !== undefined && caps?.[capability] !== undefined;
  }

  /**
   * Puts an upstream's request to the client in the next `input_required` round, under the
   * upstream's `key` when it gave one that is free; resolves with the client's answer from the retry.
   * When the client did not declare the capability, this rejects with -32601 ({@link ClientLacksCapability}; roots/list:
   * resolves with no roots, lib/relayedRequests.ts noRoots) and the round fails with -32021; rejects on `signal`,
   * and when the call ends here unanswered (cancelled, or no retry within {@link HOLD_MS}).
   */
  private ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal, key?: string): Promise<Record<string, unknown>> {
    if (!this.canAnswer(method)) {
      // A client without roots has none to give; on stdio the request may well be the upstream's own sync, not this call's need.
      if (method === 'roots/list') return Promise.resolve(noRoots());
      const lacks = new ClientLacksCapability(method);
      // MCP 2026-07-28 (SEP-2575): a server that needs a capability the client did not declare MUST answer
      // -32021, a tools/call included (the conformance suite checks it: test/e2e/conformanceNext.test.ts).
      this.refusal ??= new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { [lacks.capability]: {} } },
        `The upstream server needs ${method} to go on with this request, and this client did not declare the ${lacks.capability} capability`,
      );
      this.wake?.();
      return Promise.reject(lacks);
    }
    return new Promise((resolve, reject) => {
      this.asked += 1;
      const name = key !== undefined && !this.asks.has(key) ? key : `${clientCapabilityFor(method)}-${this.asked}`;
      this.asks.set(name, { method, params, sent: false, resolve });
      // The upstream withdrew its request, or the call ended here (cancelled, or its retry never came):
      // either way nobody will answer it, so the upstream gets an error instead of waiting on.
      for (const ended of [signal, this.abort.signal]) {
        ended.addEventListener('abort', () => {
          this.asks.delete(name);
          reject(ended.reason instanceof Error ? ended.reason : new Error(String(ended.reason)));
        });
      }
      this.wake?.();
    });
  }

  /**
   * Serves one round: answers the asks the retry carries (unanswered ones are asked again), then waits
   * until the upstream request ends (its result) or asks for something new (`input_required`, once
   * the round settled). The round's cancellation cancels the upstream request.
   * @throws MissingRequiredClientCapabilityError (-32021) when the upstream asked for what the client cannot answer; what the request threw.
   */
  async serve(request: HeldRequest, ctx: ServerContext): Promise<R | InputRequiredResult> {
    clearTimeout(this.expiry);
    this.parked = false;
    this.round = { ctx, progressToken: request.params._meta?.progressToken };
    const responses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, Record<string, unknown>>;
    for (const [key, ask] of this.asks) {
      const answer = responses[key];
      if (!ask.sent) continue;
      if (answer === undefined) ask.sent = false;
      else {
        this.asks.delete(key);
        ask.resolve(answer);
      }
    }
    const cancel = (): void => {
      this.abort.abort(ctx.mcpReq.signal.reason);
      this.wake?.();
    };
    ctx.mcpReq.signal.addEventListener('abort', cancel);
    try {
      for (;;) {
        if (this.refusal) throw this.refusal;
        if (this.outcome) {
          await this.sending;
          if (this.outcome.ok) return this.outcome.value;
          throw this.outcome.error;
        }
        if (this.abort.signal.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'Cancelled.');
        if ([...this.asks.values()].some((ask) => !ask.sent)) {
          await this.settle();
          if (this.refusal || this.outcome) continue;
          const fresh = [...this.asks].filter(([, ask]) => !ask.sent);
          for (const [, ask] of fresh) ask.sent = true;
          const inputRequests = Object.fromEntries(fresh.map(([key, ask]) => [key, { method: ask.method, ...(ask.params ? { params: ask.params } : {}) }]));
          this.parked = true;
          this.state = randomBytes(16).toString('base64url');
          return inputRequired({ inputRequests: inputRequests as never, requestState: this.state });
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
    }
  }

  /** Waits until no new request came for {@link ROUND_SETTLE_MS} (or the call ended). */
  private async settle(): Promise<void> {
    for (let seen = -1; seen !== this.asked && !this.outcome && !this.refusal; ) {
      seen = this.asked;
      await delay(ROUND_SETTLE_MS);
    }
  }

  /** Gives up on the client's retry after {@link HOLD_MS} (or at once by {@link giveUp}): the upstream request is cancelled. */
  hold(onExpired: () => void): void {
    this.expired = onExpired;
    this.expiry = setTimeout(() => this.giveUp('the client did not retry'), HOLD_MS);
    this.expiry.unref();
  }

  /** Gives up on the client's retry now, `why`: the upstream request is cancelled and the call forgotten. */
  giveUp(why: string): void {
    clearTimeout(this.expiry);
    this.abort.abort(new Error(`input_required: ${why}`));
    this.expired?.();
  }

  /**
   * An upstream's log message during this call goes to the current round's stream, at the level that
   * round's `_meta` asked for (none: dropped), as the SDK's request logger filters it.
   */
  private log(server: string, params: Record<string, unknown>): void {
    const { level, data, logger } = upstreamLog(server, params) as { level: LoggingLevel; data: unknown; logger: string };
    void this.round?.ctx.mcpReq.log(level, data, logger).catch(() => undefined);
  }

  /** Progress from upstream goes to the current round, under that round's own token (none: dropped). */
  private notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    const round = this.round;
    if (round === undefined || round.progressToken === undefined) return Promise.resolve();
    const params = notification.method === 'notifications/progress' ? { ...notification.params, progressToken: round.progressToken } : notification.params;
    const sent = round.ctx.mcpReq.notify({ method: notification.method, ...(params ? { params } : {}) } as never);
    this.sending = Promise.all([this.sending, sent.catch(() => undefined)]);
    return sent;
  }
}

/** Every modern call of this process passes through here; those waiting on their client's answer are kept by `requestState`. */
export class HeldCalls {
  /** By state, oldest first (a Map keeps insertion order): the one given up at the cap. */
  private readonly calls = new Map<string, HeldCall<Result>>();

  /**
   * `max`: most calls held at once (default the legacy session cap, {@link MAX_SESSIONS}). Each keeps
   * an upstream request open and about 70 KB for up to {@link HOLD_MS}, so a client that opens them
   * and never retries must not exhaust the process (800 in 46 s grew RSS by 56 MB); past
   * it the oldest is given up, as if it had expired.
   */
  constructor(private readonly max = MAX_SESSIONS) {}

  /**
   * Serves a modern tools/call or prompts/get round: a first round starts the request with `run`; a
   * retry resumes the one its `requestState` names.
   * @throws ProtocolError -32602 with {@link NOT_HELD_TEXT} for a `requestState` that names no request
   * held here for the same method, name and arguments; -32021 and what `run` threw, as {@link HeldCall.serve}.
   */
  async serve<R extends Result>(request: HeldRequest, ctx: ServerContext, run: StartCall<R>): Promise<R | InputRequiredResult> {
    const state = ctx.mcpReq.requestState();
    let call: HeldCall<R> | undefined;
    if (state === undefined) {
      call = new HeldCall<R>(request);
      call.start(run, request, ctx);
    } else {
      call = typeof state === 'string' ? (this.calls.get(state) as HeldCall<R> | undefined) : undefined;
      const key = requestKey(request);
      if (call === undefined || key === undefined || call.key !== key) throw new ProtocolError(ProtocolErrorCode.InvalidParams, NOT_HELD_TEXT);
    }
    const held = call as HeldCall<Result>;
    // Each round's state resumes the call once. A round that throws ends the call, with nothing to
    // cancel: the upstream request ended, was cancelled, or had its own request refused and ends by itself.
    this.calls.delete(call.state);
    const result = await call.serve(request, ctx);
    if ('resultType' in result && result.resultType === 'input_required') {
      const state = call.state;
      this.calls.set(state, held);
      call.hold(() => this.calls.delete(state));
      if (this.calls.size > this.max) this.calls.values().next().value?.giveUp(`more than ${this.max} calls were waiting for their client's answer`);
    }
    return result;
  }
}

/**
 * What identifies the originating request of a held call: its method, name (or URI) and arguments;
 * undefined when they cannot be serialised (a RangeError: nested too deeply or too long).
 */
function requestKey(request: HeldRequest): string | undefined {
  try {
    return JSON.stringify([request.method, request.params.name ?? request.params.uri, request.params.arguments ?? {}]);
  } catch {
    return undefined;
  }
}
