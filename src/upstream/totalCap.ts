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
