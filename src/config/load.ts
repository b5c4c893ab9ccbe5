/**
 * The config folder's only I/O: read the file, parse it, interpolate, validate, apply defaults.
 * Source: docs/configuration.md (refused at start with every problem by JSON path).
 */
import { dirname, resolve } from 'node:path';
import { err, ok, type Result } from '../lib/result.js';
import { applyDefaults, type RawConfig } from './defaults.js';
import { escapePointer, interpolate } from './interpolate.js';
import type { Config, ConfigProblem } from './types.js';
import { URL_CREDENTIALS_MESSAGE, validateConfig } from './validate.js';
import { readConfigText } from './read.js';

/**
 * Loads `path` (relative to the process cwd) with `env` for `${VAR}` expansion.
 * Returns the config, or every problem found: unreadable file and JSON syntax errors are reported
 * at path `/`; schema problems and missing variables at their JSON paths. Never throws.
 */
export function loadConfig(path: string, env: Readonly<Record<string, string | undefined>>): Result<Config, ConfigProblem[]> {
  const file = resolve(path);
  let text: string;
  try {
    text = readConfigText(file);
  } catch (cause) {
    return err([{ path: '/', message: `cannot read ${file}: ${(cause as Error).message}` }]);
  }
  return parseConfig(text, env, dirname(file));
}

/**
 * Same as {@link loadConfig} for text already read; `baseDir` resolves relative paths in the config.
 * Expands `${VAR}` first and validates the expanded value, so a placeholder may stand in any string
 * the schema checks (`url`, `exposure`, `command`). A string that could not be expanded is reported
 * once, for its variable or its syntax; schema complaints at that same path are dropped. A schema
 * complaint about an expanded string quotes the string as written.
 */
export function parseConfig(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string,
): Result<Config, ConfigProblem[]> {
  // Editors on Windows save "UTF-8 with BOM"; JSON.parse refuses the mark, so it is dropped first.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch (cause) {
    return err([{ path: '/', message: `not valid JSON: ${withLineAndColumn((cause as Error).message, source)}` }]);
  }
  const expanded = interpolate(raw, env);
  const disabled = disabledServerPaths(raw);
  // A disabled server never starts, so its variables need not be set.
  const needed = expanded.problems.filter((p) => !disabled.some((prefix) => p.path.startsWith(prefix)));
  const unexpanded = new Set(expanded.problems.map((p) => p.path));
  const problems = validateConfig(expanded.value)
    .filter((p) => !unexpanded.has(p.path))
    .map((p) => {
      const written = expanded.sources.get(p.path);
      // A URL's credentials are not quoted back, as written or expanded.
      return written === undefined || p.message === URL_CREDENTIALS_MESSAGE ? p : { path: p.path, message: `${p.message} (expanded from ${JSON.stringify(written)})` };
    });
  problems.push(...needed);
  if (problems.length > 0) return err(problems.sort((a, b) => a.path.localeCompare(b.path)));
  return ok(applyDefaults(expanded.value as RawConfig, baseDir));
}

/** JSON Pointer prefixes (`/mcpServers/<key>/`) of the servers marked `"disabled": true` as written. */
function disabledServerPaths(raw: unknown): string[] {
  const servers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) return [];
  return Object.entries(servers as Record<string, unknown>)
    .filter(([, entry]) => (entry as { disabled?: unknown } | null)?.disabled === true)
    .map(([key]) => `/mcpServers/${escapePointer(key)}/`);
}

/**
 * A JSON.parse message with the line and column (both from 1) of the `at position N` it gives,
 * when it gives one and does not already say them: Node 20 names only the offset, which an editor
 * does not show. `text` is what was parsed (the offsets count in it). Pure.
 */
export function withLineAndColumn(message: string, text: string): string {
  const match = /at position (\d+)(?! \(line)/.exec(message);
  if (!match) return message;
  const position = Number(match[1]);
  const before = text.slice(0, position).split('\n');
  return `${message} (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
}
