/**
 * Append-only JSON-lines trace sink (`--trace FILE`), flushed at shutdown. Source: DESIGN §10.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { TraceEvent, TraceSink } from './events.js';

/**
 * Opens `path` for appending; each event becomes one line with an ISO `time` field first. A new file
 * is created 0600: with `captureToolIo` it holds queries and arguments, which are the user's alone.
 */
export function openJsonlTrace(path: string): TraceSink {
  const stream: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  let failed = false;
  stream.on('error', (error) => {
    if (!failed) process.stderr.write(`toolshelf: warn: trace file ${path}: ${error.message}\n`);
    failed = true;
  });
  return {
    record(event: TraceEvent): void {
      if (failed) return;
      stream.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
    },
    close(): Promise<void> {
      return new Promise((resolve) => stream.end(resolve));
    },
  };
}

/** A sink that keeps nothing. */
export const nullTrace: TraceSink = { record() {}, close: async () => {} };
