/**
 * One tool_search ranking: exact name first, then BM25 or the host ranker per `rankMode`, with
 * the BM25 fallback and its reason. Only catalogue names come out. Holds no state; the caller
 * builds the index and ranker catalogue once per catalogue and traces the result.
 * Source: DESIGN §5 (a search never fails; invented names never reach the model), §8 (modes), §10
 * (`tool_searched` fields: matched, ranker, topScore, fallback, shadowMatched).
 */
import type { Result } from '../lib/result.js';
import { candidateCount, diversify, type FloodGuard } from './diversify.js';
import { callHostRanker, type HostRanker, type RankerCatalogue } from './hostRanker.js';
import type { SearchIndex } from './searchIndex.js';
import { judge } from './strength.js';

export type RankMode = 'bm25' | 'ranker' | 'compare';

export interface RankContext {
  readonly index: SearchIndex;
  readonly mode: RankMode;
  /** The loaded host ranker, or why it could not be loaded; absent when none is configured. */
  readonly host?: Result<HostRanker, string>;
  /** Same tools as `index`, as the host ranker sees them (`rankerCatalogueOf`). */
  readonly catalogue: RankerCatalogue;
  /** Time limit for one host ranker call, ms. */
  readonly timeoutMs: number;
  /**
   * The flooding guard of the same tools (`diversify.ts`): every ranking, BM25's or the host's,
   * passes through it. Absent: rankings are only truncated.
   */
  readonly guard?: FloodGuard;
}

/** What a search returns and what the trace records (DESIGN §10 `tool_searched`). */
export interface RankResult {
  /** Qualified names, best first, at most `limit`, all from the searchable catalogue. */
  readonly matched: string[];
  /** Who produced `matched`. */
  readonly ranker: 'bm25' | 'host';
  /** Score of the first match when the producer gave one (BM25 score, unitless). */
  readonly topScore?: number;
  /**
   * The strong matches (`strength.ts`), a prefix of `matched`: shown with their schema and promoted.
   * BM25: the strong rule; an exact name alone. Host ranker (no comparable scores): an exact name
   * alone, else its first match.
   */
  readonly strong: readonly string[];
  /** True when no match is strong (BM25 only; a host ranker's answer is never judged weak). */
  readonly weak: boolean;
  /** Why the host ranker did not serve when the mode asked for it. */
  readonly fallback?: string;
  /** In `compare` mode: the BM25 ranking that was not served. */
  readonly shadowMatched?: string[];
}

/** `hits` through the guard (when there is one), at most `limit`. */
function guarded<T extends { readonly name: string }>(hits: readonly T[], query: string, limit: number, guard: FloodGuard | undefined, exact = 0): T[] {
  return guard === undefined ? hits.slice(0, limit) : diversify(hits, query, guard, limit, exact);
}

function bm25(index: SearchIndex, query: string, limit: number, guard: FloodGuard | undefined, fallback?: string): RankResult {
  const candidates = index.rank(query, guard === undefined ? limit : candidateCount(limit));
  const ranked = { ...candidates, hits: guarded(candidates.hits, query, limit, guard, candidates.exact) };
  const { hits } = ranked;
  const { strong, weak } = judge(ranked);
  return {
    matched: hits.map((hit) => hit.name),
    ranker: 'bm25',
    strong,
    weak,
    ...(hits[0] === undefined ? {} : { topScore: hits[0].score }),
    ...(fallback === undefined ? {} : { fallback }),
  };
}

async function viaHost(context: RankContext, host: HostRanker, query: string, limit: number): Promise<RankResult> {
  const { guard } = context;
  const answer = await callHostRanker(host, query, context.catalogue, guard === undefined ? limit : candidateCount(limit), context.timeoutMs);
  if (!answer.ok) return bm25(context.index, query, limit, guard, answer.error);
  const exact = context.index.exactMatches(query);
  const ordered = [...new Set([...exact, ...answer.value.names])].map((name) => ({ name }));
  const matched = guarded(ordered, query, limit, guard, exact.length).map((hit) => hit.name);
  const result: RankResult = {
    matched,
    ranker: 'host',
    strong: exact.length > 0 ? matched.slice(0, exact.length) : matched.slice(0, 1),
    weak: false,
    ...(answer.value.topScore === undefined ? {} : { topScore: answer.value.topScore }),
  };
  if (context.mode !== 'compare') return result;
  return { ...result, shadowMatched: bm25(context.index, query, limit, guard).matched };
}

/**
 * Ranks the searchable tools for `query`, at most `limit` (clamping is the caller's). `bm25` mode,
 * or no ranker configured: BM25. `ranker` / `compare`: the host ranker serves (an exact name
 * still comes first); on any failure BM25 serves and `fallback` says why; `compare` adds
 * `shadowMatched`. Every ranking then passes the flooding guard (`diversify.ts`): the host ranker
 * and BM25 are asked for `candidateCount(limit)` candidates so the cap has others to choose from.
 * Never rejects: an internal error yields no matches and the error as `fallback`.
 */
export async function rankTools(context: RankContext, query: string, limit: number): Promise<RankResult> {
  try {
    const text = typeof query === 'string' ? query : '';
    const { host } = context;
    if (context.mode === 'bm25' || host === undefined) return bm25(context.index, text, limit, context.guard);
    if (!host.ok) return bm25(context.index, text, limit, context.guard, host.error);
    return await viaHost(context, host.value, text, limit);
  } catch (error) {
    return { matched: [], ranker: 'bm25', strong: [], weak: true, fallback: `search failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
