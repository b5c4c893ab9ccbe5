/**
 * The last lines a stdio upstream wrote to stderr, and the one most worth quoting when it fails to
 * start or exits: a line that names a problem (`Error: Cannot find module '…'`) rather than the
 * last line, which is often noise (`Node.js v20.20.2`, a stack frame, a run of `x`); for npm's own
 * failures (an `npx` upstream) its error code with the line that says why, never its log path; and
 * never a start-up banner (`Secure MCP Filesystem Server running on stdio`) as the cause of an exit.
 * Pure apart from its own buffer. Source: docs/robustness.md; `test/upstream/stderrTail.test.ts`
 * ("server exited" messages quoting stderr noise).
 */

/** Lines kept: enough to reach past a Node stack trace to its `Error:` line. */
export const STDERR_TAIL_LINES = 30;
/** Characters kept of each line. */
const KEPT_LINE_CHARS = 500;
/** Longest quote, in characters; a longer line is clipped with `…`. */
export const QUOTE_MAX_CHARS = 200;

/** Words of a line that reports a problem. */
const PROBLEM = /error|cannot|can't|failed|not found|denied|invalid|missing|required|refused|fatal|panic|exception/i;
/**
 * Trimmed lines never worth quoting: stack frames (`at f (file:1:2)`, `at file:1:2`), Node's version
 * banner, and npm's pointer to its log file (`npm error A complete log of this run can be found in: …`).
 */
const NOISE = /^at .*:\d+:\d+\)?( \{)?$|^Node\.js v\d|^npm (?:error|ERR!) A complete log of this run/;
/** A line that announces a server is up (`… running on stdio`, `listening on port 3000`): no cause of failure. */
const BANNER = /\b(?:running|listening|serving|started|starting|ready)\b/i;
/** npm's `npm error code E404` (npm 10+) or `npm ERR! code E404` (older). */
const NPM_CODE = /^npm (?:error|ERR!) code (\S+)$/;
/** An npm error line; the group is its text after the prefix. */
const NPM_LINE = /^npm (?:error|ERR!) (.*)$/;

/**
 * npm's own failure in one line: its error code and the first line after it that says more than a
 * status number, e.g. `npm error code E404: 404 Not Found - GET https://registry.npmjs.org/…`.
 * Undefined when `lines` hold no npm error code.
 */
function npmFailure(lines: readonly string[]): string | undefined {
  const at = lines.findLastIndex((l) => NPM_CODE.test(l));
  if (at < 0) return undefined;
  const detail = lines
    .slice(at + 1)
    .filter((l) => !NOISE.test(l))
    .map((l) => NPM_LINE.exec(l)?.[1]?.trim() ?? '')
    .find((text) => text.replace(/^\d+\s*/, '') !== '');
  return detail === undefined ? lines[at] : `${lines[at]}: ${detail}`;
}

/**
 * The line to quote from `lines` (oldest first): npm's failure when npm failed ({@link npmFailure}),
 * else the last line naming a problem, else the last one that reads as words (has a space) and is not
 * a start-up banner; never a stack frame, Node's banner or npm's log path; clipped to
 * {@link QUOTE_MAX_CHARS}. Undefined when no line qualifies.
 */
export function informativeLine(lines: readonly string[]): string | undefined {
  const candidates = lines.map((l) => l.trim()).filter((l) => l !== '' && !NOISE.test(l));
  const line =
    npmFailure(candidates) ??
    candidates.findLast((l) => PROBLEM.test(l)) ??
    candidates.findLast((l) => /\s/.test(l.slice(0, QUOTE_MAX_CHARS)) && !BANNER.test(l));
  if (line === undefined) return undefined;
  return line.length > QUOTE_MAX_CHARS ? `${line.slice(0, QUOTE_MAX_CHARS - 1)}…` : line;
}

/**
 * A bounded buffer of recent stderr lines for one connection attempt. Lines written before the
 * connection was up ({@link markUp}) are start-up output and never quoted as the cause of a later exit.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  /** How many of the kept lines were written before the connection was up. */
  private startupLines = 0;

  /** Keeps `line` (its first 500 characters), dropping the oldest beyond {@link STDERR_TAIL_LINES}. */
  push(line: string): void {
    this.lines.push(line.slice(0, KEPT_LINE_CHARS));
    if (this.lines.length > STDERR_TAIL_LINES) {
      this.lines.shift();
      this.startupLines = Math.max(0, this.startupLines - 1);
    }
  }

  /** The connection is up: what was written so far was start-up output. */
  markUp(): void {
    this.startupLines = this.lines.length;
  }

  /** Forgets every line (a new attempt starts). */
  clear(): void {
    this.lines.length = 0;
    this.startupLines = 0;
  }

  /** The line worth quoting, per {@link informativeLine}, among those written since the connection was up (all, before). */
  quote(): string | undefined {
    return informativeLine(this.lines.slice(this.startupLines));
  }
}
