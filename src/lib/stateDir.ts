/**
 * toolshelf's state folder and the one way files are read from and written into it. The folder holds
 * the catalogue cache (`catalog/`), pins (`pins/`), the shared instances' sockets and logs (`shared/`),
 * and OAuth credentials. Files unused for 30 days are pruned (prune.ts, docs/operations.md). Only the
 * current user may use it: folders are created 0700, files 0600, every file is written to a temp name
 * and renamed, so a reader never sees half a file, and a folder or file owned by another user or
 * writable by group or others is refused, never repaired, since whoever could write to it may already
 * have replaced what is in it (docs/security.md, "Local state and environment"). Source: XDG Base
 * Directory (`$XDG_STATE_HOME`).
 */
import { chmodSync, closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Environment variable naming the state folder (tests point it at a temp folder). */
export const STATE_DIR_ENV = 'TOOLSHELF_STATE_DIR';

/** Refusal of a state folder or file that is not the current user's alone; `message` says what to fix. */
export class UnsafeStateError extends Error {
  readonly code = 'unsafe_state';
}

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

/** `O_NOFOLLOW` where the platform has it (0 on Windows, whose links need privileges to make). */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Why `path` (a folder or a file, with `stats` from stat or fstat) may not be used, or undefined: it
 * must belong to the current user (`uid`) and not be writable by group or others. Each reason says
 * what to fix. Pure. Without uids (Windows) nothing is checked: folder permissions there are ACLs.
 */
export function ownershipProblem(path: string, stats: Pick<Stats, 'uid' | 'mode'>, uid: number | undefined, kind: 'folder' | 'file'): string | undefined {
  if (uid === undefined) return undefined;
  const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
  if (stats.uid !== uid) {
    return `the ${kind} ${path} belongs to another user (uid ${stats.uid}, not ${uid}): toolshelf keeps its state only where no one else can change it; remove it (or ask its owner to) or point ${STATE_DIR_ENV} at a folder of yours`;
  }
  if ((stats.mode & 0o022) !== 0) {
    return `the ${kind} ${path} is writable by group or others (mode ${mode}): anyone could have replaced what is in it; check it, then run chmod ${kind === 'folder' ? '700' : '600'} ${path}, or remove it`;
  }
  return undefined;
}

/** The current user's id, undefined where there are none (Windows). */
function currentUid(): number | undefined {
  return process.getuid?.();
}

/**
 * The folders from `root` down to `dir` (both included; just `dir` when `root` is not above it).
 */
function chain(dir: string, root: string): string[] {
  const below = relative(root, dir);
  if (below === '' || below.startsWith('..') || isAbsolute(below)) return [dir];
  const folders = [root];
  for (const part of below.split(sep)) folders.push(join(folders.at(-1)!, part));
  return folders;
}

/**
 * Creates `dir` (and parents) readable by the current user only, and checks it and every folder
 * between `root` (the state folder, when `dir` is under it) and it with {@link ownershipProblem},
 * each before anything is made in it.
 * A folder of the user's that only others may read (0755) is narrowed to 0700; one they may write
 * to, or one of someone else's, is refused: a folder made beforehand by another user (under /tmp,
 * mode 0777) could hold a poisoned cache or a socket they listen on.
 * @throws UnsafeStateError saying what to fix; the file system's error when it cannot be made.
 */
export function ensurePrivateDir(dir: string, root: string = dir): void {
  const uid = currentUid();
  const folders = chain(dir, root);
  // Folders above the state folder are the user's business; from it down, each is checked before anything is made in it.
  mkdirSync(dirname(folders[0]!), { recursive: true, mode: 0o700 });
  for (const folder of folders) {
    let exists: unknown;
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      exists = error;
    }
    // stat, not lstat: a state folder the user linked elsewhere is theirs to link; its target is checked.
    const stats = statSync(folder);
    if (!stats.isDirectory()) throw exists;
    const problem = ownershipProblem(folder, stats, uid, 'folder');
    if (problem !== undefined) throw new UnsafeStateError(problem);
    if ((stats.mode & 0o077) !== 0) chmodSync(folder, 0o700);
  }
}

/**
 * Why the existing folder `dir` (and those between `root` and it) may not be used, or undefined when
 * each is the user's alone or absent. For readers that skip the state rather than refuse to run.
 */
export function privateDirProblem(dir: string, root: string = dir): string | undefined {
  const uid = currentUid();
  for (const folder of chain(dir, root)) {
    let stats: Stats;
    try {
      stats = statSync(folder);
    } catch {
      return undefined;
    }
    const problem = ownershipProblem(folder, stats, uid, 'folder');
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * `openSync(path, flags | O_NOFOLLOW, mode)`: a symbolic link at `path` (which another user could
 * point at a file of the user's, to have toolshelf append to it) is refused.
 * @throws UnsafeStateError for a link; the file system's error otherwise.
 */
export function openNoFollow(path: string, flags: number, mode = 0o600): number {
  try {
    return openSync(path, flags | NO_FOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeStateError(`${path} is a symbolic link: toolshelf does not follow links to its state, logs or traces; remove the link or name the file it points to`);
    throw error;
  }
}

/**
 * Opens `path` without following a symbolic link at it ({@link openNoFollow}) and checks the file opened
 * (fstat: the checked file is the one read) with {@link ownershipProblem}. Returns the descriptor.
 * @throws UnsafeStateError for a link at `path` or a file not the user's alone; the file system's error otherwise.
 */
export function openPrivateFile(path: string, flags: number, mode = 0o600): number {
  const fd = openNoFollow(path, flags, mode);
  const problem = ownershipProblem(path, fstatSync(fd), currentUid(), 'file');
  if (problem !== undefined) {
    closeSync(fd);
    throw new UnsafeStateError(problem);
  }
  return fd;
}

/**
 * The text of the state file `path`, or undefined when there is none. Read through
 * {@link openPrivateFile}. @throws UnsafeStateError as it does, and for anything but a regular file
 * (a FIFO, a device); the file system's error otherwise.
 */
export function readPrivateFile(path: string): string | undefined {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO put where a state file belongs would otherwise wait for a writer forever.
    fd = openPrivateFile(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UnsafeStateError(`${path} is not a regular file: toolshelf reads its state only from files it wrote; remove it`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the log or trace file `path` for appending (created 0600), without following a link at it
 * and only when it is the user's alone ({@link openPrivateFile}). Returns the descriptor.
 */
export function openPrivateAppend(path: string): number {
  return openPrivateFile(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
}

/**
 * Writes `text` to `path` atomically with mode 0600: a new temp file beside it (named by pid and a
 * counter, so concurrent writers never share one; created exclusively, so never through a link),
 * then rename. Creates the folder 0700 and checks it (and those from `root` down) with {@link ensurePrivateDir}.
 * @throws UnsafeStateError or the file system's error (the caller decides whether a cache write may fail quietly).
 */
export function writePrivateFile(path: string, text: string, root?: string): void {
  ensurePrivateDir(dirname(path), root);
  const temp = `${path}.${process.pid}.${(writes += 1)}.tmp`;
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
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
