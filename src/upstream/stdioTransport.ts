/**
 * An MCP client transport over a child process's stdin/stdout, framed as newline-delimited JSON-RPC.
 * Replaces the SDK's StdioClientTransport so the child runs in its own process group and is ended as
 * a group (see `process.ts`). A malformed line or an oversized message is reported and skipped: the
 * connection survives a noisy or broken server. Source: MCP spec, Transports › stdio.
 */
import type { ChildProcess } from 'node:child_process';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { killGroup, killGroupNow, spawnGroup, type SpawnSpec } from './process.js';

/** Longest accepted stdout line in bytes; longer lines are dropped whole (64 MiB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Splits a byte stream into lines, dropping (and reporting) lines longer than `maxBytes`. */
export class LineFramer {
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number) => void,
  ) {}

  /** Feeds one chunk; calls `onLine` for every complete line. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.append(chunk.subarray(start, nl));
      if (!this.skipping) this.onLine(Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, ''));
      this.chunks = [];
      this.size = 0;
      this.skipping = false;
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
  }

  private append(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > this.maxBytes) {
      this.onOversize(this.size + part.length);
      this.chunks = [];
      this.size = 0;
      this.skipping = true;
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
  }
}

/** Transport for one stdio upstream. `start()` spawns the process; `close()` ends its process group. */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private closed = false;

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
      const framer = new LineFramer(MAX_LINE_BYTES, (line) => this.handleLine(line), (bytes) =>
        this.onerror?.(new Error(`dropped a message of over ${bytes} bytes (limit ${MAX_LINE_BYTES})`)),
      );
      child.once('spawn', () => resolveStart());
      child.once('error', (error) => {
        rejectStart(error);
        this.finish();
      });
      child.once('close', () => this.finish());
      child.stdout?.on('data', (chunk: Buffer) => framer.push(chunk));
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
    if (message.success) this.onmessage?.(message.data);
    else this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${line.slice(0, 120)}`));
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
    return new Promise((resolveSend, rejectSend) => {
      const ok = stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? rejectSend(error) : undefined));
      if (ok) resolveSend();
      else stdin.once('drain', () => resolveSend());
    });
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
