/**
 * The last lines a stdio upstream wrote to stderr, and the one most worth quoting when it fails to
 * start or exits: a line that names a problem (`Error: Cannot find module '…'`) rather than the
 * last line, which is often noise (`Node.js v20.20.2`, a stack frame, a run of `x`). Pure apart from
 * its own buffer. Source: breaker report, finding 5 ("server exited" messages quoting stderr noise).
 */

/** Lines kept: enough to reach past a Node stack trace to its `Error:` line. */
export const STDERR_TAIL_LINES = 30;
/** Characters kept of each line. */
const KEPT_LINE_CHARS = 500;
/** Longest quote, in characters; a longer line is clipped with `…`. */
export const QUOTE_MAX_CHARS = 200;

/** Words of a line that reports a problem. */
const PROBLEM = /error|cannot|can't|failed|not found|denied|invalid|missing|required|refused|fatal|panic|exception/i;
/** Trimmed lines never worth quoting: stack frames (`at f (file:1:2)`, `at file:1:2`) and Node's version banner. */
const NOISE = /^at .*:\d+:\d+\)?( \{)?$|^Node\.js v\d/;

/**
 * The line to quote from `lines` (oldest first): the last one naming a problem, else the last
 * one that reads as words (has a space), never a stack frame or Node's banner; clipped to
 * {@link QUOTE_MAX_CHARS}. Undefined when no line qualifies.
 */
export function informativeLine(lines: readonly string[]): string | undefined {
  const candidates = lines.map((l) => l.trim()).filter((l) => l !== '' && !NOISE.test(l));
  const line = candidates.findLast((l) => PROBLEM.test(l)) ?? candidates.findLast((l) => /\s/.test(l.slice(0, QUOTE_MAX_CHARS)));
  if (line === undefined) return undefined;
  return line.length > QUOTE_MAX_CHARS ? `${line.slice(0, QUOTE_MAX_CHARS - 1)}…` : line;
}

/** A bounded buffer of recent stderr lines for one connection attempt. */
export class StderrTail {
  private readonly lines: string[] = [];

  /** Keeps `line` (its first 500 characters), dropping the oldest beyond {@link STDERR_TAIL_LINES}. */
  push(line: string): void {
    this.lines.push(line.slice(0, KEPT_LINE_CHARS));
    if (this.lines.length > STDERR_TAIL_LINES) this.lines.shift();
  }

  /** Forgets every line (a new attempt starts). */
  clear(): void {
    this.lines.length = 0;
  }

  /** The line worth quoting, per {@link informativeLine}. */
  quote(): string | undefined {
    return informativeLine(this.lines);
  }
}
