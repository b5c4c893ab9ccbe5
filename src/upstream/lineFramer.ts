/**
 * Splits a child's byte stream (stdout or stderr) into lines with a hard cap per line, so a hostile
 * or broken server can never make the gateway buffer without bound. A line over the cap is dropped
 * whole and reported with its size and its first and last bytes (enough to find a JSON-RPC `id`).
 * Knows nothing of JSON or MCP. Source: docs/robustness.md (results over the stdio message limit,
 * megabytes of stderr).
 */

/** Bytes kept from each end of an oversized line for the report. */
export const OVERSIZE_EDGE_BYTES = 256;

/** A dropped line: its total size in bytes and up to {@link OVERSIZE_EDGE_BYTES} from each end (UTF-8 decoded). */
export interface OversizedLine {
  readonly bytes: number;
  readonly head: string;
  readonly tail: string;
}

/** Splits chunks into lines (without the `\n`, a trailing `\r` removed); lines over `maxBytes` go to `onOversize` instead. */
export class LineFramer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while dropping the rest of an oversized line. */
  private dropped: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (line: OversizedLine) => void,
  ) {}

  /** Feeds one chunk; calls `onLine` or `onOversize` for every line it completes. */
  push(chunk: Buffer): void {
    // The usual chunk: one whole line, nothing held from before. Decoded straight from the chunk.
    if (this.size === 0 && this.dropped === undefined && chunk.length <= this.maxBytes + 1 && chunk.indexOf(0x0a) === chunk.length - 1) {
      return this.onLine(chunk.toString('utf8', 0, chunk[chunk.length - 2] === 0x0d ? chunk.length - 2 : chunk.length - 1));
    }
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
  }

  /** Completes a last line that had no newline (the stream ended). */
  end(): void {
    if (this.size > 0 || this.dropped) this.endLine();
  }

  private endLine(): void {
    const dropped = this.dropped;
    if (dropped) {
      this.onOversize({ bytes: dropped.bytes, head: dropped.head.toString('utf8'), tail: dropped.tail.toString('utf8').replace(/\r$/, '') });
    } else {
      this.onLine(Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, ''));
    }
    this.chunks = [];
    this.size = 0;
    this.dropped = undefined;
  }

  private append(part: Buffer): void {
    if (part.length === 0) return;
    if (this.dropped) {
      this.dropped.bytes += part.length;
      if (this.dropped.head.length < OVERSIZE_EDGE_BYTES) this.dropped.head = Buffer.concat([this.dropped.head, part]).subarray(0, OVERSIZE_EDGE_BYTES);
      this.dropped.tail = lastBytes(Buffer.concat([this.dropped.tail, part]));
      return;
    }
    if (this.size + part.length <= this.maxBytes) {
      this.chunks.push(part);
      this.size += part.length;
      return;
    }
    const parts = [...this.chunks, part];
    this.dropped = { bytes: this.size + part.length, head: firstBytes(parts), tail: Buffer.from(lastBytes(Buffer.concat(lastParts(parts)))) };
    this.chunks = [];
    this.size = 0;
  }
}

/** A copy of the first {@link OVERSIZE_EDGE_BYTES} of `parts` (without joining all of them). */
function firstBytes(parts: readonly Buffer[]): Buffer {
  const head: Buffer[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= OVERSIZE_EDGE_BYTES) break;
    head.push(part.subarray(0, OVERSIZE_EDGE_BYTES - size));
    size += Math.min(part.length, OVERSIZE_EDGE_BYTES - size);
  }
  return Buffer.concat(head);
}

/** The shortest suffix of `parts` holding at least {@link OVERSIZE_EDGE_BYTES}. */
function lastParts(parts: readonly Buffer[]): Buffer[] {
  const tail: Buffer[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < OVERSIZE_EDGE_BYTES; i--) {
    const part = parts[i] as Buffer;
    tail.unshift(part);
    size += part.length;
  }
  return tail;
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= OVERSIZE_EDGE_BYTES ? buffer : buffer.subarray(buffer.length - OVERSIZE_EDGE_BYTES);
}
