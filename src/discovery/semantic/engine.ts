/**
 * Semantic ranking's state in one gateway: the encoder (a worker, started lazily), the tool vectors
 * known so far (from the disk cache and from background embedding), and the catalogue they are
 * computed for. The shelf tells it each new catalogue (`track`); tool_search asks it for the query's
 * cosine to every tool that has a vector (`score`). Nothing here ever fails a search: a missing
 * vector leaves that tool to BM25, a slow or failing encoder leaves the whole search to BM25, and the
 * answer says why (the `semantic` field of the `tool_searched` trace event).
 * Source: docs/search.md ("Semantic ranking").
 */
import type { CatalogEntry } from '../../catalog/types.js';
import type { Logger } from '../../trace/log.js';
import { clipText, MODEL_ID, type Embedder } from './embedder.js';
import { cosines } from './fusion.js';
import { readVectors, vectorKey, writeVectors } from './vectorCache.js';

/**
 * Longest a search waits for its query's vector, in ms: a query takes 15–27 ms on a loaded 2-core
 * machine (docs/search.md), and background embedding runs in batches of {@link BATCH_SIZE}, so a
 * query may wait behind one batch.
 */
export const QUERY_TIMEOUT_MS = 1_000;

/**
 * Tools embedded per background request: small, so a query never waits long behind a batch, and so
 * the WASM heap (which never shrinks) grows only to one small batch's working memory: after 256 tools
 * it held 63 MiB at 1 or 4 tools a batch, 76 at 8 and 131 at 32, while the time per tool did not improve
 * with larger batches (docs/search.md "Cost").
 */
export const BATCH_SIZE = 4;

/** Longest one background batch may take, in ms (the first includes loading the model). */
const BATCH_TIMEOUT_MS = 60_000;

/** Queries whose vectors are kept, newest last: a model repeats its searches. */
const QUERY_MEMO = 64;

/** What one search gets: cosines of the tools that have a vector, or why semantic ranking sat out. */
export type SemanticScores =
  | { readonly ok: true; readonly cosine: ReadonlyMap<string, number>; readonly missing: number }
  | { readonly ok: false; readonly reason: string; readonly missing: number };

/** The part of the engine a ranking uses, bound to one catalogue snapshot. */
export interface SemanticScorer {
  /** Never rejects. */
  score(query: string): Promise<SemanticScores>;
}

/** Progress of the background embedding, for the trace and tests. */
export interface SemanticStatus {
  readonly state: 'idle' | 'embedding' | 'ready' | 'failed';
  /** Tools of the tracked catalogue with a vector. */
  readonly vectors: number;
  /** Tools of the tracked catalogue still without one. */
  readonly missing: number;
}

/**
 * The text embedded for a tool: its upstream name in words, then its description (own, else the
 * projected one), clipped to the encoder's limit. Pure.
 */
export function toolText(entry: CatalogEntry): string {
  const own = entry.tool.description;
  const description = typeof own === 'string' && own.trim() !== '' ? own : entry.projected.description;
  const words = entry.upstreamName.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.\s]+/g, ' ').trim();
  return clipText(`${words}: ${description}`);
}

function keyedTools(entries: readonly CatalogEntry[]): { name: string; key: string; text: string }[] {
  return entries.map((entry) => {
    const text = toolText(entry);
    return { name: entry.qualifiedName, key: vectorKey(MODEL_ID, text), text };
  });
}

/** Options of {@link SemanticEngine}. */
export interface SemanticOptions {
  readonly embedder: Embedder;
  /** The vector cache file (vectorCache.ts); none when absent. */
  readonly cacheFile?: string;
  readonly logger?: Logger;
  /** Overrides {@link QUERY_TIMEOUT_MS}. */
  readonly queryTimeoutMs?: number;
}

/** One gateway's semantic ranking. Create one per process that serves (never in a relay). */
export class SemanticEngine {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly queries = new Map<string, Float32Array>();
  private tracked: readonly { key: string; text: string }[] = [];
  private started = false;
  /** The disk cache has been read: background embedding may begin. */
  private ready = false;
  private filling = false;
  private failure: string | undefined;
  private dirty = false;
  private closed = false;

  constructor(private readonly options: SemanticOptions) {}

  /**
   * Allows the model to load and starts embedding the tracked catalogue in the background. Called
   * once the first tools/list is served (or on the first search); idempotent. Reads the disk cache
   * first, so vectors already there cost nothing.
   */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    // After the current turn: the answer that triggered the start goes out first.
    setImmediate(() => {
      if (this.options.cacheFile) for (const [key, vector] of readVectors(this.options.cacheFile)) if (!this.vectors.has(key)) this.vectors.set(key, vector);
      this.ready = true;
      this.fill();
    });
  }

  /** The catalogue to embed (its deferred entries): replaces the previous one; a failed encoder is retried. */
  track(entries: readonly CatalogEntry[]): SemanticScorer {
    const keyed = keyedTools(entries);
    this.tracked = keyed;
    this.failure = undefined;
    this.fill();
    return { score: (query) => this.score(query, keyed) };
  }

  /**
   * A scorer over `entries` without embedding them: for a view, whose tools are a part of the tracked
   * catalogue and get their vectors from it.
   */
  scorerFor(entries: readonly CatalogEntry[]): SemanticScorer {
    const keyed = keyedTools(entries);
    return { score: (query) => this.score(query, keyed) };
  }

  /** How far the background embedding of the tracked catalogue is. */
  status(): SemanticStatus {
    const vectors = this.tracked.filter((tool) => this.vectors.has(tool.key)).length;
    const missing = this.tracked.length - vectors;
    const state = this.failure !== undefined ? 'failed' : missing === 0 && this.ready ? 'ready' : this.filling ? 'embedding' : 'idle';
    return { state, vectors, missing };
  }

  /** Ends the encoder's worker and writes what is new to the cache. */
  async close(): Promise<void> {
    this.closed = true;
    this.persist();
    await this.options.embedder.close();
  }

  private async score(query: string, tools: readonly { name: string; key: string }[]): Promise<SemanticScores> {
    this.start();
    const have: { name: string; vector: Float32Array }[] = [];
    for (const tool of tools) {
      const vector = this.vectors.get(tool.key);
      if (vector) have.push({ name: tool.name, vector });
    }
    const missing = tools.length - have.length;
    if (this.failure !== undefined) return { ok: false, reason: `encoder failed: ${this.failure}`, missing };
    if (have.length === 0) return { ok: false, reason: 'no tool vectors yet', missing };
    let vector: Float32Array;
    try {
      vector = await this.queryVector(query);
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error), missing };
    }
    const scores = cosines(vector, have.map((tool) => tool.vector));
    return { ok: true, cosine: new Map(have.map((tool, i) => [tool.name, scores[i]!])), missing };
  }

  private async queryVector(query: string): Promise<Float32Array> {
    const text = clipText(query);
    const known = this.queries.get(text);
    if (known) return known;
    const [vector] = await this.options.embedder.embed([text], this.options.queryTimeoutMs ?? QUERY_TIMEOUT_MS);
    if (!vector) throw new Error('the encoder returned no vector');
    this.queries.set(text, vector);
    if (this.queries.size > QUERY_MEMO) this.queries.delete(this.queries.keys().next().value!);
    return vector;
  }

  /** Embeds the tracked catalogue's missing texts, a batch at a time, until none is missing. */
  private fill(): void {
    if (!this.ready || this.filling || this.closed || this.failure !== undefined) return;
    this.filling = true;
    void (async () => {
      try {
        for (;;) {
          const batch = this.tracked.filter((tool) => !this.vectors.has(tool.key)).slice(0, BATCH_SIZE);
          if (batch.length === 0 || this.closed) break;
          const vectors = await this.options.embedder.embed(batch.map((tool) => tool.text), BATCH_TIMEOUT_MS);
          batch.forEach((tool, i) => this.vectors.set(tool.key, vectors[i]!));
          this.dirty = true;
        }
        this.persist();
      } catch (error) {
        this.failure = error instanceof Error ? error.message : String(error);
        if (!this.closed) this.options.logger?.warn(`semantic ranking: ${this.failure}; tool_search uses BM25 alone`);
      } finally {
        this.filling = false;
      }
    })();
  }

  private persist(): void {
    if (!this.dirty || !this.options.cacheFile) return;
    this.dirty = false;
    try {
      writeVectors(this.options.cacheFile, this.vectors);
    } catch (error) {
      this.options.logger?.warn(`semantic ranking: cannot write the vector cache: ${(error as Error).message}`);
    }
  }
}
