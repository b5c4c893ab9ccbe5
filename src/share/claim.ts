/**
 * One shared instance per socket: an instance claims its pid file with an
 * exclusive create before it listens. A pid file whose process is gone (the instance was killed), or
 * is not an instance of this socket (its pid was reused after a reboot or a crash), is taken over,
 * once; one whose instance lives means another instance owns the socket.
 */
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir, readPrivateFile } from '../lib/stateDir.js';
import type { InstancePaths } from './paths.js';

/** The pid in `pidFile`, or undefined when missing or unreadable. */
export function instancePid(paths: InstancePaths): number | undefined {
  try {
    const pid = Number((readPrivateFile(paths.pidFile) ?? '').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pid of the live instance holding `paths`: the pid file's process, when it exists (signal 0),
 * belongs to this user (another user's gives EPERM: never an instance we started) and, where
 * `/proc` shows command lines, was started with `paths.socket` as an argument (as `--shared-instance`
 * starts it). Undefined otherwise. A pid file left by a killed instance whose pid the system gave to
 * an unrelated process (the state folder outlives reboots) made every client wait for an instance
 * that never listened, then fail. Where there is no `/proc` (macOS), a live pid counts.
 */
export function instanceOwner(paths: InstancePaths): number | undefined {
  return ownerOf(instancePid(paths), paths);
}

/** `pid` when it is a live instance of `paths` ({@link instanceOwner}'s checks), else undefined. */
function ownerOf(pid: number | undefined, paths: InstancePaths): number | undefined {
  if (pid === undefined) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  const args = commandLine(pid);
  return args === undefined || args.includes(paths.socket) ? pid : undefined;
}

/** The arguments process `pid` was started with, from `/proc`; undefined where there is no `/proc`. */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    // No procfs at all, or the process ended since the signal check (then it holds nothing).
    return existsSync('/proc/self/cmdline') ? [] : undefined;
  }
}

/**
 * Claims the instance for this process: true when the pid file is now ours (a stale socket is
 * removed), false when a live process holds it.
 */
export function claimInstance(paths: InstancePaths): boolean {
  ensurePrivateDir(paths.dir, paths.root);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(paths.pidFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      rmSync(paths.socket, { force: true });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const found = instancePid(paths);
      if (ownerOf(found, paths) !== undefined || !setAsideStale(paths, found)) return false;
    }
  }
  return false;
}

/**
 * Moves a stale pid file (holding `stale`) out of the way; false when the file there by then is a
 * rival's fresh claim, which is put back. Removing the path outright, as before, could remove the
 * claim a rival instance had just written in its place, after which both served the socket
 * (test/share/claim.test.ts). A rename is atomic: only the file that was renamed is judged.
 */
export function setAsideStale(paths: InstancePaths, stale: number | undefined): boolean {
  const aside = `${paths.pidFile}.${process.pid}.stale`;
  try {
    renameSync(paths.pidFile, aside);
  } catch {
    return true; // already gone: the exclusive create is tried again
  }
  const moved = instancePid({ ...paths, pidFile: aside });
  if (moved !== stale) {
    try {
      linkSync(aside, paths.pidFile);
    } catch {
      // A third claim is there already: it owns the socket.
    }
    rmSync(aside, { force: true });
    return false;
  }
  rmSync(aside, { force: true });
  return true;
}

/** Removes the socket, the status file and the pid file if this process still owns them. */
export function releaseInstance(paths: InstancePaths): void {
  if (instancePid(paths) !== process.pid) return;
  rmSync(paths.socket, { force: true });
  rmSync(paths.status, { force: true });
  rmSync(paths.pidFile, { force: true });
}
