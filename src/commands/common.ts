/**
 * What every command shares: the package version, the config flag, and loading a config with its
 * problems printed by JSON path. Source: DESIGN §12.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/types.js';

/** The package version from package.json. */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad config. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Signals that end a one-shot command (inspect, search). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs `work`; a signal meanwhile exits the process at once with `exitCode(signal)`. Upstreams run in
 * process groups of their own, which a terminal's Ctrl-C does not reach: openShelf's exit hook then
 * kills them (DESIGN §11).
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

/** Default config path, relative to the current folder. */
export const DEFAULT_CONFIG = 'servers.config.json';

/**
 * Loads the config at `path` with the process environment. On problems, writes each as
 * `  /json/path: message` to `err` and returns undefined.
 */
export function loadOrReport(path: string, err: (text: string) => void): Config | undefined {
  const loaded = loadConfig(path, process.env);
  if (loaded.ok) return loaded.value;
  const lines = loaded.error.map((p) => `  ${p.path}: ${p.message}`);
  err(`toolshelf: ${path} has ${loaded.error.length} problem(s):\n${lines.join('\n')}\n`);
  return undefined;
}
