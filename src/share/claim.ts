/**
 * One shared instance per socket (issue #11 point 1): an instance claims its pid file with an
 * exclusive create before it listens. A pid file whose process is gone (the instance was killed)
 * is taken over, once; one whose process lives means another instance owns the socket.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir } from '../lib/stateDir.js';
import type { InstancePaths } from './paths.js';

/** The pid in `pidFile`, or undefined when missing or unreadable. */
export function instancePid(paths: InstancePaths): number | undefined {
  try {
    const pid = Number(readFileSync(paths.pidFile, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True when process `pid` exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims the instance for this process: true when the pid file is now ours (a stale socket is
 * removed), false when a live process holds it.
 */
export function claimInstance(paths: InstancePaths): boolean {
  ensurePrivateDir(paths.dir);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(paths.pidFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      rmSync(paths.socket, { force: true });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = instancePid(paths);
      if (owner !== undefined && processAlive(owner)) return false;
      rmSync(paths.pidFile, { force: true });
    }
  }
  return false;
}

/** Removes the socket, the status file and the pid file if this process still owns them. */
export function releaseInstance(paths: InstancePaths): void {
  if (instancePid(paths) !== process.pid) return;
  rmSync(paths.socket, { force: true });
  rmSync(paths.status, { force: true });
  rmSync(paths.pidFile, { force: true });
}
