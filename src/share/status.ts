/**
 * What a shared instance tells every client's stderr: its start-up summary, when
 * its upstreams are up, and why one failed. Over stdio a client shows its server's stderr in its MCP
 * log, but a relayed client's stderr is its relay's, while the instance's lines went to the instance's
 * log file alone: an upstream that failed to start left a Claude Desktop user with no tools and no
 * reason. The instance writes these lines to a status file; each relay prints the ones it
 * has not printed yet while its client is connected. Only instance-wide lines go there, never a
 * session's (those could tell one client of another's calls).
 * File format: the instance's pid on the first line, then one `<sequence> <text>` line per entry.
 */
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { printableLine } from '../lib/printable.js';
import type { Logger } from '../trace/log.js';

/** Most lines the file keeps (the oldest go first): a start summary and a few upstream changes fit. */
export const MAX_STATUS_LINES = 40;
/** Longest line, in characters: an upstream's error can be megabytes, and every relay reads the file each second. */
export const MAX_STATUS_LINE_CHARS = 1000;
/** Most bytes a relay reads of the file: {@link MAX_STATUS_LINES} full lines fit (3 bytes a character at most, and the sequence numbers). */
const MAX_STATUS_FILE_BYTES = 256 * 1024;
/** Most relayed warning lines the file keeps (the oldest go first), so they never push out the summary. */
export const MAX_WARNING_LINES = 20;
/** Most distinct warnings remembered as relayed; past it a warning may be relayed again, never more. */
const MAX_REMEMBERED_WARNINGS = 1000;
/** Topic of the relayed warnings ({@link relayWarnings}). */
const WARNING_TOPIC = 'warning';
/** How often a relay reads the status file for new lines, in ms (a file of a few hundred bytes). */
export const STATUS_POLL_MS = 1000;

/**
 * The writing side, in the instance. Never throws (a status that cannot be written is only lost).
 * A line under a topic replaces the topic's earlier lines, so a client that connects later reads the
 * state as it is ("upstreams now: 4/4 connected"), not the history ("0/4 connected … starting"),
 * while a connected one sees each change as a new line.
 */
export interface StatusWriter {
  /** Adds `line` for every client, now and later; with a `topic`, in place of that topic's lines so far. */
  add(line: string, topic?: string): void;
  /** Puts `lines` in place of the lines of `topic` so far (none: the topic's lines go). */
  set(topic: string, lines: readonly string[]): void;
  /** Adds `lines` after the topic's earlier lines, in one write; a topic of appended lines keeps its last {@link MAX_WARNING_LINES}. */
  append(topic: string, lines: readonly string[]): void;
}

/** A writer for the status file at `path`, owned by this process; the file starts empty. */
export function statusWriter(path: string): StatusWriter {
  let entries: { readonly text: string; readonly topic: string | undefined }[] = [];
  let sequence = 0;
  const put = (topic: string | undefined, added: readonly string[], keep = false): void => {
    if (topic !== undefined && !keep) entries = entries.filter((entry) => entry.topic !== topic);
    for (const line of added) entries.push({ text: `${(sequence += 1)} ${printableLine(line, MAX_STATUS_LINE_CHARS)}`, topic });
    const same = keep ? entries.filter((entry) => entry.topic === topic) : [];
    if (same.length > MAX_WARNING_LINES) {
      const dropped = new Set(same.slice(0, same.length - MAX_WARNING_LINES));
      entries = entries.filter((entry) => !dropped.has(entry));
    }
    entries = entries.slice(-MAX_STATUS_LINES);
    write();
  };
  const write = (): void => {
    const lines = entries.map((entry) => entry.text);
    try {
      // A rename replaces the file whole: a relay never reads half of it. A new file each time ('wx'),
      // so a link left at the temporary path is replaced, never written through.
      rmSync(`${path}.tmp`, { force: true });
      writeFileSync(`${path}.tmp`, `${process.pid}\n${lines.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(`${path}.tmp`, path);
    } catch {
      // The folder went away (the instance is ending): nothing to tell.
    }
  };
  write();
  return {
    add: (line, topic) => put(topic, [line]),
    set: (topic, lines) => put(topic, lines),
    append: (topic, lines) => put(topic, lines, true),
  };
}

/**
 * Warnings no relayed client is told: a disconnect's line quotes what the upstream printed while it
 * served some client's call (test/e2e/shared.e2e.test.ts), and a failed start is told by the `failures` topic already.
 */
const NOT_RELAYED = [/^upstream ".*" disconnected; /s, /^upstream ".*" failed to start: /s];

/**
 * `logger` that also adds each warning and error it writes to `status` for every relayed client, once
 * per text (a gateway of its own prints them on its client's stderr; a shared instance's went to its
 * log alone): a tool dropped for a missing inputSchema, a duplicate name, manifest and rule warnings,
 * a lazy upstream backing off. Give it only to instance-wide code (the upstreams and the shelf), never
 * to a session's, whose lines could tell one client of another's calls. Lines in
 * {@link NOT_RELAYED} stay in the log.
 */
export function relayWarnings(logger: Logger, status: StatusWriter): Logger {
  const relayed = new Set<string>();
  // Written once per turn of the event loop: a start that warns of a thousand tools writes the file once.
  let pending: string[] = [];
  const flush = (): void => {
    status.append(WARNING_TOPIC, pending);
    pending = [];
  };
  const relay = (level: 'warn' | 'error', message: string): void => {
    if (NOT_RELAYED.some((pattern) => pattern.test(message)) || relayed.has(message)) return;
    if (relayed.size >= MAX_REMEMBERED_WARNINGS) relayed.clear();
    relayed.add(message);
    if (pending.length === 0) setImmediate(flush);
    pending.push(`${level}: ${message}`);
  };
  return {
    ...logger,
    debug: (message) => logger.debug(message),
    info: (message) => logger.info(message),
    warn: (message) => {
      logger.warn(message);
      relay('warn', message);
    },
    error: (message) => {
      logger.error(message);
      relay('error', message);
    },
  };
}

/**
 * The first `maxBytes` of the regular file at `path` as UTF-8; undefined for anything else. Opened
 * without blocking and without following a link: a FIFO put in the file's place blocked the relay,
 * and with it its client's every message, until something wrote to it.
 */
function readRegularFile(path: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(maxBytes);
    let filled = 0;
    for (let read = -1; read !== 0 && filled < maxBytes; filled += read) read = readSync(fd, buffer, filled, maxBytes - filled, filled);
    return buffer.toString('utf8', 0, filled);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of the status file at `path` written by process `pid`, with their sequence numbers, each
 * made printable and clipped ({@link printableLine}) whoever wrote the file; [] otherwise.
 */
export function readStatus(path: string, pid: number | undefined): { sequence: number; text: string }[] {
  const text = pid === undefined ? undefined : readRegularFile(path, MAX_STATUS_FILE_BYTES);
  if (text === undefined) return [];
  const [owner, ...rest] = text.split('\n');
  if (Number(owner) !== pid) return [];
  return rest
    .map((line) => /^(\d+) (.*)$/s.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .slice(-MAX_STATUS_LINES)
    .map((match) => ({ sequence: Number(match[1]), text: printableLine(match[2]!, MAX_STATUS_LINE_CHARS) }));
}

/**
 * Prints each line of the status file at `path` that instance `pid()` wrote and this follower has
 * not printed yet, now and whenever the file changes, until the returned stop function runs.
 */
export function followStatus(path: string, pid: () => number | undefined, print: (line: string) => void): () => void {
  let printed = 0;
  const show = (): void => {
    for (const { sequence, text } of readStatus(path, pid())) {
      if (sequence <= printed) continue;
      printed = sequence;
      print(text);
    }
  };
  show();
  // Read on a timer, not on a stat watch: a line added before the watch took its first stat was missed.
  const timer = setInterval(show, STATUS_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
