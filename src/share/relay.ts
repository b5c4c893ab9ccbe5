/**
 * The stdio side of a shared instance: connects to the instance for this config
 * (starting it when none answers) and relays bytes both ways between this process's stdio and the
 * instance's socket, where the client gets a session of its own. A socket that does not answer (the
 * instance crashed or was killed) is replaced by a new instance; a start that fails is tried once
 * more. When no instance can be reached (a socket path too long, a folder that cannot be made, an
 * instance that never listened) nothing has been relayed, and the caller serves the client itself.
 * When the instance goes away mid-session this process ends, as a gateway that crashed would: the
 * client's next start finds or starts a fresh one.
 */
import { closeSync, fstatSync, ftruncateSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { ensurePrivateDir, openPrivateAppend, readPrivateFile } from '../lib/stateDir.js';
import { CLIENT_GONE_GRACE_MS } from '../lib/timers.js';
import { instanceOwner, instancePid } from './claim.js';
import { socketPathProblem, type InstancePaths } from './paths.js';
import { printableLine } from '../lib/printable.js';
import { followStatus, MAX_STATUS_LINE_CHARS } from './status.js';
import { helloLine } from './hello.js';

/** Attempts to start an instance before giving up: the first, and one retry. */
export const START_ATTEMPTS = 2;
/** Between connection attempts while an instance starts, in ms. */
const POLL_MS = 100;
/**
 * How long a just-started instance may take to write its pid file before it counts as dead, in ms.
 * Past it a second instance is started; on a 2-core machine under load an instance took over 5 s to
 * load, and two rivals then raced for one socket (test/share/claim.test.ts). 15 s: well past a slow
 * start, short beside the 60 s the client waits in all.
 */
const BOOT_GRACE_MS = 15_000;
/** A log past this many bytes is emptied when a new instance starts, so it never grows unbounded. */
const MAX_LOG_BYTES = 1024 * 1024;

/** How to find or start one shared instance. Times in ms. */
export interface InstanceStart {
  readonly paths: InstancePaths;
  /** Node arguments that start the instance (the CLI with `--shared-instance <socket>`). */
  readonly instanceArgs: readonly string[];
  /** Longest wait for a started instance to listen. */
  readonly startWaitMs: number;
}

/** What the relay needs. */
export interface RelayOptions extends InstanceStart {
  readonly input: Readable;
  readonly output: Writable;
  /** One line for the user on stderr. */
  readonly note: (line: string) => void;
  /** The view the client chose (docs/views.md), told to the instance in a hello line (hello.ts) before any byte of the client's. */
  readonly view?: string;
}

/** Connects to `path`; resolves with the socket or undefined when nothing listens there. */
function tryConnect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}

/** Starts an instance in its own process group, detached from this one, its stderr to the log. */
async function startInstance(options: InstanceStart): Promise<{ readonly exited: () => boolean }> {
  const { paths } = options;
  // Loaded only to start one: a relay that joins a running instance never needs it (docs/performance.md, "Memory").
  const { spawn } = await import('node:child_process');
  ensurePrivateDir(paths.dir, paths.root);
  const log = openPrivateAppend(paths.log);
  try {
    if (fstatSync(log).size > MAX_LOG_BYTES) ftruncateSync(log, 0);
    const child = spawn(process.execPath, [...options.instanceArgs], { detached: true, stdio: ['ignore', 'ignore', log], env: process.env });
    child.unref();
    let exited = false;
    child.once('exit', () => void (exited = true));
    child.once('error', () => void (exited = true));
    return { exited: () => exited };
  } finally {
    closeSync(log);
  }
}

/** The last lines of the instance's log, for a failure message, each made printable (they may quote an upstream). */
function logTail(path: string): string {
  try {
    return (readPrivateFile(path) ?? '').trimEnd().split('\n').slice(-5).map((line) => printableLine(line, MAX_STATUS_LINE_CHARS)).join('\n');
  } catch {
    return '';
  }
}

/**
 * Finds the running instance or starts one (retried once); undefined when none came up in time.
 * @throws the file system's error when the instance's folder or log cannot be made.
 */
export async function reachInstance(options: InstanceStart): Promise<Socket | undefined> {
  const { paths } = options;
  const existing = await tryConnect(paths.socket);
  if (existing) return existing;
  // Bounded in rounds too: each instance waited for that ends without listening costs one.
  for (let attempt = 0, round = 0; attempt < START_ATTEMPTS && round < 2 * START_ATTEMPTS; round += 1) {
    // An instance that holds the pid file and lives is starting or ending: wait for it rather than start a rival.
    const ours = instanceOwner(paths) === undefined ? await startInstance(options) : undefined;
    if (ours) attempt += 1;
    const started = Date.now();
    let waiting = true;
    while (waiting && Date.now() - started < options.startWaitMs) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const socket = await tryConnect(paths.socket);
      if (socket) return socket;
      // No live owner: the one waited for has ended (start another now), ours exited (a bad start, or
      // it found a rival serving), or ours never claimed within Node's start-up grace; then try again.
      waiting = instanceOwner(paths) !== undefined || (ours !== undefined && !ours.exited() && Date.now() - started <= BOOT_GRACE_MS);
    }
    if (waiting) return undefined;
  }
  return undefined;
}

/** How a relay ended: nothing relayed (`why` the instance could not be reached), or relayed until the exit `code`. */
export type RelayEnd = { readonly relayed: false; readonly why: string } | { readonly relayed: true; readonly code: number };

/**
 * Relays this process's stdio to the shared instance until either side ends: exit code 0 when the
 * client ended, 1 when the instance went away. When no instance could be reached, returns why with
 * stdin unread, so the caller can serve the client from this process.
 */
export async function relayToSharedInstance(options: RelayOptions): Promise<RelayEnd> {
  const unusable = socketPathProblem(options.paths.socket);
  if (unusable) return { relayed: false, why: unusable };
  let socket: Socket | undefined;
  try {
    // Before connecting: a socket in a folder someone else controls may be theirs, listening.
    ensurePrivateDir(options.paths.dir, options.paths.root);
    socket = await reachInstance(options);
  } catch (error) {
    return { relayed: false, why: `the shared instance cannot be started: ${(error as Error).message}` };
  }
  if (!socket) {
    const tail = logTail(options.paths.log);
    return { relayed: false, why: `the shared instance did not start (log ${options.paths.log})${tail ? `:\n${tail}` : ''}` };
  }
  options.note(`toolshelf: serving through the shared instance (pid ${instancePid(options.paths) ?? '?'}, log ${options.paths.log}); --no-share runs a gateway of its own`);
  // The instance's summary and upstream failures, on this client's stderr (its MCP log) too.
  const unfollow = followStatus(options.paths.status, () => instancePid(options.paths), (line) => options.note(`toolshelf (shared instance): ${line}`));
  let clientEnded = false;
  const code = await new Promise<number>((resolve) => {
    let gone: NodeJS.Timeout | undefined;
    options.input.once('end', () => {
      clientEnded = true;
      socket.end();
      // The instance's last output waits for a client that may have stopped reading: give up on it then.
      gone = setTimeout(() => socket.destroy(), CLIENT_GONE_GRACE_MS);
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(gone);
      unfollow();
      options.input.unpipe(socket);
      if (!clientEnded) options.note('toolshelf: the shared instance went away; the next start replaces it');
      resolve(clientEnded ? 0 : 1);
    });
    if (options.view !== undefined) socket.write(helloLine({ view: options.view }));
    options.input.pipe(socket, { end: false });
    socket.pipe(options.output, { end: false });
  });
  return { relayed: true, code };
}
