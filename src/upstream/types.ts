/**
 * Shapes shared by the upstream folder and its callers.
 */

/** Lifecycle of one upstream: `starting` while (re)connecting, `failed` never came up, `down` was up and awaits a restart. */
export type UpstreamStatus = 'starting' | 'ready' | 'down' | 'failed' | 'closed';

/** Progress from the upstream for one call (MCP spec, Utilities › Progress). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The client request an upstream request was made for: its session and how to put a request
 * (sampling/createMessage, elicitation/create) to that client on that request's own stream.
 * Opaque to upstream/, made by the gateway session (issue #8 point 2).
 */
export interface RequestOrigin {
  /** The downstream session's id: two origins with one session are one client. */
  readonly session: string;
  /** Sends `method` to that client; resolves to its result verbatim, rejects with its error or on `signal`. */
  ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** Per-call options. Times in ms. */
export interface CallOptions {
  /** Idle timeout, reset by progress (default: the server's `timeoutMs`, else 60,000). */
  readonly timeoutMs?: number;
  /** Cap on the whole call even with progress (default 600,000). */
  readonly maxTotalMs?: number;
  /** The client's cancellation; aborting sends `notifications/cancelled` upstream. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (update: ProgressUpdate) => void;
  /** `_meta` to forward (without the client's progressToken: the SDK sets its own). */
  readonly meta?: Record<string, unknown>;
  /** The client call this one is made for: the upstream's sampling and elicitation during it go there. */
  readonly origin?: RequestOrigin;
}

/** How an upstream call ended. Never thrown: every failure is a value (STYLE §3). */
export type CallOutcome =
  | { readonly kind: 'ok'; readonly result: Record<string, unknown> }
  | { readonly kind: 'timeout'; readonly ms: number }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryInMs?: number }
  | { readonly kind: 'cancelled' }
  | {
      readonly kind: 'upstream_error';
      readonly code?: number;
      readonly message: string;
      /** Set when the request never left the gateway (its arguments could not be serialised): not the upstream's doing. */
      readonly notSent?: true;
    };
