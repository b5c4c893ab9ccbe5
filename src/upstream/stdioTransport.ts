/**
 * An MCP client transport over a child process's stdin/stdout, framed as newline-delimited JSON-RPC.
 * Replaces the SDK's StdioClientTransport so the child runs in its own process group and is ended as
 * a group (see `process.ts`). A malformed line is reported and skipped; a message over the size limit
 * is dropped, and the request it answered fails at once instead of waiting for its timeout: the
 * connection survives a noisy or broken server. The connection ends when the child exits, even if a
 * process it started still holds its stdout, or when it closes its stdout while running.
 * Source: MCP spec, Transports › stdio; docs/robustness.md; `test/e2e/upstreamFaults.e2e.test.ts` (an exit behind a
 * grandchild holding stdout went unnoticed: no restart, every call failing forever).
 */
import type { ChildProcess } from 'node:child_process';
import { JSONRPCErrorResponseSchema, JSONRPCNotificationSchema, JSONRPCRequestSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/core';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { nextDrain } from '../lib/drain.js';
import { isPlainJsonRpcMessage } from '../lib/jsonRpcShape.js';
import { DirectRequests, type DirectHandlers } from './directRequests.js';
import { LineFramer, type OversizedLine } from './lineFramer.js';
import { childPath, groupAlive, killGroup, killGroupNow, SpawnError, spawnFailure, spawnGroup, spawnProblem, type SpawnSpec } from './process.js';
import type { GroupRegistry } from './watchdog.js';

/** Longest accepted stdout message in bytes (64 MiB); a longer line is dropped whole. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

type RequestId = string | number;

const ID = String.raw`("(?:[^"\\]|\\.)*"|-?\d+)`;
/** `{"jsonrpc":"2.0","id":…` or `{"id":…` at the start of a line: the id belongs to the top-level object. */
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** `…,"id":…}` closing the line: one brace after the value, so the id belongs to the top-level object. */
const TAIL_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);
/** A request or notification from the server rather than a response. */
const HEAD_METHOD = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*[^,]+,\s*)?"method"\s*:/;

/**
 * The JSON-RPC id of a dropped oversized line, read from its first or last bytes, when the id sits
 * at the start (`{"jsonrpc":"2.0","id":7,"result":…`, Python SDK order) or the end
 * (`{"result":…,"jsonrpc":"2.0","id":7}`, TypeScript SDK order) of the top-level object; undefined
 * when it cannot be told, or when the line is a request from the server.
 */
export function oversizedResponseId(line: OversizedLine): RequestId | undefined {
  if (HEAD_METHOD.test(line.head)) return undefined;
  const match = HEAD_ID.exec(line.head) ?? TAIL_ID.exec(line.tail);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as RequestId;
  } catch {
    return undefined;
  }
}

/**
 * `value` as a JSON-RPC message, checked against the one schema its keys point to; undefined when
 * it is not one. The common shapes skip the schema ({@link isPlainJsonRpcMessage}). Parsing against
 * the union of all four builds an error for every branch that fails:
 * 100,000 log messages then cost the gateway 4.8 s of CPU instead of 3.4 s.
 */
function asMessage(value: unknown): JSONRPCMessage | undefined {
  if (isPlainJsonRpcMessage(value)) return value as JSONRPCMessage;
  const record = value !== null && typeof value === 'object' ? value : {};
  const parsed =
    'method' in record
      ? 'id' in record
        ? JSONRPCRequestSchema.safeParse(value)
        : JSONRPCNotificationSchema.safeParse(value)
      : 'error' in record
        ? JSONRPCErrorResponseSchema.safeParse(value)
        : JSONRPCResultResponseSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY] as const;

/**
 * The 2026-07-28 envelope of a request's `_meta` (SDK 2.4.0 `outboundEnvelope`: exactly these three
 * keys for a Client), when it carries all three; undefined otherwise. `server/discover` is not read:
 * it is the era probe, sent before the era is known (a 2025-era connection's requests carry none).
 */
function envelopeOf(message: JSONRPCMessage): Record<string, unknown> | undefined {
  if (!('method' in message) || !('id' in message) || message.method === 'server/discover') return undefined;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  if (meta === undefined || ENVELOPE_KEYS.some((key) => meta[key] === undefined)) return undefined;
  return Object.fromEntries(ENVELOPE_KEYS.map((key) => [key, meta[key]]));
}

/** How long output already written by a child that exited (or closed its stdout) is still read, in ms. */
export const EXIT_DRAIN_MS = 100;

/**
 * Transport for one stdio upstream. `start()` spawns the process; `close()` ends its process group.
 * The connection ends (`onclose`, requests in flight fail at once) when the child exits, even while a
 * process it started keeps the pipes open, or when it closes its stdout while still running; the
 * rest of its process group is then ended.
 */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private closed = false;
  private exited = false;
  private drainTimer: NodeJS.Timeout | undefined;
  private groupEnded: Promise<void> | undefined;
  /** Ids of our requests still waiting for a response, so a dropped oversized response can fail the right one. */
  private readonly pending = new Set<RequestId>();
  /** Requests sent beside the SDK Client (directRequests.ts). */
  private readonly direct = new DirectRequests();
  /** The 2026-07-28 `_meta` envelope the Client puts on its requests, once it sent one (modern era only). */
  private modernEnvelope: Record<string, unknown> | undefined;

  constructor(
    private readonly spec: SpawnSpec,
    private readonly baseDir: string,
    private readonly onStderrLine: (line: string) => void,
    /** Told of the child's process group while it lives, so it is ended even if the gateway is killed. */
    private readonly groups?: GroupRegistry,
  ) {}

  /** PID of the process-group leader, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Always null: stderr lines go to `onStderrLine`. Present so the SDK's era probe sees a stdio
   * transport, where a silent server is a legacy one rather than an outage.
   */
  get stderr(): null {
    return null;
  }

  /** How the connection ended on the server's side: it exited, or it closed its stdout while running. Undefined while open. */
  get endedBy(): 'exited' | 'closed its stdout' | undefined {
    if (!this.closed) return undefined;
    return this.exited ? 'exited' : 'closed its stdout';
  }

  /**
   * Spawns the child; rejects with a {@link SpawnError} if it cannot be started (working folder
   * missing, command not found or not runnable).
   */
  start(): Promise<void> {
    return new Promise((resolveStart, rejectStart) => {
      const problem = spawnProblem(this.spec, this.baseDir);
      if (problem) return rejectStart(new SpawnError(problem));
      let child: ChildProcess;
      try {
        child = spawnGroup(this.spec, this.baseDir, this.onStderrLine);
      } catch (error) {
        return rejectStart(spawnFailure(error, this.spec.command, childPath(this.spec, this.baseDir)));
      }
      this.child = child;
      const framer = new LineFramer(MAX_LINE_BYTES, (line) => this.handleLine(line), (line) => this.handleOversized(line));
      child.once('spawn', () => {
        if (child.pid !== undefined) this.groups?.adopt(child.pid);
        resolveStart();
      });
      child.once('error', (error) => {
        rejectStart(spawnFailure(error, this.spec.command, childPath(this.spec, this.baseDir)));
        this.finish();
      });
      // 'close' needs every stdio stream closed, which a grandchild holding stdout prevents: the
      // child's own exit, or the end of its stdout, ends the connection after a short drain.
      child.once('close', () => this.disconnect());
      child.once('exit', () => {
        this.exited = true;
        this.disconnectAfterDrain();
      });
      child.stdout?.on('data', (chunk: Buffer) => framer.push(chunk));
      child.stdout?.on('end', () => {
        framer.end();
        this.disconnectAfterDrain();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
    });
  }

  private handleLine(line: string): void {
    if (line.trim() === '' || this.closed) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.onerror?.(new Error(`not JSON on stdout: ${line.slice(0, 120)}`));
      return;
    }
    if (this.direct.route(parsed)) return;
    const data = asMessage(parsed);
    if (!data) {
      this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 120)}`));
      this.failMalformedResponse(parsed);
      return;
    }
    if ('method' in data) return this.onmessage?.(data);
    if (data.id !== undefined) this.pending.delete(data.id);
    // The SDK handles notifications a microtask late but responses at once, dropping the progress
    // handler with the response: a final progress read in the same chunk as its response would be
    // lost. Delivering responses a microtask later keeps the server's order.
    queueMicrotask(() => this.onmessage?.(data));
  }

  /**
   * A message over {@link MAX_LINE_BYTES} was dropped. When it answers one of our pending requests,
   * that request fails at once with an internal error instead of waiting for its timeout.
   */
  private handleOversized(line: OversizedLine): void {
    const reason = `the upstream sent a message of ${line.bytes} bytes, over the stdio limit of ${MAX_LINE_BYTES} bytes`;
    this.onerror?.(new Error(`dropped a message: ${reason}`));
    const id = oversizedResponseId(line);
    if (this.direct.settle(id, { error: { code: ProtocolErrorCode.InternalError, message: reason } })) return;
    if (id === undefined || !this.pending.delete(id)) return;
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message: reason } });
  }

  /**
   * A line that is no JSON-RPC message was dropped. When it carries the id of one of our pending
   * requests and no method (an answer whose result is null, a string, or an object the schema
   * refuses), that request fails at once instead of waiting for its timeout.
   */
  private failMalformedResponse(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || 'method' in value) return;
    const id = (value as { id?: unknown }).id;
    const reason = 'the upstream answered with a message that is not a valid JSON-RPC response (a result must be an object)';
    if (this.direct.settle(id, { error: { code: ProtocolErrorCode.InternalError, message: reason } })) return;
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.pending.delete(id)) return;
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message: reason } });
  }

  /** Output the child wrote before exiting is still in the pipe: read it for {@link EXIT_DRAIN_MS}, then disconnect. */
  private disconnectAfterDrain(): void {
    if (this.closed || this.drainTimer) return;
    this.drainTimer = setTimeout(() => this.disconnect(), EXIT_DRAIN_MS);
  }

  /** The server side is gone: close the connection and end whatever is left of the process group. */
  private disconnect(): void {
    this.finish();
    void this.endGroup();
  }

  private finish(): void {
    clearTimeout(this.drainTimer);
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    // After the Client's own close handling, so a direct call sees its connection already replaced.
    this.direct.closeAll();
  }

  /** Ends the child's process group once, however many callers ask. */
  private endGroup(): Promise<void> {
    const child = this.child;
    this.groupEnded ??= child ? killGroup(child).then(() => this.releaseGroup(child.pid)) : Promise.resolve();
    return this.groupEnded;
  }

  /** The group is gone: the watchdog forgets it (a group SIGKILL could not end stays listed). */
  private releaseGroup(pid: number | undefined): void {
    if (pid !== undefined && !groupAlive(pid)) this.groups?.release(pid);
  }

  /**
   * Writes one message; waits for the pipe to drain when it is full. A message that cannot be
   * serialised (a RangeError: nested too deeply, too long) rejects before anything is written.
   */
  send(message: JSONRPCMessage): Promise<void> {
    let line: string;
    try {
      line = this.serialise(message);
    } catch (error) {
      return Promise.reject(error);
    }
    this.track(message);
    this.modernEnvelope ??= envelopeOf(message);
    return this.writeLine(line);
  }

  /**
   * The 2026-07-28 `_meta` envelope (protocol version, client info, client capabilities) the SDK
   * Client sends with every request of a modern connection, as read off the first one it sent;
   * undefined on a 2025-era connection or before any request. Direct requests carry it too.
   */
  get envelope(): Readonly<Record<string, unknown>> | undefined {
    return this.modernEnvelope;
  }

  /**
   * Sends request `method` with the params `build` makes from its id (negative, also its progress
   * token) beside the SDK Client: its response and progress go to `handlers` alone, and so does the
   * end of the connection. Returns the id. @throws what the write throws at once (a RangeError for
   * params JSON cannot hold, or the process not running): nothing was sent.
   */
  sendDirect(method: string, build: (id: number) => Record<string, unknown>, handlers: DirectHandlers): { id: number; written: Promise<void> } {
    const id = this.direct.nextId();
    const message = { jsonrpc: '2.0', id, method, params: this.enveloped(build(id)) } as JSONRPCMessage;
    const line = this.serialise(message);
    this.direct.add(id, handlers);
    return { id, written: this.writeLine(line) };
  }

  /** Stops waiting for direct request `id` and tells the upstream it is cancelled (MCP spec, Utilities › Cancellation). */
  cancelDirect(id: number, reason: string): void {
    if (this.direct.forget(id)) void this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: this.enveloped({ requestId: id, reason }) }).catch(() => undefined);
  }

  /** `params` with the modern envelope first in `_meta`, as the SDK Client puts it on its own messages (its keys yield to the caller's). */
  private enveloped(params: Record<string, unknown>): Record<string, unknown> {
    const envelope = this.modernEnvelope;
    return envelope ? { ...params, _meta: { ...envelope, ...(params._meta as Record<string, unknown> | undefined) } } : params;
  }

  /** Stops waiting for direct request `id` without a word to the upstream (it was never written); true when it was waiting. */
  forgetDirect(id: number): boolean {
    return this.direct.forget(id);
  }

  /** `message` as one line. @throws the process not running; a RangeError for what JSON cannot hold. */
  private serialise(message: JSONRPCMessage): string {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed) throw new Error('upstream process is not running');
    return `${JSON.stringify(message)}\n`;
  }

  /** Writes `line`; resolves at once, or when a full pipe drains (one wait for all queued lines: lib/drain.ts); rejects on a write error. */
  private writeLine(line: string): Promise<void> {
    const stdin = this.child!.stdin!;
    return new Promise((resolveSend, rejectSend) => {
      const ok = stdin.write(line, (error) => (error ? rejectSend(error) : undefined));
      if (ok) resolveSend();
      else nextDrain(stdin).then(resolveSend, () => undefined);
    });
  }

  private track(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) this.pending.add(message.id);
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.pending.delete(requestId);
    }
  }

  /** SIGKILLs the process group at once (synchronous, for `process.on('exit')`). */
  killNow(): void {
    if (this.child) killGroupNow(this.child);
  }

  /** Ends the child's whole process group and resolves when it is gone. */
  async close(): Promise<void> {
    await this.endGroup();
    this.finish();
  }
}
