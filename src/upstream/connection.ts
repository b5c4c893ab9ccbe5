/**
 * class UpstreamConnection: one upstream MCP server seen as a client. Owns the SDK Client, start-up,
 * restarts with backoff, the debounced re-list on `notifications/tools/list_changed`, and per-call
 * timeout, cancellation and progress. Knows no qualified names or exposure. An upstream failure never
 * escapes it: calls resolve to a {@link CallOutcome}. Source: DESIGN §9, §11.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamTool } from '../catalog/types.js';
import { isRemote, type ServerConfig } from '../config/types.js';
import type { Logger } from '../trace/log.js';
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { listAllTools } from './listTools.js';
import type { ChildStdioTransport } from './stdioTransport.js';
import { remoteTransports, stdioTransport } from './transport.js';
import type { CallOptions, CallOutcome, UpstreamStatus } from './types.js';

/** Debounce window for bursts of upstream list_changed, in ms (server-everything sends seven in a row; DESIGN §9). */
export const LIST_CHANGED_DEBOUNCE_MS = 100;
/** Longest wait for `initialize` + first `tools/list`, in ms. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** Default per-call timeout in ms, reset by progress (the SDK's own default). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Total cap on one call even while progress keeps arriving, in ms. */
export const DEFAULT_MAX_TOTAL_MS = 600_000;

/** Construction options. `random` and `backoff` are injectable for tests. */
export interface ConnectionOptions {
  readonly baseDir: string;
  readonly logger: Logger;
  readonly version: string;
  /** Called after the tool list changed (re-list after list_changed or after a restart). */
  readonly onToolsChanged: (key: string) => void;
  /** Every other notification from the upstream (resources, prompts, logging), for pass-through. */
  readonly onNotification?: (key: string, notification: { method: string; params?: Record<string, unknown> }) => void;
  readonly startTimeoutMs?: number;
  readonly backoff?: BackoffOptions;
  readonly random?: () => number;
}

export class UpstreamConnection {
  /** The upstream's tools as last listed, verbatim. Kept while the upstream is down. */
  tools: readonly UpstreamTool[] = [];
  status: UpstreamStatus = 'starting';
  /** Why the upstream is down or failed, for messages and summaries. */
  lastError = '';
  private client: Client | undefined;
  private transport: Transport | undefined;
  private attempt = 0;
  private retryAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private relistTimer: NodeJS.Timeout | undefined;
  private relisting: Promise<void> | undefined;
  private relistAgain = false;
  private readonly stderrTail: string[] = [];

  constructor(
    readonly key: string,
    private readonly server: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  /** Connects and lists tools. Never rejects: on failure the status is `failed` and a retry is scheduled. */
  async start(): Promise<void> {
    try {
      await this.connect();
      this.attempt = 0;
      this.status = 'ready';
    } catch (error) {
      this.lastError = describe(error, this.stderrTail);
      this.status = this.tools.length > 0 ? 'down' : 'failed';
      this.options.logger.error(`upstream "${this.key}" failed to start: ${this.lastError}`);
      await this.dropClient();
      this.scheduleRestart();
    }
  }

  private async connect(): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const candidates = isRemote(this.server)
      ? remoteTransports(this.server)
      : [() => stdioTransport(this.server as never, this.options.baseDir, (line) => this.onStderr(line))];
    let lastError: unknown;
    for (const make of candidates) {
      const client = new Client({ name: 'toolshelf', version: this.options.version }, { capabilities: {} });
      const transport = make();
      try {
        await client.connect(transport, { timeout: timeoutMs });
        this.attach(client, transport);
        await this.relist(timeoutMs);
        return;
      } catch (error) {
        lastError = error;
        await client.close().catch(() => undefined);
        await transport.close().catch(() => undefined);
      }
    }
    throw lastError;
  }

  private attach(client: Client, transport: Transport): void {
    this.client = client;
    this.transport = transport;
    client.onclose = () => this.onClosed(client);
    client.onerror = (error) => this.options.logger.debug(`upstream "${this.key}": ${error.message}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.scheduleRelist());
    client.fallbackNotificationHandler = async (notification) =>
      this.options.onNotification?.(this.key, notification as { method: string; params?: Record<string, unknown> });
  }

  /** What the upstream declared at initialize; undefined while it is not connected. */
  get capabilities(): Record<string, unknown> | undefined {
    return this.status === 'ready' ? (this.client?.getServerCapabilities() as Record<string, unknown> | undefined) : undefined;
  }

  /**
   * Sends any request upstream (resources, prompts, completion, logging) with the per-call timeout;
   * the result is kept verbatim. Never rejects: failures come back with a JSON-RPC code.
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ ok: true; result: Record<string, unknown> } | { ok: false; error: { code: number; message: string } }> {
    const client = this.client;
    if (!client || this.status !== 'ready') return { ok: false, error: { code: ErrorCode.InternalError, message: `unavailable: ${this.lastError || this.status}` } };
    try {
      const result = await client.request({ method, ...(params ? { params } : {}) } as never, ResultSchema, {
        timeout: this.server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return { ok: true, result: result as Record<string, unknown> };
    } catch (error) {
      const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
      return { ok: false, error: { code, message: error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error) } };
    }
  }

  private onStderr(line: string): void {
    this.stderrTail.push(line.slice(0, 500));
    if (this.stderrTail.length > 10) this.stderrTail.shift();
    this.options.logger.debug(`[${this.key}] ${line.slice(0, 2000)}`);
  }

  private onClosed(client: Client): void {
    if (client !== this.client || this.status === 'closed') return;
    this.client = undefined;
    this.transport = undefined;
    this.status = 'down';
    this.lastError = `the server exited${this.stderrTail.length ? `: ${this.stderrTail.at(-1)}` : ''}`;
    this.options.logger.warn(`upstream "${this.key}" disconnected; ${this.lastError}`);
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.status === 'closed') return;
    this.attempt += 1;
    const delay = backoffDelayMs(this.attempt, (this.options.random ?? Math.random)(), this.options.backoff ?? DEFAULT_BACKOFF);
    if (delay === undefined) {
      this.retryAt = 0;
      this.options.logger.error(`upstream "${this.key}" gave up after ${this.attempt - 1} restarts`);
      return;
    }
    this.retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => void this.restart(), delay);
    this.retryTimer.unref();
  }

  private async restart(): Promise<void> {
    if (this.status === 'closed') return;
    const before = JSON.stringify(this.tools);
    await this.start();
    if (this.status === 'ready') {
      this.options.logger.info(`upstream "${this.key}" is back with ${this.tools.length} tools`);
      if (JSON.stringify(this.tools) !== before) this.options.onToolsChanged(this.key);
    }
  }

  private scheduleRelist(): void {
    clearTimeout(this.relistTimer);
    this.relistTimer = setTimeout(() => void this.relistAndNotify(), LIST_CHANGED_DEBOUNCE_MS);
    this.relistTimer.unref();
  }

  private async relistAndNotify(): Promise<void> {
    if (this.relisting) {
      this.relistAgain = true;
      return;
    }
    const before = JSON.stringify(this.tools);
    this.relisting = this.relist(this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS).catch((error) =>
      this.options.logger.warn(`upstream "${this.key}": re-list failed: ${describe(error, [])}`),
    );
    await this.relisting;
    this.relisting = undefined;
    if (JSON.stringify(this.tools) !== before) this.options.onToolsChanged(this.key);
    if (this.relistAgain) {
      this.relistAgain = false;
      this.scheduleRelist();
    }
  }

  private async relist(timeoutMs: number): Promise<void> {
    const client = this.client;
    if (!client) return;
    const parsed = await listAllTools(
      (cursor) =>
        client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ResultSchema, { timeout: timeoutMs }) as Promise<
          Record<string, unknown>
        >,
    );
    for (const skipped of parsed.skipped) {
      this.options.logger.warn(`upstream "${this.key}": dropped tool ${skipped.name}: ${skipped.reason}`);
    }
    this.tools = parsed.tools;
  }

  /**
   * Calls `tools/call` upstream with the tool's upstream name. Resolves to the result verbatim, or to
   * a timeout / unavailable / cancelled / upstream_error outcome; never rejects.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallOutcome> {
    const client = this.client;
    if (!client || this.status !== 'ready') {
      const retryInMs = this.retryAt > 0 ? Math.max(0, this.retryAt - Date.now()) : undefined;
      return { kind: 'unavailable', reason: this.lastError || this.status, retryInMs };
    }
    const timeoutMs = options.timeoutMs ?? this.server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.meta) params._meta = options.meta;
    try {
      const result = await client.request({ method: 'tools/call', params } as never, ResultSchema, {
        timeout: timeoutMs,
        maxTotalTimeout: Math.max(timeoutMs, options.maxTotalMs ?? DEFAULT_MAX_TOTAL_MS),
        signal: options.signal,
        ...(options.onProgress ? { onprogress: options.onProgress, resetTimeoutOnProgress: true } : {}),
      });
      return { kind: 'ok', result: result as Record<string, unknown> };
    } catch (error) {
      return classify(error, timeoutMs, options.signal);
    }
  }

  /** Synchronous last resort at process exit: kill a stdio upstream's process group. */
  killNow(): void {
    (this.transport as Partial<ChildStdioTransport> | undefined)?.killNow?.();
  }

  /** Stops retries and ends the upstream (its whole process group for stdio). */
  async close(): Promise<void> {
    this.status = 'closed';
    clearTimeout(this.retryTimer);
    clearTimeout(this.relistTimer);
    await this.dropClient();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    await client?.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  }
}

function classify(error: unknown, timeoutMs: number, signal: AbortSignal | undefined): CallOutcome {
  if (signal?.aborted) return { kind: 'cancelled' };
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { kind: 'timeout', ms: timeoutMs };
  // -32000 is also what many servers send as a generic error: only the SDK's own local close counts.
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && /connection closed/i.test(error.message))
    return { kind: 'unavailable', reason: 'the connection closed during the call' };
  if (error instanceof McpError) return { kind: 'upstream_error', code: error.code, message: error.message.replace(/^MCP error -?\d+: /, '') };
  return { kind: 'upstream_error', message: error instanceof Error ? error.message : String(error) };
}

function describe(error: unknown, stderrTail: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  const tail = stderrTail.filter((l) => l.trim()).slice(-3).join(' | ');
  return tail ? `${message} (stderr: ${tail})` : message;
}
