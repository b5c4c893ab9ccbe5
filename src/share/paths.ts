/**
 * Where a shared instance lives: one per config file, toolshelf version, serve
 * flags and the values of the `${VAR}`s the file uses (two clients whose environments expand the
 * file differently get different instances). Its socket, pid file and log sit in a folder only the
 * current user can open: `$XDG_RUNTIME_DIR/toolshelf` when set (and no TOOLSHELF_STATE_DIR asks
 * otherwise), else `<state>/shared`. Pure apart from reading nothing: callers pass the text.
 */
import { dirname, join } from 'node:path';
import { stableJson } from '../lib/hash.js';
import { sha256Hex } from '../lib/sha256.js';
import { STATE_DIR_ENV, stateDir } from '../lib/stateDir.js';

/** One shared instance's files. */
export interface InstancePaths {
  /** Folder of every instance's files (created 0700). */
  readonly dir: string;
  /** The state folder `dir` is in, checked with it (`lib/stateDir.ts`); absent for the runtime folder (`dir` alone is checked). */
  readonly root?: string;
  /** Unix domain socket the instance listens on (mode 0600). */
  readonly socket: string;
  /** Holds the instance's pid; created exclusively, so one instance per socket starts. */
  readonly pidFile: string;
  /** The instance's stderr (its log). */
  readonly log: string;
  /** The instance's state for its clients' stderr: start-up summary and upstream failures (status.ts). */
  readonly status: string;
}

/** Names of the variables `${NAME}` / `${NAME:-…}` in the config text, sorted. */
export function referencedVariables(text: string): string[] {
  return [...new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))].sort();
}

/**
 * The instance's paths for the config at `configPath` (absolute) with raw text `text`, the serve
 * flags that shape serving (`serveArgs`, without `--config`), and toolshelf's `version` (its build:
 * packageFiles.ts `buildIdentity`). The name is 16 hex digits of SHA-256 over their stable JSON
 * (lib/hash.ts `stableHash`, computed without `node:crypto`: the relay computes it), which keeps the
 * socket path under the 107-byte limit of sun_path.
 */
export function instancePaths(configPath: string, text: string, serveArgs: readonly string[], version: string, env: Readonly<Record<string, string | undefined>>): InstancePaths {
  const variables = Object.fromEntries(referencedVariables(text).map((name) => [name, env[name] ?? null]));
  const uid = process.getuid?.() ?? 0;
  const name = sha256Hex(stableJson({ configPath, serveArgs, version, variables, uid })).slice(0, 16);
  const runtime = !env[STATE_DIR_ENV] && env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'toolshelf') : undefined;
  const dir = instancesDir(env);
  return { dir, ...(runtime ? {} : { root: stateDir(env) }), socket: join(dir, `${name}.sock`), pidFile: join(dir, `${name}.pid`), log: join(dir, `${name}.log`), status: join(dir, `${name}.status`) };
}

/** The folder of the shared instances' files for `env`: `$XDG_RUNTIME_DIR/toolshelf`, else `<state>/shared` (see the module comment). Pure. */
export function instancesDir(env: Readonly<Record<string, string | undefined>>): string {
  return !env[STATE_DIR_ENV] && env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'toolshelf') : join(stateDir(env), 'shared');
}

/** The paths of the instance listening at `socket` (as passed to `--shared-instance`). */
export function instancePathsOf(socket: string): InstancePaths {
  const base = socket.replace(/\.sock$/, '');
  return { dir: dirname(socket), socket, pidFile: `${base}.pid`, log: `${base}.log`, status: `${base}.status` };
}

/**
 * Why `socket` cannot be a Unix socket's path on `platform`, or undefined when it can: sun_path holds
 * 108 bytes on Linux and 104 on macOS and the BSDs, its terminating NUL included (unix(7)); Windows
 * names pipes, which have no such limit. Node does not refuse a longer path: it listens on the
 * path cut short, and the instance then failed with ENOENT and EADDRINUSE. Pure.
 */
export function socketPathProblem(socket: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === 'win32') return undefined;
  const max = platform === 'linux' ? 107 : 103;
  const bytes = Buffer.byteLength(socket);
  return bytes > max ? `the socket path ${socket} is ${bytes} bytes, over the ${max} a Unix socket allows here (a shorter XDG_RUNTIME_DIR or TOOLSHELF_STATE_DIR fixes it)` : undefined;
}
