/**
 * A `tools/call` to a 2025-era stdio upstream sent on its transport directly (directRequests.ts),
 * with what the SDK Client's request would give it: the idle timeout reset by progress, the total
 * cap, the caller's cancellation (each sends `notifications/cancelled` upstream), progress passed
 * on, the connection's end, and failures read by the same {@link classifyFailure}. The outcome is
 * the one {@link sendToolCall} gives for the same exchange; only the path is shorter (issue #9
 * "Numbers"). Source: MCP spec, Utilities › Cancellation and › Progress; DESIGN §11.
 */
import { ProtocolError, SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_TOTAL_MS, withoutServerInfo, type CallContext } from './calls.js';
import { classifyFailure } from './outcome.js';
import { ChildStdioTransport } from './stdioTransport.js';
import type { CallOptions, CallOutcome } from './types.js';

/** The transport a direct call can go out on: a child's stdio, on a 2025-era connection; else undefined. */
export function directTransport(client: Client): ChildStdioTransport | undefined {
  const transport = client.transport;
  return transport instanceof ChildStdioTransport && client.getProtocolEra() === 'legacy' ? transport : undefined;
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
  const failure = (error: unknown): CallOutcome => {
    const retryInMs = context.retryInMs();
    return classifyFailure(error, { timeoutMs, aborted: signal?.aborted === true, closed: !context.isCurrent(client), ...(retryInMs !== undefined ? { retryInMs } : {}) });
  };
  if (signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise((resolve) => {
    let id: number | undefined;
    let idle: NodeJS.Timeout | undefined;
    let total: NodeJS.Timeout | undefined;
    const end = (outcome: CallOutcome): void => {
      clearTimeout(idle);
      clearTimeout(total);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    // Gives up waiting: the upstream is told, with the reason the SDK Client gives (`String(reason)`) when it abandons a request.
    const giveUp = (error: SdkError | undefined): void => {
      if (id !== undefined) transport.cancelDirect(id, String(error ?? signal?.reason));
      end(error ? failure(error) : { kind: 'cancelled' });
    };
    const onAbort = (): void => giveUp(undefined);
    const armIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => giveUp(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })), timeoutMs);
    };
    try {
      const sent = transport.sendDirect(
        'tools/call',
        (token) => ({ name, arguments: args, _meta: { ...options.meta, progressToken: token } }),
        {
          progress: (params) => {
            armIdle();
            options.onProgress?.(params as { progress: number });
          },
          settle: (response) => {
            if ('result' in response) end({ kind: 'ok', result: withoutServerInfo(response.result) });
            else end(failure(ProtocolError.fromError(response.error.code, response.error.message, response.error.data)));
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
    armIdle();
    total = setTimeout(() => giveUp(new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: maxTotalMs })), maxTotalMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
