/**
 * The config folder's only I/O: read the file, parse it, validate, interpolate, apply defaults.
 * Source: DESIGN §12 (refused at start with every problem by JSON path).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { err, ok, type Result } from '../lib/result.js';
import { applyDefaults, type RawConfig } from './defaults.js';
import { interpolate } from './interpolate.js';
import type { Config, ConfigProblem } from './types.js';
import { validateConfig } from './validate.js';

/**
 * Loads `path` (relative to the process cwd) with `env` for `${VAR}` expansion.
 * Returns the config, or every problem found: unreadable file and JSON syntax errors are reported
 * at path `/`; schema problems and missing variables at their JSON paths. Never throws.
 */
export function loadConfig(path: string, env: Readonly<Record<string, string | undefined>>): Result<Config, ConfigProblem[]> {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    return err([{ path: '/', message: `cannot read ${file}: ${(cause as Error).message}` }]);
  }
  return parseConfig(text, env, dirname(file));
}

/** Same as {@link loadConfig} for text already read; `baseDir` resolves relative paths in the config. */
export function parseConfig(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string,
): Result<Config, ConfigProblem[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    return err([{ path: '/', message: `not valid JSON: ${(cause as Error).message}` }]);
  }
  const problems = validateConfig(raw);
  const expanded = interpolate(raw, env);
  problems.push(...expanded.problems);
  if (problems.length > 0) return err(problems);
  return ok(applyDefaults(expanded.value as RawConfig, baseDir));
}
