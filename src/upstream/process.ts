/**
 * Child processes for stdio upstreams: checked before spawning (empty command, missing working
 * folder), spawned as leaders of their own process group, stderr drained from the first byte, and
 * ended as a whole group. Spawn failures become a {@link SpawnError} naming the real cause. Knows
 * nothing of MCP. Source: docs/robustness.md; the SDK's stdio transport (its close() signals only the direct child, so
 * servers behind `npx` or a shell are orphaned; an unread stderr pipe deadlocks a chatty child).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import { closestProgram } from './binSuggest.js';
import { LineFramer } from './lineFramer.js';
import { KILL_GRACE_MS } from './watchdog.js';

/**
 * Variables a child gets from toolshelf's environment unless its entry sets `inheritEnv: true`: the
 * SDK's safe list (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` on POSIX; the system folders
 * and user profile on Windows), plus the locale, the temp folder and Node's options, which carry no
 * credential and which servers need to run as they would from a shell. Source: docs/security.md
 * ("Local state and environment"); MCP TypeScript SDK `getDefaultEnvironment`.
 */
export const SAFE_ENV: readonly string[] = [...DEFAULT_INHERITED_ENV_VARS, 'LANG', 'LC_ALL', 'TMPDIR', 'NODE_OPTIONS'];

/** Longest stderr line passed on, in bytes; a longer one is cut to its first bytes (a newline-less flood stays bounded). */
export const MAX_STDERR_LINE_BYTES = 8192;


/** What to start: the stdio fields of a server entry, with `cwd` relative to `baseDir`. */
export interface SpawnSpec {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
}

/**
 * A stdio upstream that could not be started because of its configuration or the file system
 * (missing command or working folder, no permission): it will not fix itself between retries.
 */
export class SpawnError extends Error {
  readonly code = 'spawn_failed';
}

/** The folder a child runs in: `spec.cwd` resolved against `baseDir`, else `baseDir`. */
export function workingFolder(spec: SpawnSpec, baseDir: string): string {
  return spec.cwd ? resolve(baseDir, spec.cwd) : baseDir;
}

/**
 * Why `spec` cannot be spawned, checked before trying (Node reports a missing working folder as
 * `spawn <command> ENOENT`, blaming the command); undefined when nothing is known to be wrong.
 */
export function spawnProblem(spec: SpawnSpec, baseDir: string): string | undefined {
  if (spec.command.trim() === '') return 'the command is empty';
  const cwd = workingFolder(spec, baseDir);
  try {
    if (!statSync(cwd).isDirectory()) return `working folder ${cwd} is not a folder`;
  } catch {
    return `working folder ${cwd} does not exist`;
  }
  return undefined;
}

/** What each errno of a failed spawn says about the command. */
const SPAWN_CAUSES: Readonly<Record<string, string>> = {
  ENOENT: 'was not found',
  EACCES: 'cannot be run: permission denied, or not a program',
  ENOTDIR: 'cannot be run: a part of its path is not a folder',
  EISDIR: 'is a folder',
};

/**
 * A spawn failure (`error` event or synchronous throw) in words that name the command and the cause,
 * e.g. `command "x" was not found (ENOENT)`. For a command not found, `path` (the PATH the child
 * got) is searched for the closest program name (binSuggest.ts), offered as `; did you mean "…"?`.
 */
export function spawnFailure(error: unknown, command: string, path?: string): SpawnError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const cause = code !== undefined ? SPAWN_CAUSES[code] : undefined;
  const detail = error instanceof Error ? error.message : String(error);
  const closest = code === 'ENOENT' ? closestProgram(command, path) : undefined;
  const hint = closest ? `; did you mean "${closest}"?` : '';
  return new SpawnError(cause ? `command "${command}" ${cause} (${code})${hint}` : `command "${command}" could not be started: ${detail}`, { cause: error });
}

/**
 * Variables npm and npx set for the scripts they run (`npm_config_*`, `npm_package_*`,
 * `npm_lifecycle_*`, `npm_execpath`, `npm_node_execpath`, `npm_command`, `INIT_CWD`). Under `npx
 * toolshelf` they describe toolshelf's own run: `npm_config_package` makes every `npx -y …`
 * upstream look for its bin in toolshelf's package and fail with "not found". Source: docs/configuration.md.
 */
export function isNpmVariable(name: string): boolean {
  return /^npm_/i.test(name) || name === 'INIT_CWD';
}

/**
 * The `node_modules/.bin` folders of `dir` and of each of its ancestors, nearest first: where npm
 * scripts find the bins of installed packages. A config inside an installed package (`npm install`,
 * the npx cache) finds its servers' bins in an ancestor's folder. Pure. Source: docs/configuration.md.
 */
export function binFolders(dir: string): string[] {
  const folders: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    folders.push(join(at, 'node_modules', '.bin'));
    if (dirname(at) === at) return folders;
  }
}

/**
 * toolshelf's own settings (`TOOLSHELF_TOKEN`, `TOOLSHELF_STATE_DIR`, `TOOLSHELF_SHARE`, …): they
 * describe this gateway's run, and `TOOLSHELF_TOKEN` is the credential for its HTTP endpoint, which
 * an upstream (and through a tool like server-everything's `get-env`, the model) must never see
 * (docs/configuration.md, "Per-server keys").
 */
export function isOwnVariable(name: string): boolean {
  return /^TOOLSHELF_/i.test(name);
}

/**
 * The child's environment: `env` merged over the {@link SAFE_ENV} part of the parent's (default), or
 * over the whole of it when `inheritEnv` is true: a server gets no credential it was not given. Values starting with `()` (shell functions), npm's own variables
 * ({@link isNpmVariable}) and toolshelf's ({@link isOwnVariable}) are never passed on unless `env`
 * sets them. `binDirs` go before PATH, as npm scripts have them. Pure.
 */
export function childEnvironment(spec: SpawnSpec, parent: NodeJS.ProcessEnv, binDirs: readonly string[] = []): Record<string, string> {
  const base: Record<string, string> = {};
  const keys = spec.inheritEnv === true ? Object.keys(parent) : SAFE_ENV;
  for (const key of keys) {
    const value = parent[key];
    if (value !== undefined && !value.startsWith('()') && !isNpmVariable(key) && !isOwnVariable(key)) base[key] = value;
  }
  const merged = { ...base, ...spec.env };
  const path = [...binDirs, ...(merged.PATH ? [merged.PATH] : [])].join(delimiter);
  return path === '' ? merged : { ...merged, PATH: path };
}

/** The folder of toolshelf's own package.json (this file is dist/upstream/process.js in it). */
const OWN_PACKAGE = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where an upstream's bare command is looked up before PATH, nearest first: the `node_modules/.bin`
 * folders of `configDir` and its ancestors, then those of toolshelf's own package and its ancestors
 * (`ownPackage`), so a config anywhere may name a server installed beside toolshelf, e.g. the bundled
 * `mcp-server-memory`. Each folder once. Pure.
 */
export function binSearchFolders(configDir: string, ownPackage: string = OWN_PACKAGE): string[] {
  return [...new Set([...binFolders(configDir), ...binFolders(ownPackage)])];
}

/** The existing folders of {@link binSearchFolders}. */
function existingBinFolders(baseDir: string): string[] {
  return binSearchFolders(baseDir).filter((folder) => {
    try {
      return statSync(folder).isDirectory();
    } catch {
      return false;
    }
  });
}

/** The PATH a child of `spec` gets ({@link childEnvironment} with the bin folders of {@link spawnGroup}). */
export function childPath(spec: SpawnSpec, baseDir: string): string | undefined {
  return childEnvironment(spec, process.env, existingBinFolders(baseDir)).PATH;
}

/**
 * Spawns `spec` in its own process group with piped stdio, with the `node_modules/.bin` folders of
 * `baseDir` (the config file's folder), of toolshelf's own package, and of their ancestors first on
 * PATH ({@link binSearchFolders}), so the command may name an installed package's bin
 * (`mcp-server-memory`) wherever the package is installed. Each stderr line goes to `onStderrLine`
 * as it arrives (so the pipe never fills), cut to {@link MAX_STDERR_LINE_BYTES}. Node reports most
 * spawn failures as the child's `error` event but throws some at once (e.g. ENOTDIR): callers map
 * both with {@link spawnFailure}.
 */
export function spawnGroup(spec: SpawnSpec, baseDir: string, onStderrLine: (line: string) => void): ChildProcess {
  const child = spawn(spec.command, [...(spec.args ?? [])], {
    cwd: workingFolder(spec, baseDir),
    env: childEnvironment(spec, process.env, existingBinFolders(baseDir)),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  const framer = new LineFramer(MAX_STDERR_LINE_BYTES, onStderrLine, (cut) => onStderrLine(`${cut.head}… (line of ${cut.bytes} bytes cut)`));
  child.stderr?.on('data', (chunk: Buffer) => framer.push(chunk));
  child.stderr?.on('end', () => framer.end());
  return child;
}

/** True while any process of the group led by `pid` is alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** How long to wait for a SIGKILLed group to be gone, in ms (a zombie nobody reaps would count as alive forever). */
const SIGKILL_WAIT_MS = 500;

/**
 * Ends the child's whole process group: stdin closed, SIGTERM to the group, SIGKILL to whatever
 * is left after `graceMs`. Resolves once the group is gone, or {@link SIGKILL_WAIT_MS} after the SIGKILL.
 */
export async function killGroup(child: ChildProcess, graceMs = KILL_GRACE_MS): Promise<void> {
  const pid = child.pid;
  child.stdin?.destroy();
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  if (await groupGone(pid, graceMs)) return;
  signalGroup(pid, 'SIGKILL');
  await groupGone(pid, SIGKILL_WAIT_MS);
}

/** Polls until the group led by `pid` is gone or `ms` pass; true when it is gone. */
async function groupGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return !groupAlive(pid);
}

/** Synchronous last resort for `process.on('exit')`: SIGKILL the group at once. */
export function killGroupNow(child: ChildProcess): void {
  if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
}
