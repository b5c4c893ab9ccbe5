/**
 * What a shared instance tells every client's stderr (issue #11 point 1): its start-up summary, when
 * its upstreams are up, and why one failed. Over stdio a client shows its server's stderr in its MCP
 * log, but a relayed client's stderr is its relay's, while the instance's lines went to the instance's
 * log file alone: an upstream that failed to start left a Claude Desktop user with no tools and no
 * reason (newcomer4). The instance writes these lines to a status file; each relay prints the ones it
 * has not printed yet while its client is connected. Only instance-wide lines go there, never a
 * session's (those could tell one client of another's calls).
 * File format: the instance's pid on the first line, then one `<sequence> <text>` line per entry.
 */
import { readFileSync, renameSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';

/** Most lines the file keeps (the oldest go first): a start summary and a few upstream changes fit. */
export const MAX_STATUS_LINES = 40;
/** How often a relay checks the status file for new lines, in ms. */
export const STATUS_POLL_MS = 500;

/** The writing side, in the instance. */
export interface StatusWriter {
  /** Adds `line` for every client, now and later. Never throws (a status that cannot be written is only lost). */
  add(line: string): void;
}

/** A writer for the status file at `path`, owned by this process; the file starts empty. */
export function statusWriter(path: string): StatusWriter {
  const lines: string[] = [];
  let sequence = 0;
  const write = (): void => {
    try {
      // A rename replaces the file whole: a relay never reads half of it.
      writeFileSync(`${path}.tmp`, `${process.pid}\n${lines.join('\n')}\n`, { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
    } catch {
      // The folder went away (the instance is ending): nothing to tell.
    }
  };
  write();
  return {
    add(line) {
      sequence += 1;
      lines.push(`${sequence} ${line.replace(/\n/g, ' ')}`);
      if (lines.length > MAX_STATUS_LINES) lines.shift();
      write();
    },
  };
}

/** The lines of the status file at `path` written by process `pid`, with their sequence numbers; [] otherwise. */
export function readStatus(path: string, pid: number | undefined): { sequence: number; text: string }[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const [owner, ...rest] = text.split('\n');
  if (pid === undefined || Number(owner) !== pid) return [];
  return rest
    .map((line) => /^(\d+) (.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ sequence: Number(match[1]), text: match[2]! }));
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
  watchFile(path, { interval: STATUS_POLL_MS, persistent: false }, show);
  return () => unwatchFile(path, show);
}
