/**
 * How a failed upstream request reads as a {@link CallOutcome}, which failures happened before the
 * request left the gateway, and which mean a remote session expired. Pure: the connection passes in what it knows about the call. Outcome kinds
 * (ok | timeout | unavailable | cancelled | upstream_error): `types.ts`. Source: MCP spec, Transports › Streamable HTTP ›
 * Session management (HTTP 404 for an unknown session).
 */
import { ProtocolError, SdkErrorCode, SdkError, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import type { CallOutcome } from './types.js';

/** What the connection knows about a failed call. Times in ms. */
export interface FailedCall {
  /** The idle timeout the call ran with. */
  readonly timeoutMs: number;
  /** The caller's signal fired. */
  readonly aborted: boolean;
  /** The connection the call went out on has closed since. */
  readonly closed: boolean;
  /** Time until the next restart, when one is scheduled. */
  readonly retryInMs?: number;
}

/**
 * Classifies a rejected request. Only the SDK's own time limit counts as a timeout (its error carries
 * `{ timeout }` or `{ maxTotalTimeout }`), and only a close of our own connection as unavailable:
 * servers send -32000 and -32001 as generic errors of their own, which stay upstream errors.
 */
export function classifyFailure(error: unknown, call: FailedCall): CallOutcome {
  if (call.aborted) return { kind: 'cancelled' };
  const unsent = notSentReason(error);
  if (unsent) return { kind: 'upstream_error', message: `the arguments could not be sent: ${unsent}; nothing reached the upstream`, notSent: true };
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const data = error.data as { timeout?: unknown; maxTotalTimeout?: unknown } | undefined;
    if (typeof data?.maxTotalTimeout === 'number') return { kind: 'timeout', ms: data.maxTotalTimeout };
    if (typeof data?.timeout === 'number') return { kind: 'timeout', ms: call.timeoutMs };
  }
  if (call.closed && error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return { kind: 'unavailable', reason: 'the connection closed during the call', ...retry(call) };
  }
  const signIn = signInFailure(error);
  if (signIn) return { kind: 'unavailable', reason: 'it needs sign-in', needsSignIn: true, ...(signIn.stepUpScope ? { stepUpScope: signIn.stepUpScope } : {}) };
  if (error instanceof ProtocolError) return { kind: 'upstream_error', code: error.code, message: error.message };
  return { kind: 'upstream_error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Why a request failed before it left the gateway, or undefined when it may have left. Every
 * transport serialises with `JSON.stringify` before writing, which throws a RangeError for values
 * nested too deeply for the stack or too long for a string; nothing else in a send throws one.
 */
export function notSentReason(error: unknown): string | undefined {
  if (!(error instanceof RangeError)) return undefined;
  if (/call stack/i.test(error.message)) return 'they are nested too deeply to serialise (Maximum call stack size exceeded)';
  return `they could not be serialised (${error.message})`;
}

/**
 * Whether a failure means the upstream needs the user to sign in: the provider's
 * `NeedsSignInError` (matched by name: `upstream/` does not import `auth/`), the SDK's
 * `UnauthorizedError`, or a final HTTP 401/403 after the SDK's own refresh or step-up. Looks through
 * `cause`. `stepUpScope` is set when more scope was asked for (a 403 `insufficient_scope`).
 */
export function signInFailure(error: unknown): { stepUpScope?: string } | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth += 1) {
    if (at.name === 'NeedsSignInError') {
      const { stepUp, scope } = at as Error & { stepUp?: boolean; scope?: string };
      return stepUp && scope ? { stepUpScope: scope } : {};
    }
    if (at instanceof UnauthorizedError) return {};
    if (at instanceof SdkHttpError && (at.status === 401 || at.status === 403)) return {};
  }
  return undefined;
}

/** True when a Streamable HTTP request was refused with 404: the server no longer knows our session. */
export function isSessionExpired(error: unknown): boolean {
  return error instanceof SdkHttpError && error.status === 404;
}

function retry(call: FailedCall): { retryInMs?: number } {
  return call.retryInMs !== undefined ? { retryInMs: call.retryInMs } : {};
}
