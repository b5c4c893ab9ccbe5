/**
 * What a gateway session needs from the rest of toolshelf, as interfaces: the current shelf
 * (catalogue + discovery), a way to call upstreams, admission. `gateway/` imports nothing from
 * `upstream/` at run time: the pool satisfies {@link UpstreamCaller} structurally, and the relay
 * helpers both sides need are in lib/relayedRequests.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Catalogue } from '../catalog/build.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { CallOptions, CallOutcome, RequestOrigin } from '../upstream/types.js';

/** Calls one tool on one upstream by its upstream name. Never rejects. */
export interface UpstreamCaller {
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  /** Starts a lazy upstream that is not running, without waiting (a search found its tools). */
  warm?(server: string): void;
  /** The configured upstream whose prefix starts tool name `name`, when that upstream is not up (so its tools may be missing). */
  downFor?(name: string): UpstreamDown | undefined;
}

/** An upstream that is not up: its key, status (`failed`, `down`, `starting`, `needs_sign_in`…) and last error, if any. */
export interface UpstreamDown {
  readonly server: string;
  readonly status: string;
  readonly reason?: string;
}

/** How a search went (docs/tools.md, docs/search.md, docs/cli.md). `matched` holds qualified names from the catalogue only. */
export interface SearchOutcome {
  readonly matched: readonly string[];
  readonly ranker: string;
  readonly topScore?: number;
  /** Matches judged strong (a prefix of `matched`): answered with their schema and promoted. */
  readonly strong: readonly string[];
  /** True when no match is strong: the answer says so. */
  readonly weak: boolean;
  readonly fallback?: string;
  readonly shadowMatched?: readonly string[];
  /** Present when semantic ranking is on: whether the encoder took part, tools without a vector, why not. */
  readonly semantic?: { readonly used: boolean; readonly missing: number; readonly reason?: string };
}

/** The current catalogue with its search index and manifest: an immutable snapshot, replaced whole. */
export interface Shelf {
  readonly catalogue: Catalogue;
  /** Ranks deferred tools for `query`; never rejects. */
  search(query: string, limit: number): Promise<SearchOutcome>;
  /** tool_search's description with the manifest, fitted to the client's description limit in characters. */
  searchDescription(maxChars: number | undefined): string;
}

/**
 * An admission verdict for one call (docs/tools.md): the arguments to forward (normalised, e.g. strict
 * mode's declined optionals removed), or a model-readable list of violations.
 */
export type AdmissionVerdict =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly text: string };

/**
 * The result to forward for a call to `entry` that came back as `result`: `result` itself, or, when
 * it breaks the outputSchema the client was given, an `isError` with its content and a note
 * (schema/output.ts). Never throws.
 */
export type CheckOutput = (entry: CatalogEntry, result: CallToolResult) => CallToolResult;

/** Validates a call's arguments against the entry's canonical inputSchema. Never throws. */
export type Admit = (entry: CatalogEntry, args: Record<string, unknown>) => AdmissionVerdict;

/** A JSON-RPC error from an upstream, or why it could not be asked. */
export interface UpstreamFailure {
  readonly code: number;
  readonly message: string;
}

/**
 * Generic requests to upstreams for everything beyond tools (resources, prompts, completion,
 * logging). The pool satisfies it structurally. Never rejects.
 */
export interface UpstreamDirectory {
  /** Capabilities each ready upstream declared at initialize, in config order. */
  capabilities(): ReadonlyArray<readonly [string, Record<string, unknown>]>;
  request(
    server: string,
    method: string,
    params: Record<string, unknown> | undefined,
    options?: { readonly signal?: AbortSignal; readonly origin?: RequestOrigin },
  ): Promise<{ ok: true; result: Record<string, unknown> } | { ok: false; error: UpstreamFailure }>;
}
