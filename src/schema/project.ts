/**
 * Projection of one upstream tool onto the wire: preparation (if asked for), then compaction to the
 * budget, plus the advertised description. Pure; the catalogue calls it once per tool per snapshot.
 * Source: docs/tools.md, "Schemas on the wire".
 */

import type { ProjectedTool, UpstreamTool } from '../catalog/types.js';
import type { CompactionBudget, PrepareOptions } from '../config/types.js';
import { clipDescription, clipTitles, compactSchema } from './compact.js';
import { jsonBytes } from './measure.js';
import { describeTool, prepareSchema } from './prepare.js';
import type { CompactionResult } from './types.js';
import { wireFields, wireInputSchema } from './wire.js';

/** What `projectTool` needs from the (per-server or global) schema settings. */
export interface ProjectionOptions {
  readonly prepare: PrepareOptions;
  /** `false` disables compaction: schema and description go out at any size. */
  readonly compaction: CompactionBudget;
}

/** A tool that has no wire form: its inputSchema accepts no object. */
export class UnservableToolError extends Error {
  readonly code = 'unservable_tool';
}

/**
 * Projects `tool` for advertising and search results.
 * - `inputSchema` is `tool.inputSchema` itself (same object, so byte-identical JSON) when it is a valid
 *   MCP object schema, no preparation is asked for and it fits `maxSchemaBytes`; otherwise a new object.
 *   Either way it may be shared with the canonical schema: treat it as read-only. A schema MCP's `Tool`
 *   rejects is normalised first (`schema/wire.ts`), so every projection is one a client accepts.
 * - `description` is the upstream's, or one synthesised from the name, clipped to `maxDescriptionBytes`.
 * - `rung` is the highest ladder rung applied (0 = none); byte counts are UTF-8 bytes of compact JSON.
 * - `withinBudget` is false only when even the top-level surface exceeds `maxSchemaBytes`; the schema is
 *   then that surface, the most compacted form there is.
 * - `fields` are the other fields for the wire and `leftOut` what they had to leave out (`wireFields`).
 * Throws {@link UnservableToolError} when the inputSchema accepts no object; never otherwise on JSON
 * input short of nesting too deep for the stack. Source: docs/tools.md.
 */
export function projectTool(tool: UpstreamTool, options: ProjectionOptions): ProjectedTool {
  const canonical = tool.inputSchema;
  const canonicalBytes = jsonBytes(canonical);
  const wire = wireInputSchema(canonical);
  if (!wire.ok) throw new UnservableToolError(wire.reason);
  const prepared = prepareSchema(wire.schema, options.prepare);
  const preparedBytes = prepared === canonical ? canonicalBytes : jsonBytes(prepared);
  const { compaction } = options;
  const description = describeTool(tool.name, tool.description);
  const compacted: CompactionResult =
    compaction === false ? { schema: prepared, rung: 0, bytes: preparedBytes } : compactSchema(prepared, compaction.maxSchemaBytes, preparedBytes);
  const { fields, removed } = wireFields(tool);
  return {
    description: compaction === false ? description : clipDescription(description, compaction.maxDescriptionBytes),
    inputSchema: compacted.schema,
    rung: compacted.rung,
    canonicalBytes,
    projectedBytes: compacted.bytes,
    withinBudget: compaction === false || compacted.bytes <= compaction.maxSchemaBytes,
    fields: compaction === false ? fields : clipTitles(fields),
    leftOut: removed,
  };
}
