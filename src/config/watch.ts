/**
 * Config reload: watches the config file and applies each valid edit; a file
 * that fails validation is refused with every problem listed and the running config kept. Watches
 * the file and its folder, because editors that save by writing a new file and renaming it over the
 * old one (vim, JetBrains) end the file's own watch. A config that is a symlink (dotfiles, a
 * Kubernetes ConfigMap) changes where the link points, so the file's watch is renewed after every
 * change and the folder of the file it resolves to is watched too. The file's status is polled as
 * well ({@link RELOAD_POLL_MS}), for what no watch sees. Events are debounced, and a save that leaves
 * the text unchanged does nothing.
 */
import { existsSync as exists, realpathSync, unwatchFile, watch, watchFile, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseConfig } from './load.js';
import { readConfigText } from './read.js';
import type { Config, ConfigProblem } from './types.js';

/** Quiet time after the last file event before the file is read, in ms (editors write in bursts). */
export const RELOAD_DEBOUNCE_MS = 200;
/**
 * How often the file's status is also polled, in ms: the backstop for what fs.watch misses (its
 * folder deleted and made again, file systems without change events such as some network and
 * container mounts). One stat a poll.
 */
export const RELOAD_POLL_MS = 2000;

/** What the watcher reports. */
export interface ConfigWatchHooks {
  /** A changed file that is valid; resolves once applied (the next change waits for it). */
  readonly onValid: (config: Config) => Promise<void>;
  /** A changed file that is not; every problem by JSON path. */
  readonly onInvalid: (problems: readonly ConfigProblem[]) => void;
  /** The file is gone (still missing {@link RELOAD_DEBOUNCE_MS} after a poll saw it missing); once per disappearance. */
  readonly onGone?: () => void;
}

/** A running watch; `close()` ends it. */
export interface ConfigWatch {
  close(): void;
}

/**
 * Watches `path` (its text as last applied is `appliedText`, read before the watch began: the file
 * is read once more at once), expanding `${VAR}` with `env`. Never throws after start: a file that
 * cannot be read is reported through `onInvalid`.
 */
export function watchConfig(path: string, appliedText: string, env: Readonly<Record<string, string | undefined>>, hooks: ConfigWatchHooks): ConfigWatch {
  const file = resolve(path);
  const name = basename(file);
  let applied = appliedText;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const check = async (): Promise<void> => {
    // A check queued behind one still applying when close() came.
    if (closed) return;
    let text: string;
    try {
      text = readConfigText(file);
    } catch (error) {
      // Mid-rename the file can be missing for a moment; the rename's own event brings us back.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      return hooks.onInvalid([{ path: '/', message: `cannot read ${file}: ${(error as Error).message}` }]);
    }
    if (text === applied) return;
    applied = text;
    const parsed = parseConfig(text, env, dirname(file));
    if (!parsed.ok) return hooks.onInvalid(parsed.error);
    await hooks.onValid(parsed.value);
  };
  const add = (into: FSWatcher[], target: string, filter?: (changed: string | null) => boolean): void => {
    try {
      const watcher = watch(target, { persistent: false }, (_event, changed) => {
        if (!filter || filter(changed)) schedule();
      });
      watcher.on('error', () => watcher.close());
      into.push(watcher);
    } catch {
      // A platform without fs.watch for this target (or the file is missing): the folders' watches still cover most edits.
    }
  };
  const folder: FSWatcher[] = [];
  let current: FSWatcher[] = [];
  /**
   * Watches the file as it is now (its own watch ends when it is replaced, and the watch of the file
   * a symlink resolves to sees nothing once the link is repointed) and the folder of the file it resolves to.
   * A symlinked config applied its first save by rename and no later one.
   */
  const renew = (): void => {
    for (const watcher of current.splice(0)) watcher.close();
    if (closed) return;
    add(current, file);
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      return;
    }
    if (dirname(real) !== dirname(file)) add(current, dirname(real), (changed) => changed === null || changed === basename(real));
  };
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(check, check).finally(renew);
    }, RELOAD_DEBOUNCE_MS);
  };
  add(folder, dirname(file), (changed) => changed === null || changed === name);
  renew();
  // A config whose folder was deleted and made again was never read again: its folder's watch ended with it.
  const polled = (now: Stats, before: Stats): void => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) schedule();
    // watchFile gives zeroed stats for a missing file. A deleted config was kept without a word;
    // an editor that deletes before it writes is back within the debounce, so that is not reported.
    if (now.mtimeMs === 0 && before.mtimeMs !== 0) {
      setTimeout(() => {
        if (!closed && !exists(file)) hooks.onGone?.();
      }, RELOAD_DEBOUNCE_MS).unref();
    }
  };
  watchFile(file, { interval: RELOAD_POLL_MS, persistent: false }, polled);
  // The text was read before the upstreams started (seconds, for a first `npx` download): an edit
  // saved meanwhile had no watch to see it and waited for the next one.
  schedule();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      unwatchFile(file, polled);
      for (const watcher of [...folder, ...current.splice(0)]) watcher.close();
    },
  };
}
