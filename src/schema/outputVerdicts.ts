/**
 * The outputSchema compile verdicts (wire.ts) kept in the state folder between starts, beside the
 * catalogue cache (`<state>/catalog/output-verdicts.json`, 0600, written atomically), so a start from
 * the catalogue cache needs neither ajv nor a compile for schemas seen before. Nothing is read or
 * written where the folders or the file are not the user's alone (`lib/stateDir.ts`): a planted
 * "compiles" would let a schema through that sinks a client's tool list. An unreadable file is empty.
 */
import { join } from 'node:path';
import { privateDirProblem, readPrivateFile, touch, writePrivateFile } from '../lib/stateDir.js';
import { knownCompileVerdicts, rememberCompileVerdicts } from './wire.js';

/** Most verdicts kept in the file (the newest): ~60 bytes each. */
export const MAX_KEPT_VERDICTS = 20_000;

/** Reading and saving the verdicts for one state folder. */
export interface OutputVerdictFile {
  /** Adds the file's verdicts to those known in this process. */
  load(): void;
  /** Writes the verdicts known when some were added since the last load or save; failures are ignored. */
  save(): void;
}

/** The verdict file in `dir` (in the state folder `root`). */
export function outputVerdictFile(dir: string, root: string = dir): OutputVerdictFile {
  const path = join(dir, 'output-verdicts.json');
  const usable = (): boolean => privateDirProblem(dir, root) === undefined;
  let saved = -1;
  return {
    load() {
      if (!usable()) return;
      try {
        const text = readPrivateFile(path);
        const value = JSON.parse(text ?? '{}') as unknown;
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
        // Used now: pruning by age keeps it (lib/prune.ts).
        if (text !== undefined) touch(path);
        rememberCompileVerdicts(Object.entries(value).filter((entry): entry is [string, string] => /^[0-9a-f]{32}$/.test(entry[0]) && typeof entry[1] === 'string'));
      } catch {
        // Unreadable: each schema is compiled again, as without the file.
      }
      saved = knownCompileVerdicts().size;
    },
    save() {
      const known = knownCompileVerdicts();
      if (known.size === saved || !usable()) return;
      try {
        writePrivateFile(path, JSON.stringify(Object.fromEntries([...known].slice(-MAX_KEPT_VERDICTS))), root);
        saved = known.size;
      } catch {
        // A read-only or full disk costs the next start the compiles, nothing else.
      }
    },
  };
}
