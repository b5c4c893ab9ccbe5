/**
 * Which config file a command uses when `--config` is not given, without loading it: shared by every
 * command (common.ts) and the stdio relay's entry (relay.ts), which must not load common.ts's
 * dependencies (docs/performance.md, "Memory").
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BUNDLED_CONFIG } from '../packageFiles.js';

/** The config looked for in the current folder when `--config` is not given. */
export const LOCAL_CONFIG = 'servers.config.json';

/** The config to load and, when no `--config` named it, the line that says which one was chosen and why. */
export interface ConfigChoice {
  readonly path: string;
  /** `toolshelf: config: …` with its newline, for stderr. */
  readonly note?: string;
}

/**
 * The config to load: `given` (the `--config` flag) as is; without it `./servers.config.json` when
 * the current folder `cwd` has one, else {@link BUNDLED_CONFIG}, so `npx toolshelf` works from any
 * folder. Without the flag, `note` says which one was chosen. Source: docs/configuration.md, "Which file".
 */
export function configChoice(given: string | undefined, cwd: string): ConfigChoice {
  if (given !== undefined) return { path: given };
  const local = resolve(cwd, LOCAL_CONFIG);
  if (existsSync(local)) return { path: local, note: `toolshelf: config: ${local} (no --config given; found ./${LOCAL_CONFIG})\n` };
  return { path: BUNDLED_CONFIG, note: `toolshelf: config: ${BUNDLED_CONFIG} (no --config given and no ./${LOCAL_CONFIG} here: the bundled one)\n` };
}
