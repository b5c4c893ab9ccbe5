/**
 * The closest program name on a PATH, for a command that was not found (`mcp-server-memroy` →
 * `mcp-server-memory`). Work stays bounded however often an upstream fails: each PATH folder is read
 * once (names only, no stat per file) and kept until its mtime changes, at most
 * {@link MAX_NAMES_PER_FOLDER} names of at most {@link MAX_FOLDERS} folders are compared, and only the
 * few closest names are checked for being runnable files.
 */
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { editDistance } from '../discovery/suggest.js';

/** Most PATH folders looked at for one suggestion. */
export const MAX_FOLDERS = 64;
/** Most names of one folder kept (a folder holding more is compared on its first ones, in readdir order). */
export const MAX_NAMES_PER_FOLDER = 10_000;
/** Below this similarity (1 − edit distance / longer length) a name is not offered. */
const MIN_SIMILARITY = 0.75;
/** Names that may be shown: a file name is untrusted text, and a control character never reaches a terminal. */
const PLAIN_NAME = /^[A-Za-z0-9._+@-]{1,128}$/;

/** One folder's names as read at `mtimeMs`. */
interface FolderNames {
  readonly mtimeMs: number;
  readonly names: readonly string[];
}

const folders = new Map<string, FolderNames>();

/** The names in `folder`, from the cache while its mtime is unchanged; [] for a folder that cannot be read. */
function namesIn(folder: string): readonly string[] {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(folder).mtimeMs;
  } catch {
    folders.delete(folder);
    return [];
  }
  const cached = folders.get(folder);
  if (cached?.mtimeMs === mtimeMs) return cached.names;
  let names: string[] = [];
  try {
    names = readdirSync(folder)
      .slice(0, MAX_NAMES_PER_FOLDER)
      .filter((name) => PLAIN_NAME.test(name));
  } catch {
    // Unreadable: nothing to offer from it.
  }
  if (folders.size >= MAX_FOLDERS * 4) folders.clear();
  folders.set(folder, { mtimeMs, names });
  return names;
}

/** `name` in `folder` is a file the current user may run. */
function runnable(folder: string, name: string): boolean {
  const path = join(folder, name);
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The runnable program on `path` (a PATH value, `delimiter`-separated) whose name is closest to
 * `command`, when at least 75% similar by edit distance; undefined for a command with a folder in it
 * (not looked up on PATH), or when nothing is close. Never throws.
 */
export function closestProgram(command: string, path: string | undefined): string | undefined {
  if (!path || command.includes('/') || command.includes('\\')) return undefined;
  const target = command.toLowerCase();
  const scored: { name: string; folder: string; distance: number }[] = [];
  for (const folder of [...new Set(path.split(delimiter).filter(Boolean))].slice(0, MAX_FOLDERS)) {
    for (const name of namesIn(folder)) {
      const longest = Math.max(name.length, target.length);
      const limit = Math.floor(longest * (1 - MIN_SIMILARITY));
      const distance = editDistance(target, name.toLowerCase(), limit);
      if (distance > 0 && distance <= limit) scored.push({ name, folder, distance });
    }
  }
  scored.sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, 5).find((hit) => runnable(hit.folder, hit.name))?.name;
}
