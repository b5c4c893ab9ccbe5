/**
 * What a gateway session needs from the rest of toolshelf, as interfaces: the current shelf
 * (catalogue + discovery), a way to call upstreams, admission. `gateway/` imports nothing from
 * `upstream/` at run time: the pool satisfies {@link UpstreamCaller} structurally.
 */
import type { Catalogue } from '../catalog/build.js';
import type { CallOptions, CallOutcome } from '../upstream/types.js';

/** Calls one tool on one upstream by its upstream name. Never rejects. */
export interface UpstreamCaller {
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
}

/** How a search went (DESIGN §5, §8, §10). `matched` holds qualified names from the catalogue only. */
export interface SearchOutcome {
  readonly matched: readonly string[];
  readonly ranker: string;
  readonly topScore?: number;
  readonly fallback?: string;
  readonly shadowMatched?: readonly string[];
}

/** The current catalogue with its search index and manifest: an immutable snapshot, replaced whole. */
export interface Shelf {
  readonly catalogue: Catalogue;
  /** Ranks deferred tools for `query`; never rejects. */
  search(query: string, limit: number): Promise<SearchOutcome>;
  /** tool_search's description with the manifest, fitted to the client's description limit in characters. */
  searchDescription(maxChars: number | undefined): string;
}

/** An admission verdict for one call's arguments against the canonical schema (DESIGN §7). */
export type AdmissionVerdict =
  | { readonly ok: true; readonly warning?: string }
  | { readonly ok: false; readonly text: string };

/** Validates arguments for a tool against its canonical inputSchema. */
export type Admit = (qualifiedName: string, schema: Record<string, unknown>, args: Record<string, unknown>) => AdmissionVerdict;
