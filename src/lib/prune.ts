/**
 * Keeps the state folder tidy: catalogue, pin and shared-instance log files that nothing used for
 * {@link PRUNE_AFTER_MS} are removed, at most once a day (a stamp file's mtime says when it last ran).
 * "Used" is the file's mtime: a catalogue or pin file is touched when it is loaded, a log when it is
 * written. A shared instance's files are kept while the instance runs, however old. What is pruned
 * is a cache or a record: the cost of a wrong guess is one fresh listing. See docs/operations.md.
 */
import { readdirSync, rmSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from './stateDir.js';

/** Age after which an unused file is pruned, in ms (30 days). */
export const PRUNE_AFTER_MS = 30 * 86_400_000;
/** Least time between two prunings, in ms (one day). */
export const PRUNE_EVERY_MS = 86_400_000;
/** The stamp file under the state folder whose mtime is the last pruning. */
export const PRUNE_STAMP = 'pruned-at';
/** Most files looked at in one folder per pruning: a start never walks an unbounded folder. */
const MAX_FILES_PER_FOLDER = 10_000;

/** Where and how to prune. */
export interface PruneOptions {
  /** The state folder (`catalog/` and `pins/` under it). */
  readonly stateDir: string;
  /** Folders of shared instances' files (`<name>.sock`, `.pid`, `.log`, `.status`). */
  readonly sharedDirs: readonly string[];
  /** Whether the shared instance whose files are `<base>.*` (full path without the extension) runs now. */
  readonly instanceRunning: (base: string) => boolean;
  /** Now, in ms since the epoch (default Date.now()). */
  readonly now?: number;
}

/** What a pruning did: the files removed (full paths), or `skipped` when one ran less than a day ago. */
export type PruneResult = { readonly skipped: true } | { readonly skipped: false; readonly removed: readonly string[] };

/** The entries of `dir` with their stats (files only), at most {@link MAX_FILES_PER_FOLDER}; [] for a folder that cannot be read. */
function filesIn(dir: string): { path: string; name: string; stats: Stats }[] {
  let names: string[];
  try {
    names = readdirSync(dir).slice(0, MAX_FILES_PER_FOLDER);
  } catch {
    return [];
  }
  const files: { path: string; name: string; stats: Stats }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const stats = statSync(path);
      files.push({ path, name, stats });
    } catch {
      // Gone meanwhile.
    }
  }
  return files;
}

/** Removes `path` quietly; true when it was removed. */
function remove(path: string): boolean {
  try {
    rmSync(path, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Prunes the state folder unless a pruning ran less than {@link PRUNE_EVERY_MS} ago: in `catalog/`
 * and `pins/` (one level of subfolders too), every file whose mtime is over {@link PRUNE_AFTER_MS}
 * old; in each shared folder, the files of an instance that does not run and whose every file is
 * that old. The stamp is written first, so starts at the same moment prune once. Never throws.
 */
export function pruneStateFolder(options: PruneOptions): PruneResult {
  const now = options.now ?? Date.now();
  const stamp = join(options.stateDir, PRUNE_STAMP);
  try {
    if (now - statSync(stamp).mtimeMs < PRUNE_EVERY_MS) return { skipped: true };
  } catch {
    // No stamp: never pruned here.
  }
  try {
    writePrivateFile(stamp, `${new Date(now).toISOString()}\n`);
  } catch {
    return { skipped: true };
  }
  const cutoff = now - PRUNE_AFTER_MS;
  const removed: string[] = [];
  const pruneFiles = (dir: string, depth: number): void => {
    for (const { path, stats } of filesIn(dir)) {
      if (stats.isDirectory() && depth > 0) pruneFiles(path, depth - 1);
      else if (stats.isFile() && stats.mtimeMs < cutoff && remove(path)) removed.push(path);
    }
  };
  pruneFiles(join(options.stateDir, 'catalog'), 0);
  pruneFiles(join(options.stateDir, 'pins'), 1);
  for (const dir of new Set(options.sharedDirs)) {
    const instances = new Map<string, { path: string; stats: Stats }[]>();
    for (const file of filesIn(dir)) {
      const match = /^(.+)\.(sock|pid|log|status)$/.exec(file.name);
      if (!match) continue;
      const base = join(dir, match[1]!);
      instances.set(base, [...(instances.get(base) ?? []), file]);
    }
    for (const [base, files] of instances) {
      if (files.some((file) => file.stats.mtimeMs >= cutoff) || options.instanceRunning(base)) continue;
      for (const file of files) if (remove(file.path)) removed.push(file.path);
    }
  }
  return { skipped: false, removed };
}
