/**
 * Trace events as a discriminated union. Source: docs/cli.md.
 */

/** How the model reached a tool (docs/cli.md): `catalog` is the manifest working, `unknown` a hallucination. */
export type CallOrigin = 'direct' | 'promoted' | 'catalog' | 'bridge' | 'unknown';

export interface ToolsAdvertisedEvent {
  readonly event: 'tools_advertised';
  readonly session: string;
  /** The view the client is on (docs/views.md); absent: the whole shelf. */
  readonly view?: string;
  /** The requesting client's protocol era (docs/protocol-eras.md): `legacy` (a session) or `modern` (2026-07-28, no session). */
  readonly era: 'legacy' | 'modern';
  readonly direct: number;
  readonly deferred: number;
  readonly promoted: number;
  /** UTF-8 bytes of the compact JSON of the whole tools/list result. */
  readonly schemaBytes: number;
  /** Estimated tokens of the same. */
  readonly tokens: number;
}

export interface ToolSearchedEvent {
  readonly event: 'tool_searched';
  readonly session: string;
  /** The view the client is on (docs/views.md); absent: the whole shelf. */
  readonly view?: string;
  readonly callId: string;
  /** Only with `trace.captureToolIo`. */
  readonly query?: string;
  readonly matched: readonly string[];
  readonly ranker: string;
  readonly topScore?: number;
  /** True when no match was strong: the answer told the model to rephrase. */
  readonly weak: boolean;
  /** The matches judged strong, shown with their schema and promoted. */
  readonly strong: readonly string[];
  readonly fallback?: string;
  readonly shadowMatched?: readonly string[];
  /**
   * Present when semantic ranking is on (docs/search.md): `used` when the sentence encoder's cosines
   * were fused in; `missing`, the tools still without a vector (BM25 alone placed them); `reason`, why
   * the encoder sat out (no vectors yet, a timeout, a failure).
   */
  readonly semantic?: { readonly used: boolean; readonly missing: number; readonly reason?: string };
  readonly latencyMs: number;
}

export interface ToolCalledEvent {
  readonly event: 'tool_called';
  readonly session: string;
  /** The view the client is on (docs/views.md); absent: the whole shelf. */
  readonly view?: string;
  readonly callId: string;
  readonly name: string;
  readonly server?: string;
  readonly origin: CallOrigin;
  readonly latencyMs: number;
  readonly isError: boolean;
  /** Why the call failed before or at the upstream: `invalid_arguments`, `timeout`, `unavailable`, … */
  readonly failure?: string;
  /** Only with `trace.captureToolIo`. */
  readonly arguments?: unknown;
}

/**
 * An upstream tool (or its instructions) held for review or warned about by the trust checks
 * (docs/security.md, "Pins, quarantine and review"): once per version and reason.
 */
export interface ToolHeldEvent {
  readonly event: 'tool_held';
  /** Set only when a view's sink recorded it; the trust checks are instance-wide, so normally absent. */
  readonly view?: string;
  readonly server: string;
  /** The tool's upstream name; absent for the server's instructions. */
  readonly tool?: string;
  /** `changed` (differs from its pin), `new` (not pinned), `flagged` (the scanner), `pinned_new` (a new tool pinned with a warning). */
  readonly reason: 'changed' | 'new' | 'flagged' | 'pinned_new';
  /** True when it is held; false when it is served with a warning. */
  readonly held: boolean;
  /** The scanner's finding kinds, when it flagged something. */
  readonly findings?: readonly string[];
}

export type TraceEvent = ToolsAdvertisedEvent | ToolSearchedEvent | ToolCalledEvent | ToolHeldEvent;

/** Where trace events go; `record` never throws. */
export interface TraceSink {
  record(event: TraceEvent): void;
  close(): Promise<void>;
}

/** `sink` with every event tagged with `view` (docs/views.md), so a trace tells the views' clients apart. */
export function viewTrace(sink: TraceSink, view: string): TraceSink {
  return { record: (event) => sink.record({ ...event, view }), close: () => sink.close() };
}
