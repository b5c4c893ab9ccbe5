/**
 * Catalogue shapes: what the configuration admits of every upstream's tools.
 * Source: docs/architecture.md (terms), docs/configuration.md (exposure, names), docs/tools.md (canonical vs projected schema).
 */

/** How a tool reaches the model (docs/configuration.md). */
export type Exposure = 'direct' | 'deferred' | 'hidden';

/** A JSON object as parsed from the wire: kept verbatim, unknown fields included. */
export type JsonObject = { [key: string]: unknown };

/**
 * One tool exactly as an upstream's `tools/list` declared it (after permissive parsing):
 * `name` is a non-empty string and `inputSchema` an object; every other field is kept verbatim.
 */
export interface UpstreamTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  readonly [field: string]: unknown;
}

/** The schema and description that go on the wire for one tool (docs/tools.md). */
export interface ProjectedTool {
  /** Description as advertised: synthesised when missing, clipped to the description budget. */
  readonly description: string;
  /** The projected inputSchema: byte-identical to the canonical one when nothing had to change. */
  readonly inputSchema: JsonObject;
  /** Highest compaction rung applied, 0 when none (the ladder in docs/tools.md, 1..6). */
  readonly rung: number;
  /** UTF-8 bytes of the compact JSON of the canonical and projected inputSchema. */
  readonly canonicalBytes: number;
  readonly projectedBytes: number;
  /** False when even the top-level surface alone exceeds the schema budget. */
  readonly withinBudget: boolean;
  /**
   * The tool's other fields as they go on the wire (`outputSchema`, `title`, `annotations`, unknown
   * fields…), each of the shape MCP's `Tool` requires (`schema/wire.ts`).
   */
  readonly fields: JsonObject;
  /** What the wire form left out of the declaration, one sentence each; empty when nothing. */
  readonly leftOut: readonly string[];
}

/** One admitted upstream tool, immutable once built. */
export interface CatalogEntry {
  /** The name the client sees (docs/configuration.md). */
  readonly qualifiedName: string;
  /** The `mcpServers` key of the upstream that owns the tool. */
  readonly server: string;
  /** The tool's name on its upstream. */
  readonly upstreamName: string;
  readonly exposure: Exposure;
  /** Trigger words from the config (`tools.<pattern>.keywords`), sorted shorter first then alphabetically. */
  readonly keywords: readonly string[];
  /**
   * The tool as the upstream declared it with every string but its name cleaned (`trust/cleanTool.ts`):
   * what the manifest, search, `inspect` and the wire show. The same object as declared when clean.
   */
  readonly tool: UpstreamTool;
  /**
   * The inputSchema exactly as declared: admission validates against it and forwarding reads it, so
   * cleaning never changes which arguments pass (`docs/security.md`, "Clean text and fenced instructions").
   */
  readonly canonicalSchema: JsonObject;
  /** What goes on the wire. */
  readonly projected: ProjectedTool;
}
