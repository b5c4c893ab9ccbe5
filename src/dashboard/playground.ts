/**
 * The dashboard's search playground: a query ranked exactly as tool_search would rank it (the ranker
 * that served, its fallback, which matches were strong), with BM25 alone beside it, so a user sees
 * what a configured ranker changes. Nothing is promoted and nothing is traced: the playground is the
 * user's, not the model's. Source: docs/dashboard.md; docs/search.md for the rankers.
 */
import type { ViewShelf } from '../shelf/build.js';

/** Results the playground returns at most, per column (tool_search's own cap). */
export const PLAYGROUND_MAX_LIMIT = 20;

/** One ranked tool, with its BM25 score when BM25 scored it (unitless, higher is better). */
export interface PlaygroundHit {
  readonly name: string;
  readonly server: string;
  readonly description: string;
  readonly score?: number;
  /** Shown with its schema and promoted, were a model searching. */
  readonly strong: boolean;
}

/** A query's two rankings. */
export interface PlaygroundAnswer {
  readonly query: string;
  /** `bm25`, or `host` for a configured ranker. */
  readonly ranker: string;
  readonly fallback?: string;
  readonly weak: boolean;
  readonly served: readonly PlaygroundHit[];
  readonly bm25: readonly PlaygroundHit[];
  readonly latencyMs: number;
}

/**
 * Ranks `query` on `shelf` (the whole shelf, or one view's) both ways, at most `limit` each (clamped to 1..{@link PLAYGROUND_MAX_LIMIT}).
 * Never rejects: the shelf's search never does.
 */
export async function playgroundSearch(shelf: ViewShelf, query: string, limit: number): Promise<PlaygroundAnswer> {
  const capped = Math.min(PLAYGROUND_MAX_LIMIT, Math.max(1, Math.floor(Number.isFinite(limit) ? limit : 5)));
  const started = performance.now();
  const outcome = await shelf.search(query, capped);
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  const alone = shelf.bm25(query, PLAYGROUND_MAX_LIMIT);
  const scores = new Map(alone.map((h) => [h.name, h.score]));
  const hit = (name: string, strong: boolean): PlaygroundHit | undefined => {
    const entry = shelf.catalogue.get(name);
    if (!entry) return undefined;
    const score = scores.get(name);
    return { name, server: entry.server, description: entry.projected.description, ...(score === undefined ? {} : { score }), strong };
  };
  const served = outcome.matched.map((name) => hit(name, outcome.strong.includes(name))).filter((h) => h !== undefined);
  const bm25 = alone
    .slice(0, capped)
    .map((h) => hit(h.name, false))
    .filter((h) => h !== undefined);
  return { query, ranker: outcome.ranker, ...(outcome.fallback ? { fallback: outcome.fallback } : {}), weak: outcome.weak, served, bm25, latencyMs };
}
