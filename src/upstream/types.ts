/**
 * Shapes shared by the upstream folder and its callers.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { UpstreamTool } from '../catalog/types.js';
import type { RemoteServerConfig } from '../config/types.js';

/**
 * Lifecycle of one upstream: `starting` while (re)connecting, `failed` never came up, `down` was up
 * and awaits a restart, `idle` not running (lazy: served from the catalogue cache until first use),
 * `needs_sign_in` waits for the user to sign in (no retries). Derived from the connection's lifecycle
 * state by lifecycle.ts `statusOf` (docs/robustness.md, "The connection's lifecycle").
 */
export type UpstreamStatus = 'idle' | 'starting' | 'ready' | 'down' | 'failed' | 'needs_sign_in' | 'closed';

/** Progress from the upstream for one call (MCP spec, Utilities › Progress). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The client request an upstream request was made for: its session and how to put a request
 * (sampling/createMessage, elicitation/create) to that client on that request's own stream.
 * Opaque to upstream/, made by the gateway session.
 */
export interface RequestOrigin {
  /** The downstream session's id: two origins with one session are one client. */
  readonly session: string;
  /**
   * Sends `method` to that client; resolves to its result verbatim, rejects with its error or on
   * `signal`. `key` is the upstream's own name for the request when it sent one (a modern upstream's
   * `inputRequests` key), kept where the client sees keys (`input_required`).
   */
  ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal, key?: string): Promise<Record<string, unknown>>;
  /**
   * True while this request's client has been handed everything the upstream asked during it and the
   * upstream waits on that answer (a modern call held for its `input_required` retry): an upstream
   * sends a call's requests together and then waits, so a request arriving now is not this call's
   * while another call runs (callRouting.ts). Absent: never parked.
   */
  parked?(): boolean;
  /**
   * Delivers a `notifications/message` that upstream `server` sent during this request to its client
   * alone (a modern client: on the request's own stream, at the level its `_meta` asked, nothing
   * without one; a legacy client: to its session). Absent: the log goes to every legacy session.
   * Source: MCP spec 2026-07-28, Server › Utilities › Logging; docs/tools.md; `test/e2e/modernNotify.e2e.test.ts` (a
   * legacy client's call logged to every other legacy client).
   */
  log?(server: string, params: Record<string, unknown>): void;
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

/** How an upstream call ended. Never thrown: every failure is a value. */
export type CallOutcome =
  | { readonly kind: 'ok'; readonly result: Record<string, unknown> }
  | { readonly kind: 'timeout'; readonly ms: number }
  | {
      readonly kind: 'unavailable';
      readonly reason: string;
      readonly retryInMs?: number;
      /** The upstream refused the credentials: it needs the user to sign in. */
      readonly needsSignIn?: true;
      /** The scope a 403 `insufficient_scope` asked for, when stepping up could help. */
      readonly stepUpScope?: string;
    }
  | { readonly kind: 'cancelled' }
  | {
      readonly kind: 'upstream_error';
      readonly code?: number;
      readonly message: string;
      /** Set when the request never left the gateway (its arguments could not be serialised): not the upstream's doing. */
      readonly notSent?: true;
    };

/**
 * Sign-in services for remote upstreams, implemented by `auth/`: `upstream/` uses them
 * through this interface only.
 */
export interface UpstreamAuth {
  /** The OAuth provider for `server`'s transports; undefined when it sends its own `Authorization` header. */
  providerFor(key: string, server: RemoteServerConfig): OAuthClientProvider | undefined;
  /**
   * Runs a browser sign-in for `server` (asking for `scope` too, for a step-up); absent when this
   * process must not open a browser (inspect, search). Resolves true once signed in; never rejects.
   */
  readonly signIn?: (key: string, server: RemoteServerConfig, scope?: string) => Promise<boolean>;
  /** Calls `onSignedIn` when credentials for `server` appear in the store (e.g. `toolshelf auth login` in another process); returns the stop function. */
  watch(key: string, server: RemoteServerConfig, onSignedIn: () => void): () => void;
  /** The tools `server` last listed in any process, so they answer "needs sign-in" before it is signed in. */
  lastTools(key: string, server: RemoteServerConfig): readonly UpstreamTool[];
  /** Keeps `tools` as the last known list of a server signed into (others leave nothing on disk). Never rejects. */
  rememberTools(key: string, server: RemoteServerConfig, tools: readonly UpstreamTool[]): Promise<void>;
}
