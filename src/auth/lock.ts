/**
 * A cross-process lock on one file: `<path>.lock` created with O_EXCL, holding the owner's pid and
 * time. A lock whose owner is gone, or older than {@link STALE_LOCK_MS}, is taken over (stale-lock
 * recovery after a crash). Source: docs/sign-in.md (safe when several toolshelf processes share
 * the state folder).
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** A lock held longer than this (ms) is presumed left by a crashed process. */
export const STALE_LOCK_MS = 30_000;
/** Wait between attempts to take a busy lock, in ms. */
const RETRY_MS = 25;

/**
 * Runs `work` while holding the lock `<path>.lock`; waits (polling every 25 ms) up to `waitMs` for
 * it. Throws when the lock stays busy past `waitMs`. The lock is removed when `work` settles.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, waitMs = 60_000): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (tryCreate(lock)) break;
    if (isStale(lock)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`the lock ${lock} stayed busy for ${Math.round(waitMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

function tryCreate(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    writeSync(fd, JSON.stringify({ pid: process.pid, at: Date.now() }));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** True when the lock's owner process is gone or the lock is older than {@link STALE_LOCK_MS}. */
function isStale(lock: string): boolean {
  let owner: { pid?: number; at?: number };
  try {
    owner = JSON.parse(readFileSync(lock, 'utf8')) as { pid?: number; at?: number };
  } catch {
    // Being written right now, or just removed: not stale, try again.
    return false;
  }
  if (typeof owner.at === 'number' && Date.now() - owner.at > STALE_LOCK_MS) return true;
  if (typeof owner.pid !== 'number') return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
