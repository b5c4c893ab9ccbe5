/**
 * Turns one client's server entry into a toolshelf `mcpServers` entry (docs/init.md), or says why it
 * stays with the client. Clients differ in small ways: Windsurf names a remote URL `serverUrl`; VS
 * Code, Cursor and Windsurf write variables `${env:NAME}` (toolshelf: `${NAME}`), and VS Code
 * `${input:ID}` prompts, which only it can ask; Claude Desktop and Codex expand nothing, so a literal
 * `${` is escaped as `$${`; Codex writes `enabled = false`, `bearer_token_env_var`, `http_headers`,
 * `env_http_headers` and timeouts in seconds. Pure.
 */
import { isPlainObject } from '../lib/plainObject.js';
import type { ClientId } from './clients.js';

/** A toolshelf server entry as written to `servers.config.json`. */
export type ServerEntry = Record<string, unknown>;

/** One entry converted, with what the conversion left out or changed, one sentence each. */
export type Converted = { readonly ok: true; readonly entry: ServerEntry; readonly notes: readonly string[] } | { readonly ok: false; readonly why: string };

/** Clients that expand `${env:NAME}` in their entries (and Claude Code, `${NAME}` as toolshelf does). */
const EXPANDS_ENV_COLON: ReadonlySet<ClientId> = new Set(['cursor', 'vscode', 'windsurf']);
const EXPANDS_PLAIN: ReadonlySet<ClientId> = new Set(['claude-code']);

/** Keys the conversion reads; any other key of an entry is left out with a note. */
const KNOWN_KEYS = new Set([
  'command', 'args', 'env', 'cwd', 'url', 'serverUrl', 'headers', 'type', 'transport', 'disabled', 'enabled',
  'bearer_token_env_var', 'http_headers', 'env_http_headers', 'startup_timeout_sec', 'startup_timeout_ms', 'tool_timeout_sec',
]);

/** True when entry `key` (with `entry`) is toolshelf itself: it is not imported into its own config. */
export function isToolshelfEntry(key: string, entry: unknown): boolean {
  if (key === 'toolshelf') return true;
  if (!isPlainObject(entry)) return false;
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].filter((w): w is string => typeof w === 'string');
  return words.some((w) => w === 'toolshelf' || /(^|[\\/])toolshelf([\\/]dist[\\/]cli\.js)?$/.test(w) || /^toolshelf@/.test(w));
}

/**
 * `value` with the client's variable syntax turned into toolshelf's; undefined (with why) when it uses
 * one toolshelf cannot stand in for. `projectDir` stands in for `${workspaceFolder}` in a project file.
 */
function translate(value: string, client: ClientId, projectDir: string | undefined): { text: string } | { why: string } {
  if (EXPANDS_PLAIN.has(client)) return { text: value };
  if (!EXPANDS_ENV_COLON.has(client)) return { text: value.replaceAll('${', () => '$${') };
  let why: string | undefined;
  const text = value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
    if (env) return `\${${env[1]}}`;
    if ((inner === 'workspaceFolder' || inner === 'workspaceRoot') && projectDir !== undefined) return projectDir.replaceAll('${', () => '$${');
    why ??= `it uses ${whole}, which only its client can fill in`;
    return whole;
  });
  return why === undefined ? { text } : { why };
}

/** A string map (env, headers) translated, or why not; undefined when `value` is absent. */
function stringMap(value: unknown, field: string, tr: (s: string) => { text: string } | { why: string }): { map?: Record<string, string> } | { why: string } {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return { why: `its "${field}" is not an object` };
  const map: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return { why: `its "${field}.${k}" is not a string` };
    const done = tr(String(v));
    if ('why' in done) return done;
    Object.defineProperty(map, k, { value: done.text, enumerable: true, writable: true, configurable: true });
  }
  return { map };
}

/**
 * Converts client `client`'s entry `raw` (named `key`). A stdio entry keeps `command`, `args`, `env`
 * and `cwd`; a remote one `url` and `headers` (`type: "sse"` becomes `transport: "sse"`); `disabled`
 * and timeouts carry over. Anything else is left out with a note.
 */
export function convertEntry(client: ClientId, key: string, raw: unknown, projectDir?: string): Converted {
  if (!isPlainObject(raw)) return { ok: false, why: 'the entry is not an object' };
  const tr = (s: string) => translate(s, client, projectDir);
  const notes: string[] = [];
  const entry: ServerEntry = {};
  const url = raw.url ?? raw.serverUrl;
  if (typeof raw.command === 'string' && raw.command.length > 0) {
    if (url !== undefined) return { ok: false, why: 'it has both a command and a URL' };
    const command = tr(raw.command);
    if ('why' in command) return { ok: false, why: command.why };
    entry.command = command.text;
    if (raw.args !== undefined) {
      if (!Array.isArray(raw.args) || !raw.args.every((a) => typeof a === 'string' || typeof a === 'number')) return { ok: false, why: 'its "args" is not a list of strings' };
      const args: string[] = [];
      for (const a of raw.args) {
        const done = tr(String(a));
        if ('why' in done) return { ok: false, why: done.why };
        args.push(done.text);
      }
      if (args.length > 0) entry.args = args;
    }
    const env = stringMap(raw.env, 'env', tr);
    if ('why' in env) return { ok: false, why: env.why };
    if (env.map && Object.keys(env.map).length > 0) entry.env = env.map;
    if (typeof raw.cwd === 'string') {
      const cwd = tr(raw.cwd);
      if ('why' in cwd) return { ok: false, why: cwd.why };
      entry.cwd = cwd.text;
    }
  } else if (typeof url === 'string' && url.length > 0) {
    const done = tr(url);
    if ('why' in done) return { ok: false, why: done.why };
    entry.url = done.text;
    const headers: Record<string, string> = {};
    for (const field of ['headers', 'http_headers'] as const) {
      const map = stringMap(raw[field], field, tr);
      if ('why' in map) return { ok: false, why: map.why };
      Object.assign(headers, map.map);
    }
    if (isPlainObject(raw.env_http_headers)) {
      for (const [header, variable] of Object.entries(raw.env_http_headers)) if (typeof variable === 'string') headers[header] = `\${${variable}}`;
    }
    if (typeof raw.bearer_token_env_var === 'string') headers.Authorization = `Bearer \${${raw.bearer_token_env_var}}`;
    if (Object.keys(headers).length > 0) entry.headers = headers;
    if (raw.type === 'sse' || raw.transport === 'sse') entry.transport = 'sse';
  } else {
    return { ok: false, why: 'it has neither a command nor a URL' };
  }
  if (raw.disabled === true || raw.enabled === false) entry.disabled = true;
  const startSec = raw.startup_timeout_sec;
  if (typeof startSec === 'number' && startSec > 0) entry.startTimeoutMs = Math.round(startSec * 1000);
  if (typeof raw.startup_timeout_ms === 'number' && raw.startup_timeout_ms > 0) entry.startTimeoutMs = Math.round(raw.startup_timeout_ms);
  if (typeof raw.tool_timeout_sec === 'number' && raw.tool_timeout_sec > 0) entry.timeoutMs = Math.round(raw.tool_timeout_sec * 1000);
  const left = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k));
  if (left.length > 0) notes.push(`"${key}": left out ${left.map((k) => `"${k}"`).join(', ')} (toolshelf has no such setting)`);
  return { ok: true, entry, notes };
}
