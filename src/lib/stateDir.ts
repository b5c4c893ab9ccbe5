/**
 * toolshelf's state folder and the one way files are written into it. The folder holds the
 * catalogue cache (`catalog/`), pins (`pins/`), the shared instances' sockets and logs (`shared/`),
 * and OAuth credentials. Files unused for 30 days are pruned (prune.ts, docs/operations.md). Only the current user may read it: folders are
 * created 0700, files 0600, and every file is written to a temp name and renamed, so a reader never
 * sees half a file. Source: issue #11 points 1–2 (XDG Base Directory: `$XDG_STATE_HOME`).
 */
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Environment variable naming the state folder (tests point it at a temp folder). */
export const STATE_DIR_ENV = 'TOOLSHELF_STATE_DIR';

/**
 * The state folder: `$TOOLSHELF_STATE_DIR`, else `$XDG_STATE_HOME/toolshelf`, else
 * `~/.local/state/toolshelf`. Pure: nothing is created here.
 */
export function stateDir(env: Readonly<Record<string, string | undefined>>): string {
  const own = env[STATE_DIR_ENV];
  if (own) return resolve(own);
  const xdg = env.XDG_STATE_HOME;
  return join(xdg ? resolve(xdg) : join(homedir(), '.local', 'state'), 'toolshelf');
}

/**
 * Creates `dir` (and parents) readable by the current user only. A `dir` that already exists with
 * access for group or others (made by hand, or by someone else beforehand) is narrowed to 0700:
 * `mkdir`'s mode applies only to folders it creates, and in a folder others may write to, they could
 * replace a shared instance's socket or read its log.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Writes `text` to `path` atomically with mode 0600: a temp file beside it (named by pid and a
 * counter, so concurrent writers never share one), then rename. Creates the folder 0700.
 * @throws the file system's error (the caller decides whether a cache write may fail quietly).
 */
export function writePrivateFile(path: string, text: string): void {
  ensurePrivateDir(dirname(path));
  const temp = `${path}.${process.pid}.${(writes += 1)}.tmp`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

let writes = 0;

/**
 * Sets `path`'s access and modification times to now, quietly (a file gone or read-only stays as it
 * is). A file in the state folder that is loaded is touched, so pruning by mtime keeps what is in use
 * (prune.ts, docs/operations.md).
 */
export function touch(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    // Best effort: a file that cannot be touched is at worst listed afresh once it is pruned.
  }
}
