/**
 * One request on a connected upstream's SDK Client, as plain functions: `tools/call` with its idle
 * timeout (reset by progress), total cap, cancellation and progress; any other request with the
 * per-call timeout; failures read as outcomes; and the marker for an expired remote session. Holds
 * no state: the connection passes in its client and what it knows about itself, and keeps the
 * lifecycle (start, restart, session renewal and the one retry after it, close). Source:
 * docs/robustness.md; MCP spec, Utilities › Cancellation and › Progress; Transports › Streamable HTTP › Session
 * management.
 */
import { ResultSchema } from '@modelcontextprotocol/core';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SERVER_INFO_META_KEY, type Client } from '@modelcontextprotocol/client';
import { DEFAULT_CALL_TIMEOUT_MS } from '../config/defaults.js';
import type { ServerConfig } from '../config/types.js';
import { classifyFailure, isSessionExpired, notSentReason } from './outcome.js';
import { LONGEST_TIMER_MS } from '../lib/timers.js';
import { capIdle, capTotal } from './totalCap.js';
import type { CallOptions, CallOutcome } from './types.js';

/** Total cap on one call even while progress keeps arriving, in ms. */
export const DEFAULT_MAX_TOTAL_MS = 600_000;

/** How a generic request ended: the result verbatim, or a JSON-RPC error. */
export type RequestOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: { code: number; message: string } };

/** SDK v1's `ErrorCode.RequestTimeout` and `ErrorCode.ConnectionClosed` (SDK conventions, not MCP spec codes). */
export const LEGACY_REQUEST_TIMEOUT = -32001;
const LEGACY_CONNECTION_CLOSED = -32000;

/** Returned instead of an outcome when a remote session expired (HTTP 404): the connection renews it and sends once more. */
export const SESSION_EXPIRED = Symbol('session expired');

/** Why a call is unavailable when the session expired again on the renewed connection. */
export const EXPIRED_AGAIN = 'its session expired again right after reconnecting';

/** What a tool call needs to know about its connection. Read after a failure, when they may have changed. */
export interface CallContext {
  /** The server entry: its `timeoutMs` and `maxTotalMs` apply when the call sets none. */
  readonly server: ServerConfig;
  /** False once `client` is no longer the connection's current one (it closed during the call). */
  isCurrent(client: Client): boolean;
  /** Time until the next restart in ms, when one is scheduled. */
  retryInMs(): number | undefined;
  /**
   * When the call last waited on its own client (performance.now ms; now while the upstream's
   * request to that client is open; 0 never): a call is idle only from then (callRouting.ts).
   */
  clientActiveAt(): number;
}

/**
 * Sends `tools/call` for `name` (the upstream's own tool name) with the idle timeout in ms
 * (`options.timeoutMs`, else the server's, else {@link DEFAULT_CALL_TIMEOUT_MS}), reset by progress
 * and not running while the upstream waits on the call's client (`context.clientActiveAt`),
 * and the total cap (`options.maxTotalMs`, else the server's, else {@link DEFAULT_MAX_TOTAL_MS}, never
 * below the idle timeout). Resolves to the result verbatim or a failure outcome per
 * {@link classifyFailure}; {@link SESSION_EXPIRED} for an expired remote session. Never rejects.
 */
export async function sendToolCall(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
  context: CallContext,
): Promise<CallOutcome | typeof SESSION_EXPIRED> {
  const timeoutMs = options.timeoutMs ?? context.server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const capped = capTotal(Math.max(timeoutMs, options.maxTotalMs ?? context.server.maxTotalMs ?? DEFAULT_MAX_TOTAL_MS), options.signal);
  const idle = capIdle(timeoutMs, () => context.clientActiveAt(), capped.signal);
  const params: Record<string, unknown> = { name, arguments: args };
  if (options.meta) params._meta = options.meta;
  try {
    // Progress is always requested: it resets the idle timeout even when the client did not ask to see it.
    // Both limits are the signals' (the SDK's own timeout, which would not know the client's turn, never fires first).
    const result = await client.request({ method: 'tools/call', params } as never, ResultSchema, {
      timeout: LONGEST_TIMER_MS,
      signal: idle.signal,
      onprogress: (update) => {
        idle.touch();
        options.onProgress?.(update);
      },
    });
    return { kind: 'ok', result: withoutServerInfo(result as Record<string, unknown>) };
  } catch (error) {
    if (isSessionExpired(error) && hasSession(client)) return SESSION_EXPIRED;
    const retryInMs = context.retryInMs();
    return classifyFailure(error, {
      timeoutMs,
      aborted: options.signal?.aborted === true,
      closed: !context.isCurrent(client),
      ...(retryInMs !== undefined ? { retryInMs } : {}),
    });
  } finally {
    idle.dispose();
    capped.dispose();
  }
}

/**
 * Sends any request (resources, prompts, completion, logging) with the server's `timeoutMs`, else
 * {@link DEFAULT_CALL_TIMEOUT_MS}, as an idle timeout that does not run while the upstream waits on
 * the requesting client (`options.clientActiveAt`, as for a tool call: a resources/read or
 * prompts/get may elicit). Resolves to the result verbatim or a JSON-RPC error (InvalidParams
 * when the params could not be serialised, so nothing was sent); {@link SESSION_EXPIRED} for an
 * expired remote session. Never rejects.
 */
export async function sendRequest(
  client: Client,
  method: string,
  params: Record<string, unknown> | undefined,
  options: { signal?: AbortSignal; clientActiveAt?: () => number },
  server: ServerConfig,
): Promise<RequestOutcome | typeof SESSION_EXPIRED> {
  const idle = capIdle(server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, options.clientActiveAt ?? (() => 0), options.signal ?? new AbortController().signal);
  try {
    const result = await client.request({ method, ...(params ? { params } : {}) } as never, ResultSchema, { timeout: LONGEST_TIMER_MS, signal: idle.signal });
    return { ok: true, result: withoutServerInfo(result as Record<string, unknown>) };
  } catch (error) {
    if (isSessionExpired(error) && hasSession(client)) return SESSION_EXPIRED;
    const unsent = notSentReason(error);
    if (unsent) return { ok: false, error: { code: ProtocolErrorCode.InvalidParams, message: `the params could not be sent: ${unsent}; nothing reached the upstream` } };
    return { ok: false, error: { code: wireCode(error), message: error instanceof Error ? error.message : String(error) } };
  } finally {
    idle.dispose();
  }
}

/**
 * `result` without the upstream's `_meta["io.modelcontextprotocol/serverInfo"]`: toolshelf is the
 * server its clients talk to, so a forwarded result must not name the upstream as the responder (the
 * SDK stamps toolshelf's own for modern clients; MCP spec 2026-07-28, Basic › `_meta`, serverInfo;
 * `test/upstream/calls.test.ts`). Every other `_meta` key passes through. The same object when there is nothing to drop.
 */
export function withoutServerInfo(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null || !(SERVER_INFO_META_KEY in meta)) return result;
  const { [SERVER_INFO_META_KEY]: _dropped, ...rest } = meta as Record<string, unknown>;
  const { _meta: _old, ...body } = result;
  return Object.keys(rest).length > 0 ? { ...body, _meta: rest } : body;
}

/**
 * The JSON-RPC code passed on for a failed request: the upstream's own, else the number SDK v1 gave
 * its local timeout (-32001) and closed connection (-32000), which v2 reports as string
 * `SdkErrorCode`s, so legacy clients see the same codes as before; else -32603.
 */
function wireCode(error: unknown): number {
  if (error instanceof ProtocolError) return error.code;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return LEGACY_REQUEST_TIMEOUT;
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) return LEGACY_CONNECTION_CLOSED;
  return ProtocolErrorCode.InternalError;
}

/** True for a connection whose transport holds a session id (Streamable HTTP): a 404 then means the session expired. */
function hasSession(client: Client): boolean {
  return client.transport?.sessionId !== undefined;
}
