/**
 * What a config reload changed, in words for its log line: the servers it started, ended or restarted
 * and, by JSON path, the settings that changed without touching an upstream (exposure, tool rules,
 * discovery, …). Pure. Source: docs/configuration.md (reload); `test/config/changes.test.ts` (an exposure-only reload logged
 * "no server changed" although every client's tool list changed).
 */
import { stableJson } from '../lib/hash.js';
import { printablePath } from './report.js';
import type { Config } from './types.js';

/** Most setting paths named in one line; the rest are counted. */
export const MAX_PATHS_NAMED = 8;

/** Which servers a reload touched, by key (the pool's `Reconciled`). */
export interface ServersTouched {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly restarted: readonly string[];
}

/** The path segment for `key` (JSON Pointer escaping, RFC 6901 §3). */
const segment = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON paths under `path` where `a` and `b` differ: down through objects, arrays compared whole. */
function diff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) diff(a[key], b[key], `${path}/${segment(key)}`, out);
  } else if (stableJson(a) !== stableJson(b)) {
    out.push(path);
  }
}

/**
 * JSON paths of the settings that differ between `previous` and `next` (defaults applied to both),
 * in config order, e.g. `/exposure`, `/mcpServers/files/tools/write_file/exposure`. Servers in
 * `touched` are left out (their line names them), and so is `baseDir` (not a setting).
 */
export function changedSettings(previous: Config, next: Config, touched: ServersTouched): string[] {
  const out: string[] = [];
  const skip = new Set([...touched.added, ...touched.removed, ...touched.restarted]);
  const servers = (config: Config): Record<string, unknown> => Object.fromEntries(Object.entries(config.mcpServers).filter(([key]) => !skip.has(key)));
  const { mcpServers: _p, baseDir: _pb, ...before } = previous;
  const { mcpServers: _n, baseDir: _nb, ...after } = next;
  diff(servers(previous), servers(next), '/mcpServers', out);
  diff(before, after, '', out);
  return out;
}

/**
 * Settings read once, at start: `naming` (names keep their meaning for the life of the process:
 * docs/configuration.md), `discovery.ranker` (its module is loaded at start) and `share` (the shared
 * instance's own lifetime). A reload names them as waiting for the next start (the line
 * said they changed, and nothing did).
 */
const AT_NEXT_START = ['/naming', '/discovery/ranker', '/share'];

/** `path` is, or is under, one of {@link AT_NEXT_START}. */
function atNextStart(path: string): boolean {
  return AT_NEXT_START.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * The reload's log line after `config reloaded from <file>`: `: added a; restarted b; settings changed:
 * /exposure`, or, when no upstream was touched, `: no upstream added, removed or restarted; settings
 * changed: …` (or `; no setting changed` for an edit that changed nothing, e.g. whitespace). At most
 * {@link MAX_PATHS_NAMED} paths, and as many servers of each kind, are named, then `and N more`; paths
 * and server keys are made printable (a key as its JSON Pointer segment, `/` as `~1`).
 */
export function reloadSummary(touched: ServersTouched, changed: readonly string[]): string {
  // Server keys are the config's own, as free as its paths: a key holding a newline split the line, and 500 added servers were named one by one.
  const servers = (['added', 'removed', 'restarted'] as const).filter((what) => touched[what].length > 0).map((what) => `${what} ${namedAtMost(touched[what].map(segment))}`);
  const settings = changed.length > 0 ? `settings changed: ${namedAtMost(changed, (path) => (atNextStart(path) ? ' (at the next start)' : ''))}` : servers.length > 0 ? '' : 'no setting changed';
  return `: ${[servers.length > 0 ? servers.join('; ') : 'no upstream added, removed or restarted', settings].filter(Boolean).join('; ')}`;
}

/** The first {@link MAX_PATHS_NAMED} of `paths` made printable, each followed by its `note`, comma-separated, then `and N more`. */
function namedAtMost(paths: readonly string[], note: (path: string) => string = () => ''): string {
  const more = paths.length > MAX_PATHS_NAMED ? ` and ${paths.length - MAX_PATHS_NAMED} more` : '';
  return `${paths
    .slice(0, MAX_PATHS_NAMED)
    .map((path) => `${printablePath(path)}${note(path)}`)
    .join(', ')}${more}`;
}
