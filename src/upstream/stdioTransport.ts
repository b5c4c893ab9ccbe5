/**
 * An MCP client transport over a child process's stdin/stdout, framed as newline-delimited JSON-RPC.
 * Replaces the SDK's StdioClientTransport so the child runs in its own process group and is ended as
 * a group (see `process.ts`). A malformed line is reported and skipped; a message over the size limit
 * is dropped, and the request it answered fails at once instead of waiting for its timeout: the
 * connection survives a noisy or broken server. Source: MCP spec, Transports › stdio; issue #5 item 3.
 */
import type { ChildProcess } from 'node:child_process';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LineFramer, type OversizedLine } from './lineFramer.js';
import { killGroup, killGroupNow, spawnGroup, type SpawnSpec } from './process.js';

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

/** Transport for one stdio upstream. `start()` spawns the process; `close()` ends its process group. */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private closed = false;
  /** Ids of our requests still waiting for a response, so a dropped oversized response can fail the right one. */
  private readonly pending = new Set<RequestId>();

  constructor(
    private readonly spec: SpawnSpec,
    private readonly baseDir: string,
    private readonly onStderrLine: (line: string) => void,
  ) {}

  /** PID of the process-group leader, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the child; rejects if it cannot be started (e.g. command not found). */
  start(): Promise<void> {
    return new Promise((resolveStart, rejectStart) => {
      const child = spawnGroup(this.spec, this.baseDir, this.onStderrLine);
      this.child = child;
      const framer = new LineFramer(MAX_LINE_BYTES, (line) => this.handleLine(line), (line) => this.handleOversized(line));
      child.once('spawn', () => resolveStart());
      child.once('error', (error) => {
        rejectStart(error);
        this.finish();
      });
      child.once('close', () => this.finish());
      child.stdout?.on('data', (chunk: Buffer) => framer.push(chunk));
      child.stdout?.on('end', () => framer.end());
      child.stdin?.on('error', (error) => this.onerror?.(error));
    });
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.onerror?.(new Error(`not JSON on stdout: ${line.slice(0, 120)}`));
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 120)}`));
      return;
    }
    const data = message.data;
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
    if (id === undefined || !this.pending.delete(id)) return;
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: reason } });
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** Writes one message; waits for the pipe to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed) return Promise.reject(new Error('upstream process is not running'));
    this.track(message);
    return new Promise((resolveSend, rejectSend) => {
      const ok = stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? rejectSend(error) : undefined));
      if (ok) resolveSend();
      else stdin.once('drain', () => resolveSend());
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
    const child = this.child;
    if (child) await killGroup(child);
    this.finish();
  }
}
