/**
 * Upstream calls that need the client's input, served to modern (2026-07-28) clients as
 * multi-round-trip `input_required` results. An upstream asks for sampling or elicitation by sending
 * a request in the middle of a tools/call, and waits for the answer on that same call; the modern
 * client can only answer by retrying its tools/call with `inputResponses`. So the upstream call is
 * held open in this process: the first round returns `input_required` naming each pending upstream
 * request, the retry hands the answers back upstream and waits again, until the upstream's result is
 * returned as the retry's result.
 *
 * `requestState` is a random 128-bit id of the held call, not data: it is a capability (only the
 * client that got it can resume the call), checked by lookup and bound here to the call's tool name
 * and arguments, its expiry and a single completion; tampering can only fail the request, so it is not
 * signed (spec: integrity protection MAY be omitted then). A held
 * call cannot move between processes (its upstream request is in flight here), so a retry that a load
 * balancer sends to another replica gets an `isError` telling the model to call again; one that never
 * comes is given up after {@link HOLD_MS}, and the upstream's request fails.
 * Source: MCP spec 2026-07-28, Basic › Patterns › Multi-round-trip requests; issue #9 point 3.
 */
import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type LoggingLevel,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { RequestOrigin } from '../../upstream/types.js';
import { errorResult } from '../results.js';
import { RELAY_TIMEOUT_MS, upstreamLog } from '../session.js';

/** How long a held call waits for the client's retry after answering `input_required`, in ms (a person may be answering; the legacy relay's limit). */
export const HOLD_MS = RELAY_TIMEOUT_MS;

/** The answer to a retry that names no call held here. */
export const NOT_HELD_TEXT =
  'This call was waiting for your answer on another toolshelf instance, or waited longer than 10 minutes, and cannot be resumed here. Call the tool again.';

interface Ask {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  sent: boolean;
  resolve(result: Record<string, unknown>): void;
}

/**
 * Runs one call to its end. `extra` carries the held call's own signal and progress sink; `origin`
 * is where the upstream's sampling and elicitation during it go (issue #8 point 2: to this call only).
 */
export type StartCall = (extra: ServerContext, origin: RequestOrigin) => Promise<CallToolResult>;

/** One tools/call from a modern client whose upstream call may outlive the request that started it. */
class HeldCall {
  readonly id = randomBytes(16).toString('base64url');
  private readonly asks = new Map<string, Ask>();
  private readonly abort = new AbortController();
  private asked = 0;
  private outcome: CallToolResult | undefined;
  private wake: (() => void) | undefined;
  private round: { ctx: ServerContext; progressToken: unknown } | undefined;
  private expiry: NodeJS.Timeout | undefined;

  /** The retry must be the same request: same tool name, same arguments (MRTR: the originating request). */
  readonly key: string;

  constructor(request: CallToolRequest) {
    this.key = requestKey(request);
  }

  /** Starts the call for its first round (`request`, `ctx`), so the round's capabilities are known to its first upstream request. */
  start(run: StartCall, request: CallToolRequest, ctx: ServerContext): void {
    this.round = { ctx, progressToken: request.params._meta?.progressToken };
    const extra = { mcpReq: { signal: this.abort.signal, notify: (n: { method: string; params?: Record<string, unknown> }) => this.notify(n) } };
    const origin: RequestOrigin = { session: `modern:${this.id}`, ask: (method, params, signal) => this.ask(method, params, signal), log: (server, params) => this.log(server, params) };
    void run(extra as unknown as ServerContext, origin)
      .catch((error: Error) => errorResult(`toolshelf could not finish the call: ${error.message}`))
      .then((result) => {
        this.outcome = result;
        this.wake?.();
      });
  }

  /** Whether the client declared, on the current round's `_meta`, the capability `method` needs. */
  private canAnswer(method: string): boolean {
    const caps = this.round?.ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as ClientCapabilities | undefined;
    return (method === 'sampling/createMessage' && caps?.sampling !== undefined) || (method === 'elicitation/create' && caps?.elicitation !== undefined);
  }

  /**
   * Puts an upstream's request to the client in the next `input_required` round; resolves with the
   * client's answer from the retry. Rejects with -32601 when the client did not declare the
   * capability, or on `signal`.
   */
  private ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (!this.canAnswer(method)) return Promise.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, `The client that made this call does not support ${method}`));
    return new Promise((resolve, reject) => {
      this.asked += 1;
      const key = `${method === 'sampling/createMessage' ? 'sampling' : 'elicitation'}-${this.asked}`;
      this.asks.set(key, { method, params, sent: false, resolve });
      signal.addEventListener('abort', () => {
        this.asks.delete(key);
        reject(signal.reason as Error);
      });
      this.wake?.();
    });
  }

  /**
   * Serves one round: answers the asks the retry carries (unanswered ones are asked again), then waits
   * until the upstream call ends (its result) or asks for something new (`input_required`). The
   * round's cancellation cancels the upstream call.
   */
  async serve(request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    clearTimeout(this.expiry);
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
        if (this.outcome) return this.outcome;
        if (this.abort.signal.aborted) return errorResult('Cancelled.');
        const fresh = [...this.asks].filter(([, ask]) => !ask.sent);
        if (fresh.length > 0) {
          for (const [, ask] of fresh) ask.sent = true;
          const inputRequests = Object.fromEntries(fresh.map(([key, ask]) => [key, { method: ask.method, ...(ask.params ? { params: ask.params } : {}) }]));
          return inputRequired({ inputRequests: inputRequests as never, requestState: this.id });
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
    }
  }

  /** Gives up on the client's retry after {@link HOLD_MS}: the upstream call is cancelled. */
  hold(onExpired: () => void): void {
    this.expiry = setTimeout(() => {
      this.abort.abort(new Error('input_required: the client did not retry'));
      onExpired();
    }, HOLD_MS);
    this.expiry.unref();
  }

  /**
   * An upstream's log message during this call goes to the current round's stream, at the level that
   * round's `_meta` asked for (none: dropped), as the SDK's request logger filters it (issue #9 point 3).
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
    return round.ctx.mcpReq.notify({ method: notification.method, ...(params ? { params } : {}) } as never);
  }
}

/** The held calls of this process, by `requestState`. */
export class HeldCalls {
  private readonly calls = new Map<string, HeldCall>();

  /** Serves a modern tools/call round: a first round starts the call with `run`; a retry resumes the call its `requestState` names. */
  async serve(request: CallToolRequest, ctx: ServerContext, run: StartCall): Promise<CallToolResult | InputRequiredResult> {
    const state = ctx.mcpReq.requestState();
    let call: HeldCall | undefined;
    if (state === undefined) {
      call = new HeldCall(request);
      this.calls.set(call.id, call);
      call.start(run, request, ctx);
    } else {
      call = typeof state === 'string' ? this.calls.get(state) : undefined;
      if (call === undefined || call.key !== requestKey(request)) return errorResult(NOT_HELD_TEXT);
    }
    const result = await call.serve(request, ctx);
    const id = call.id;
    if ('resultType' in result && result.resultType === 'input_required') call.hold(() => this.calls.delete(id));
    else this.calls.delete(id);
    return result;
  }
}

/** What identifies the originating request of a held call: its tool name and arguments. */
function requestKey(request: CallToolRequest): string {
  return JSON.stringify([request.params.name, request.params.arguments ?? {}]);
}
