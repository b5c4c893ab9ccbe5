/**
 * The one logger. Writes to stderr only: in stdio mode stdout carries protocol messages and
 * nothing else (docs/cli.md). Every message is cleaned first (`trust/clean.ts`): many quote an
 * upstream's words (a tool name, an error), and a terminal must not obey them.
 */
import { cleanText } from '../trust/clean.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The levels `--log-level` takes, lowest first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A leveled logger writing `toolshelf: <message>` lines to a writable (stderr by default). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** The lowest level written, when known (then lower messages need not be built); undefined: any may be. */
  readonly level?: LogLevel;
}

/** Creates a logger that drops messages below `level`. `write` receives whole lines, cleaned. */
export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const emit = (at: LogLevel, message: string): void => {
    if (RANK[at] < RANK[level]) return;
    const tag = at === 'info' ? '' : `${at}: `;
    write(`toolshelf: ${tag}${cleanText(message).text}\n`);
  };
  return {
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
    level,
  };
}

/** A logger that writes nothing (tests, `--quiet`). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
