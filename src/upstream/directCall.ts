/**
 * A `tools/call` to a stdio upstream sent on its transport directly (directRequests.ts), with what
 * the SDK Client's request would give it: the idle timeout reset by progress (and not running while
 * the upstream waits on the call's client), the total cap, the caller's cancellation (each sends
 * `notifications/cancelled` upstream), progress passed on, the
 * connection's end, and failures read by the same {@link classifyFailure}. On a modern (2026-07-28)
 * connection the request carries the Client's `_meta` envelope, a plain text result is taken as
 * it is, and any other result (an `input_required` round, structured content…) goes on in the
 * Client's own engine (sdkResume.ts). The outcome is the one {@link sendToolCall} gives for the same
 * exchange; only the path is shorter. Source: MCP spec, Utilities ›
 * Cancellation and › Progress; 2026-07-28 Server › Tools (`resultType`); docs/robustness.md.
 */
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SERVER_INFO_META_KEY, type Client } from '@modelcontextprotocol/client';
import { isPlainObject } from '../lib/plainObject.js';
import { isTextBlocks } from '../lib/textContent.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../config/defaults.js';
import { DEFAULT_MAX_TOTAL_MS, withoutServerInfo, type CallContext } from './calls.js';
import { classifyFailure } from './outcome.js';
import { canResume, resumeInClient } from './sdkResume.js';
import { legacyResult } from './directRequests.js';
import { ChildStdioTransport } from './stdioTransport.js';
import { capTotal } from './totalCap.js';
import type { CallOptions, CallOutcome } from './types.js';

/**
 * The transport a direct call can go out on: a child's stdio, on a 2025-era connection, or on a
 * modern one once the Client has sent its envelope and its engine can take over (sdkResume.ts);
 * else undefined.
 */
export function directTransport(client: Client): ChildStdioTransport | undefined {
  const transport = client.transport;
  if (!(transport instanceof ChildStdioTransport)) return undefined;
  const era = client.getProtocolEra();
  return era === 'legacy' || (era === 'modern' && transport.envelope !== undefined && canResume(client)) ? transport : undefined;
}

/**
 * A modern result the direct path settles itself: `resultType: "complete"`, text content, an
 * optional `isError`, and `_meta` holding at most the server's name and version, which the 2026
 * wire schema certainly accepts; returned without `resultType` (as the Client lifts it). Undefined
 * for anything else. Pure.
 */
export function plainModernResult(result: Record<string, unknown>): Record<string, unknown> | undefined {
  for (const key in result) if (key !== 'content' && key !== 'isError' && key !== 'resultType' && key !== '_meta') return undefined;
  const { resultType, ...lifted } = result;
  if (resultType !== 'complete' || !isTextBlocks(result.content) || (result.isError !== undefined && typeof result.isError !== 'boolean')) return undefined;
  return result._meta === undefined || isServerInfoOnly(result._meta) ? lifted : undefined;
}

function isServerInfoOnly(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  for (const key in meta) if (key !== SERVER_INFO_META_KEY) return false;
  const info = meta[SERVER_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined;
  return info === undefined || (typeof info === 'object' && info !== null && typeof info.name === 'string' && typeof info.version === 'string');
}

/**
 * Sends `tools/call` for `name` with `args` on `transport` (the one `client` is connected over)
 * with the idle timeout and total cap in ms that {@link sendToolCall} documents. Resolves to the
 * result verbatim (without the upstream's serverInfo) or a failure outcome. Never rejects.
 */
export function sendDirectToolCall(
  client: Client,
  transport: ChildStdioTransport,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
  context: CallContext,
): Promise<CallOutcome> {
  const timeoutMs = options.timeoutMs ?? context.server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const maxTotalMs = Math.max(timeoutMs, options.maxTotalMs ?? context.server.maxTotalMs ?? DEFAULT_MAX_TOTAL_MS);
  const { signal } = options;
  const modern = client.getProtocolEra() === 'modern';
  const startedAt = Date.now();
  const failure = (error: unknown): CallOutcome => {
    const retryInMs = context.retryInMs();
    return classifyFailure(error, { timeoutMs, aborted: signal?.aborted === true, closed: !context.isCurrent(client), ...(retryInMs !== undefined ? { retryInMs } : {}) });
  };
  if (signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise((resolve) => {
    let id: number | undefined;
    // One timer for both limits, set for the nearer; progress only moves the idle limit, which the
    // timer reads when it fires (no timer churn per progress or per call). Read on the monotonic
    // clock, as timers run: a wall clock set back an hour kept a call waiting an hour.
    let timer: NodeJS.Timeout | undefined;
    const sentAt = performance.now();
    let activeAt = sentAt;
    const stop = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const end = (outcome: CallOutcome): void => {
      stop();
      resolve(outcome);
    };
    // Gives up waiting: the upstream is told, with the reason the SDK Client gives (`String(reason)`) when it abandons a request.
    const giveUp = (error: SdkError | undefined): void => {
      if (id !== undefined) transport.cancelDirect(id, String(error ?? signal?.reason));
      end(error ? failure(error) : { kind: 'cancelled' });
    };
    const onAbort = (): void => giveUp(undefined);
    const watch = (): void => {
      const now = performance.now();
      // Not idle while the upstream waits on the call's client (a person may be answering; callRouting.ts).
      const idleLeft = Math.max(activeAt, context.clientActiveAt()) + timeoutMs - now;
      const totalLeft = sentAt + maxTotalMs - now;
      if (idleLeft <= 0 && idleLeft <= totalLeft) return giveUp(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
      if (totalLeft <= 0) return giveUp(new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: maxTotalMs }));
      timer = setTimeout(watch, Math.min(idleLeft, totalLeft));
    };
    const settleResult = (raw: Record<string, unknown>): void => {
      const plain = modern ? plainModernResult(raw) : legacyResult(raw);
      if (plain) return end({ kind: 'ok', result: withoutServerInfo(plain) });
      // The Client's engine goes on from here, with the rest of the total cap and the same idle timeout.
      stop();
      const capped = capTotal(Math.max(1, maxTotalMs - (performance.now() - sentAt)), signal);
      const params = { name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) };
      const requestOptions = { timeout: timeoutMs, signal: capped.signal, onprogress: (update: { progress: number }) => options.onProgress?.(update), resetTimeoutOnProgress: true };
      resumeInClient(client, params, raw, requestOptions, startedAt)
        .then((result) => resolve({ kind: 'ok', result: withoutServerInfo(result) }), (error: unknown) => resolve(failure(error)))
        .finally(() => capped.dispose());
    };
    try {
      const sent = transport.sendDirect(
        'tools/call',
        (token) => ({ name, arguments: args, _meta: { ...options.meta, progressToken: token } }),
        {
          progress: (params) => {
            activeAt = performance.now();
            options.onProgress?.(params as { progress: number });
          },
          settle: (response) => {
            if (!('result' in response)) return end(failure(ProtocolError.fromError(response.error.code, response.error.message, response.error.data)));
            // A result that is not an object (null, a string) or that the Client's engine throws on must still end the call.
            const raw: unknown = response.result;
            if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return end(failure(new ProtocolError(ProtocolErrorCode.InvalidRequest, 'the upstream answered the call with a result that is not an object')));
            try {
              settleResult(raw as Record<string, unknown>);
            } catch (error) {
              end(failure(error));
            }
          },
          closed: () => end(failure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'))),
        },
      );
      id = sent.id;
      sent.written.catch((error: unknown) => {
        if (transport.forgetDirect(sent.id)) end(failure(error));
      });
    } catch (error) {
      return end(failure(error));
    }
    timer = setTimeout(watch, Math.min(timeoutMs, maxTotalMs));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
