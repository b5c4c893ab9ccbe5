/**
 * Projection of one upstream tool onto the wire: preparation (if asked for), then compaction to the
 * budget, plus the advertised description. Pure; the catalogue calls it once per tool per snapshot.
 * Source: DESIGN §7 ("Schemas on the wire").
 */

import type { ProjectedTool, UpstreamTool } from '../catalog/types.js';
import type { CompactionBudget, PrepareOptions } from '../config/types.js';
import { clipDescription, compactSchema } from './compact.js';
import { jsonBytes } from './measure.js';
import { describeTool, prepareSchema } from './prepare.js';
import type { CompactionResult } from './types.js';

/** What `projectTool` needs from the (per-server or global) schema settings. */
export interface ProjectionOptions {
  readonly prepare: PrepareOptions;
  /** `false` disables compaction: schema and description go out at any size. */
  readonly compaction: CompactionBudget;
}

/**
 * Projects `tool` for advertising and search results.
 * - `inputSchema` is `tool.inputSchema` itself (same object, so byte-identical JSON) when no
 *   preparation is asked for and it fits `maxSchemaBytes`; otherwise a new object. Either way it may be
 *   shared with the canonical schema: treat it as read-only.
 * - `description` is the upstream's, or one synthesised from the name, clipped to `maxDescriptionBytes`.
 * - `rung` is the highest ladder rung applied (0 = none); byte counts are UTF-8 bytes of compact JSON.
 * - `withinBudget` is false only when even the top-level surface exceeds `maxSchemaBytes`; the schema is
 *   then that surface, the most compacted form there is.
 * Never throws on JSON input. Source: DESIGN §7.
 */
export function projectTool(tool: UpstreamTool, options: ProjectionOptions): ProjectedTool {
  const canonical = tool.inputSchema;
  const canonicalBytes = jsonBytes(canonical);
  const prepared = prepareSchema(canonical, options.prepare);
  const { compaction } = options;
  const description = describeTool(tool.name, tool.description);
  const compacted: CompactionResult =
    compaction === false
      ? { schema: prepared, rung: 0, bytes: prepared === canonical ? canonicalBytes : jsonBytes(prepared) }
      : compactSchema(prepared, compaction.maxSchemaBytes, prepared === canonical ? canonicalBytes : jsonBytes(prepared));
  return {
    description: compaction === false ? description : clipDescription(description, compaction.maxDescriptionBytes),
    inputSchema: compacted.schema,
    rung: compacted.rung,
    canonicalBytes,
    projectedBytes: compacted.bytes,
    withinBudget: compaction === false || compacted.bytes <= compaction.maxSchemaBytes,
  };
}
