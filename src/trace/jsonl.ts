/**
 * Append-only JSON-lines trace sink (`--trace FILE`), flushed at shutdown. Source: docs/cli.md.
 */
import { constants, createWriteStream, type WriteStream } from 'node:fs';
import { openNoFollow } from '../lib/stateDir.js';
import type { TraceEvent, TraceSink } from './events.js';

/**
 * Opens `path` for appending; each event becomes one line with an ISO `time` field first. A new file
 * is created 0600: with `captureToolIo` it holds queries and arguments, which are the user's alone.
 * A symbolic link at `path` is not followed (docs/security.md, "Local state and environment"): like
 * any file that cannot be opened, it is named in one warning and nothing is traced.
 */
export function openJsonlTrace(path: string): TraceSink {
  const warn = (message: string): void => void process.stderr.write(`toolshelf: warn: trace file ${path}: ${message}\n`);
  let fd: number;
  try {
    fd = openNoFollow(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  } catch (error) {
    warn((error as Error).message);
    return nullTrace;
  }
  const stream: WriteStream = createWriteStream(path, { fd });
  let failed = false;
  stream.on('error', (error) => {
    if (!failed) warn(error.message);
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
