/**
 * What every command shares: the package version, the config flag, and loading a config with its
 * problems printed by JSON path. Source: docs/configuration.md.
 */
import type { ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config/load.js';
import { problemLine } from '../config/report.js';
import type { Config } from '../config/types.js';
import { err, ok, type Result } from '../lib/result.js';
import { LOG_LEVELS, type LogLevel } from '../trace/log.js';
import type { UpstreamSummary } from '../upstream/pool.js';
import { suggestNames } from '../discovery/suggest.js';
import { configChoice, LOCAL_CONFIG } from './configChoice.js';

export { VERSION } from '../packageFiles.js';

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad config. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Signals that end a one-shot command (inspect, search). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs `work`; a signal meanwhile exits the process at once with `exitCode(signal)`. Upstreams run in
 * process groups of their own, which a terminal's Ctrl-C does not reach: openShelf's exit hook then
 * kills them (docs/robustness.md).
 */
export async function exitOnSignal<T>(work: () => Promise<T>, exitCode: (signal: NodeJS.Signals) => number): Promise<T> {
  const onSignal = (signal: NodeJS.Signals): void => process.exit(exitCode(signal));
  for (const signal of STOP_SIGNALS) process.once(signal, onSignal);
  try {
    return await work();
  } finally {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, onSignal);
  }
}

/** The `--config FILE` help line every command shares. */
export const CONFIG_HELP = `--config FILE  servers.config.json (default: ./${LOCAL_CONFIG} when present, else the bundled one)`;

/** The config to load ({@link configChoice}), its note (which config, when no `--config` named one) written to `err`. */
export function chooseConfig(given: string | undefined, cwd: string, err: (text: string) => void): string {
  const choice = configChoice(given, cwd);
  if (choice.note !== undefined) err(choice.note);
  return choice.path;
}

/**
 * Loads the config at `path` ({@link chooseConfig} when undefined) with the process environment. On
 * problems, writes each as `  /json/path: message` to `err` and returns undefined.
 */
export function loadOrReport(given: string | undefined, err: (text: string) => void): Config | undefined {
  const path = chooseConfig(given, process.cwd(), err);
  const loaded = loadConfig(path, process.env);
  if (loaded.ok) return loaded.value;
  const lines = loaded.error.map(problemLine);
  err(`toolshelf: ${path} has ${loaded.error.length} problem(s):\n${lines.join('\n')}\n`);
  return undefined;
}

/** The `--log-level LEVEL` help line; `fallback` is the command's default. */
export const logLevelHelp = (fallback: LogLevel): string => `--log-level LEVEL  debug | info | warn | error (default ${fallback}; upstream stderr shows at debug)`;

/** `text` (a `--log-level` value) as a level, or the usage problem in words. */
export function parseLogLevel(text: string): Result<LogLevel, string> {
  const level = LOG_LEVELS.find((l) => l === text);
  return level ? ok(level) : err(`--log-level must be debug, info, warn or error, got "${text}"`);
}

/**
 * Why a one-shot command (inspect, search) has nothing to report: no upstream connected. Names each
 * upstream with its error, e.g. `no upstream connected (0 of 2): files: command "x" was not found
 * (ENOENT); remote: …`; undefined when at least one is ready. Source: docs/robustness.md (failures say what is wrong).
 */
export function noUpstreamProblem(upstreams: readonly UpstreamSummary[]): string | undefined {
  if (upstreams.some((u) => u.status === 'ready')) return undefined;
  if (upstreams.length === 0) return 'no upstream connected: the config lists no enabled server';
  const each = upstreams.map((u) => `  ${u.key}: ${u.error || u.status}`);
  return `no upstream connected (0 of ${upstreams.length}), so there is nothing to report:\n${each.join('\n')}`;
}

/** A command's parseArgs options. */
export type ArgOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * parseArgs' message for `error`, with the closest known option for an unknown one (`--htp`: did you
 * mean "--http"?), as a mistyped command gets. `options` is the command's parseArgs options.
 */
export function argumentError(error: unknown, options: Readonly<Record<string, unknown>>): string {
  const message = (error as Error).message;
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const [near] = suggestNames(unknown.replace(/^-+/, ''), Object.keys(options), 1);
  return `Unknown option '${unknown}'${near ? `; did you mean "--${near}"?` : ''}`;
}
