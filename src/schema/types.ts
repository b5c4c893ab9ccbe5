/**
 * Shapes of the schema folder: compaction results and admission verdicts.
 * Catalogue-wide shapes (UpstreamTool, ProjectedTool, JsonObject) live in `catalog/types.ts`.
 * Source: docs/tools.md.
 */

import type { JsonObject } from '../catalog/types.js';

/** Compaction ladder rung: 0 = untouched, 1..6 = the rungs of the ladder in docs/tools.md, in order. */
export type Rung = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/** What `compactSchema` returns: the schema to advertise, the highest rung applied, its size in UTF-8 bytes. */
export interface CompactionResult {
  readonly schema: JsonObject;
  readonly rung: Rung;
  readonly bytes: number;
}

/** One argument problem: `path` is a JSON pointer into the arguments (`""` is the root). */
export interface Violation {
  readonly path: string;
  readonly message: string;
}

/**
 * Outcome of admission for one call (docs/tools.md).
 * `ok: true, validated: false` means the canonical schema could not be compiled and the call goes
 * through unchecked; `warning` is set the first time that happens for a key.
 * `ok: false` carries every violation and `text`, the model-readable summary for an `isError` result.
 */
export type AdmissionVerdict =
  | { readonly ok: true; readonly validated: boolean; readonly warning?: string }
  | { readonly ok: false; readonly violations: readonly Violation[]; readonly text: string };
