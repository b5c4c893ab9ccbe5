/**
 * What waits unread for one HTTP client: the bytes of its open responses that node:http holds
 * because the client does not read them (a response's own buffer, a pipelined response queued behind
 * the one being written, and the socket's buffer of the one being written). The HTTP front keeps one
 * per legacy session and one per connection for 2026-07-28 requests, and answers a call with a short
 * error instead of its result once `MAX_PENDING_OUTPUT_BYTES` (stdio.ts) wait, as the stdio front does.
 * Source: docs/robustness.md, "Fault fixtures and limits".
 */
import type { ServerResponse } from 'node:http';

/** The error an answer becomes while more than `limitBytes` wait unread for its client (the same words on stdio and HTTP). */
export function unreadRefusal(limitBytes: number): string {
  return `Not sent: over ${(limitBytes / (1024 * 1024)).toFixed(0)} MiB of earlier output wait unread for this client; read it, then retry`;
}

/** The open responses of one HTTP client and the bytes they hold unread. */
export class UnreadBacklog {
  private readonly open = new Set<ServerResponse>();

  /** Counts `res` until it closes. */
  track(res: ServerResponse): void {
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
  }

  /**
   * Bytes written to the open responses and not yet taken by the kernel: each response's `writableLength`
   * (its queued output, plus the socket's buffer for the one the socket is writing; a socket writes
   * one response at a time, so none is counted twice).
   */
  bytes(): number {
    let total = 0;
    for (const res of this.open) total += res.writableLength;
    return total;
  }

  /** Whether more than `limitBytes` wait unread. */
  over(limitBytes: number): boolean {
    return this.bytes() > limitBytes;
  }
}
