/**
 * Child processes for stdio upstreams: spawned as leaders of their own process group, stderr drained
 * from the first byte, and ended as a whole group. Knows nothing of MCP.
 * Source: DESIGN §11; issue #2 traps (SDK close() signals only the direct child, so servers behind
 * `npx` or a shell are orphaned; an unread stderr pipe deadlocks a chatty child).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { LineFramer } from './lineFramer.js';

/** Variables passed to a child when `inheritEnv` is false: the SDK's safe list on POSIX. */
const SAFE_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR', 'NODE_OPTIONS'];

/** Longest stderr line passed on, in bytes; a longer one is cut to its first bytes (a newline-less flood stays bounded). */
export const MAX_STDERR_LINE_BYTES = 8192;

/** How long a group gets between SIGTERM and SIGKILL, in ms. */
export const KILL_GRACE_MS = 2000;

/** What to start: the stdio fields of a server entry, with `cwd` relative to `baseDir`. */
export interface SpawnSpec {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
}

/**
 * The child's environment: `env` merged over the parent's (default), or over a minimal safe set
 * when `inheritEnv` is false. Values starting with `()` (shell functions) are never passed on.
 */
export function childEnvironment(spec: SpawnSpec, parent: NodeJS.ProcessEnv): Record<string, string> {
  const base: Record<string, string> = {};
  const keys = spec.inheritEnv === false ? SAFE_ENV : Object.keys(parent);
  for (const key of keys) {
    const value = parent[key];
    if (value !== undefined && !value.startsWith('()')) base[key] = value;
  }
  return { ...base, ...spec.env };
}

/**
 * Spawns `spec` in its own process group with piped stdio. Each stderr line goes to `onStderrLine`
 * as it arrives (so the pipe never fills), cut to {@link MAX_STDERR_LINE_BYTES}. Throws nothing:
 * spawn failures surface as the child's `error` event.
 */
export function spawnGroup(spec: SpawnSpec, baseDir: string, onStderrLine: (line: string) => void): ChildProcess {
  const child = spawn(spec.command, [...(spec.args ?? [])], {
    cwd: spec.cwd ? resolve(baseDir, spec.cwd) : baseDir,
    env: childEnvironment(spec, process.env),
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

/**
 * Ends the child's whole process group: stdin closed, SIGTERM to the group, SIGKILL to whatever
 * is left after `graceMs`. Resolves once the group is gone (or after the SIGKILL).
 */
export async function killGroup(child: ChildProcess, graceMs = KILL_GRACE_MS): Promise<void> {
  const pid = child.pid;
  child.stdin?.destroy();
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
}

/** Synchronous last resort for `process.on('exit')`: SIGKILL the group at once. */
export function killGroupNow(child: ChildProcess): void {
  if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
}
