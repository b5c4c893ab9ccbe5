/**
 * One tool_search ranking: exact name first, then BM25 or the host ranker per `rankMode`, with
 * the BM25 fallback and its reason. Only catalogue names come out. Holds no state; the caller
 * builds the index and ranker catalogue once per catalogue and traces the result. Semantic ranking,
 * when on, fuses into toolshelf's own ranking here, so every mode and fallback serves it.
 * Source: docs/search.md ("Ranking": modes, fallback; invented names never reach the model), docs/cli.md
 * (`tool_searched` fields: matched, ranker, topScore, fallback, shadowMatched).
 */
import type { Result } from '../lib/result.js';
import { candidateCount, diversify, type FloodGuard } from './diversify.js';
import { callHostRanker, type HostRanker, type RankerCatalogue } from './hostRanker.js';
import type { SearchIndex } from './searchIndex.js';
import type { SemanticScorer } from './semantic/engine.js';
import { DEFAULT_ALPHA, fuseRanking } from './semantic/fusion.js';
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
  /** Semantic ranking over the same tools (`discovery.semantic`); absent: BM25 alone, as before it existed. */
  readonly semantic?: SemanticScorer;
  /** Weight of the cosine in the fusion; default {@link DEFAULT_ALPHA} (the benchmark varies it). */
  readonly alpha?: number;
}

/** How semantic ranking took part in one search (the `semantic` field of `tool_searched`). */
export interface SemanticUse {
  /** True when the ranking served (or shadowed) is BM25 fused with the encoder. */
  readonly used: boolean;
  /** Searchable tools without a vector yet: BM25 alone places them. */
  readonly missing: number;
  /** Why the encoder sat out (`used` false): loading, no vectors yet, a timeout, a failure. */
  readonly reason?: string;
}

/** What a search returns and what the trace records (docs/cli.md `tool_searched`). */
export interface RankResult {
  /** Qualified names, best first, at most `limit`, all from the searchable catalogue. */
  readonly matched: string[];
  /** Who produced `matched`: BM25 alone, BM25 fused with the sentence encoder, or the host ranker. */
  readonly ranker: 'bm25' | 'hybrid' | 'host';
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
  /** In `compare` mode: toolshelf's own ranking (BM25, fused when semantic ranking is on) that was not served. */
  readonly shadowMatched?: string[];
  /** Present when semantic ranking is on: whether it took part, and why not. */
  readonly semantic?: SemanticUse;
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

/**
 * toolshelf's own ranking: BM25, fused with the encoder's cosines when semantic ranking is on and
 * they came (fusion.ts: BM25's strong matches lead, the encoder reorders the rest), through the
 * flooding guard like every ranking. The strong rule stays BM25's (strength.ts): the strong matches
 * are the leading run of the served ranking that BM25 judged strong; when that run is empty the
 * answer is weak.
 */
async function own(context: RankContext, query: string, limit: number, fallback?: string): Promise<RankResult> {
  const { guard } = context;
  if (context.semantic === undefined) return bm25(context.index, query, limit, guard, fallback);
  const scores = await context.semantic.score(query);
  if (!scores.ok) return { ...bm25(context.index, query, limit, guard, fallback), semantic: { used: false, missing: scores.missing, reason: scores.reason } };
  const ranked = context.index.rank(query, context.index.size);
  const bm25Strong = judge(ranked).strong;
  const fused = fuseRanking({ bm25: ranked.hits, exact: ranked.exact, cosine: scores.cosine, alpha: context.alpha ?? DEFAULT_ALPHA, strong: bm25Strong }, guard === undefined ? limit : candidateCount(limit));
  const served = guarded(fused, query, limit, guard, Math.min(ranked.exact, fused.length));
  const judged = new Set(bm25Strong);
  const strong: string[] = [];
  for (const hit of served) {
    if (!judged.has(hit.name)) break;
    strong.push(hit.name);
  }
  return {
    matched: served.map((hit) => hit.name),
    ranker: 'hybrid',
    strong,
    weak: strong.length === 0,
    ...(served[0] === undefined ? {} : { topScore: served[0].score }),
    ...(fallback === undefined ? {} : { fallback }),
    semantic: { used: true, missing: scores.missing },
  };
}

async function viaHost(context: RankContext, host: HostRanker, query: string, limit: number): Promise<RankResult> {
  const { guard } = context;
  const answer = await callHostRanker(host, query, context.catalogue, guard === undefined ? limit : candidateCount(limit), context.timeoutMs);
  if (!answer.ok) return own(context, query, limit, answer.error);
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
  const shadow = await own(context, query, limit);
  return { ...result, shadowMatched: shadow.matched, ...(shadow.semantic ? { semantic: shadow.semantic } : {}) };
}

/**
 * Ranks the searchable tools for `query`, at most `limit` (clamping is the caller's). `bm25` mode,
 * or no ranker configured: toolshelf's own ranking (BM25, fused with the sentence encoder when
 * `semantic` is given and its vectors are there; docs/search.md). `ranker` / `compare`: the host ranker serves (an exact name
 * still comes first); on any failure BM25 serves and `fallback` says why; `compare` adds
 * `shadowMatched`. Every ranking then passes the flooding guard (`diversify.ts`): the host ranker
 * and BM25 are asked for `candidateCount(limit)` candidates so the cap has others to choose from.
 * Never rejects: an internal error yields no matches and the error as `fallback`.
 */
export async function rankTools(context: RankContext, query: string, limit: number): Promise<RankResult> {
  try {
    const text = typeof query === 'string' ? query : '';
    const { host } = context;
    if (context.mode === 'bm25' || host === undefined) return await own(context, text, limit);
    if (!host.ok) return await own(context, text, limit, host.error);
    return await viaHost(context, host.value, text, limit);
  } catch (error) {
    return { matched: [], ranker: 'bm25', strong: [], weak: true, fallback: `search failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
