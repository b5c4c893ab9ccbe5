/**
 * The total cap on one upstream call as an AbortSignal. The SDK checks its own `maxTotalTimeout`
 * only when progress arrives and then sends no `notifications/cancelled`; aborting the request's
 * signal instead ends the call exactly at the cap and tells the upstream. Source: MCP spec,
 * Utilities › Cancellation and › Progress (receivers should enforce a maximum timeout).
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/** A signal for one request, and `dispose()` to call once it has settled. */
export interface CappedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * A signal that aborts when `caller` does (with its reason) or after `maxTotalMs`, with an
 * `SdkError` RequestTimeout carrying `{ maxTotalTimeout }` as the reason.
 */
export function capTotal(maxTotalMs: number, caller: AbortSignal | undefined): CappedSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: maxTotalMs })),
    maxTotalMs,
  );
  const follow = (): void => controller.abort(caller?.reason);
  if (caller?.aborted) follow();
  else caller?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', follow);
    },
  };
}

/** A {@link CappedSignal} for the idle timeout, with `touch()` for each sign of life (progress). */
export interface IdleSignal extends CappedSignal {
  touch(): void;
}

/**
 * A signal that aborts when `caller` does (with its reason) or once the call was idle `timeoutMs`:
 * no `touch()` and no turn of its client (`clientActiveAt`, performance.now ms: the upstream waits on
 * that client's answer, callRouting.ts) for that long; the reason is an `SdkError` RequestTimeout
 * carrying `{ timeout }`, as the SDK's own idle timeout gives. Replaces that timeout, which knows
 * nothing of the client's turn: a person answering an elicitation for over a minute timed the call
 * out. Read on the monotonic clock, as timers run.
 */
export function capIdle(timeoutMs: number, clientActiveAt: () => number, caller: AbortSignal): IdleSignal {
  const controller = new AbortController();
  let activeAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const watch = (): void => {
    const left = Math.max(activeAt, clientActiveAt()) + timeoutMs - performance.now();
    if (left > 0) timer = setTimeout(watch, left);
    else controller.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
  };
  timer = setTimeout(watch, timeoutMs);
  const follow = (): void => controller.abort(caller.reason);
  if (caller.aborted) follow();
  else caller.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    touch: () => void (activeAt = performance.now()),
    dispose() {
      clearTimeout(timer);
      caller.removeEventListener('abort', follow);
    },
  };
}
