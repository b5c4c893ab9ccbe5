/**
 * The manifest memo: tool_search's description stored by a hash of everything its rendering reads,
 * so a gateway started over an unchanged catalogue reuses the text instead of fitting it to the
 * token budget again, and never loads the o200k tokenizer for it (~0.2–0.8 s, ~60 MiB). Rendering is
 * deterministic (docs/tools.md), so a hit is byte-identical to a fresh render. Files live beside the
 * catalogue cache (`<state>/catalog/manifest-<hash>.json`), written atomically, 0600; an unreadable
 * file is a miss. Source: docs/operations.md.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { CatalogEntry } from '../catalog/types.js';
import { privateDirProblem, readPrivateFile, touch, writePrivateFile } from '../lib/stateDir.js';

/** What is kept of a rendered tool_search description. */
export interface MemoizedManifest {
  readonly text: string;
  readonly warnings: readonly string[];
}

/** Where memoized manifests are kept. */
export interface ManifestMemo {
  get(key: string): MemoizedManifest | undefined;
  set(key: string, value: MemoizedManifest): void;
}

/**
 * The memo key of a render: the code's `version`, the budget, the character cap and, per deferred
 * entry, everything the manifest may read: qualified name, server, the whole upstream declaration
 * (description, inputSchema, title, annotations, _meta), the projected description and keywords; 32
 * hex digits of SHA-256. The declaration is serialised in its own key order, not sorted as pins are
 * (lib/hash.ts `stableJson`): an upstream that reorders keys costs one render, never a wrong text,
 * and sorting every key of 10,000 declarations took ~100 ms of a cached start (docs/performance.md). Pure.
 */
export function manifestKey(version: string, entries: readonly CatalogEntry[], tokenBudget: number, maxChars: number | undefined): string {
  const input = [version, tokenBudget, maxChars ?? null, entries.map((e) => [e.qualifiedName, e.server, e.tool, e.projected.description, e.keywords])];
  return createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 32);
}

/**
 * A memo of files under `dir` (in the state folder `root`). Write failures are ignored: the memo only
 * saves time. Nothing is read or written where the folders or the file are not the user's alone
 * (`lib/stateDir.ts`): a planted memo would be the manifest itself. The catalogue cache warns about it.
 */
export function fileManifestMemo(dir: string, root: string = dir): ManifestMemo {
  const path = (key: string): string => join(dir, `manifest-${key}.json`);
  let usable: boolean | undefined;
  const isPrivate = (): boolean => (usable ??= privateDirProblem(dir, root) === undefined);
  return {
    get(key) {
      if (!isPrivate()) return undefined;
      try {
        const value = JSON.parse(readPrivateFile(path(key)) ?? 'null') as Partial<MemoizedManifest> | null;
        if (typeof value?.text !== 'string' || !Array.isArray(value.warnings)) return undefined;
        // Used now: pruning by age keeps it (lib/prune.ts).
        touch(path(key));
        return value as MemoizedManifest;
      } catch {
        return undefined;
      }
    },
    set(key, value) {
      if (!isPrivate()) return;
      try {
        writePrivateFile(path(key), JSON.stringify(value), root);
      } catch {
        // A read-only or full disk costs the next start a render, nothing else.
      }
    },
  };
}
