/**
 * The "strong match" rule of tool_search: which ranked hits get their full schema and are promoted,
 * and when a whole answer is judged weak. Pure: a function of the ranking (scores, matched terms,
 * query length, catalogue size) and five constants. Leaves ranking to `searchIndex.ts` and the
 * answer's shape to the gateway.
 *
 * Rule. Let `top` be the first hit's BM25 score, `q` the query's search terms (after stop words) and
 * `N` the number of searchable tools. The relative top is `top / (q · ln(1 + (N − 0.5) / 1.5))`: the
 * score in units of "every query term matched once in one tool's text", the BM25 IDF of a term that
 * only one tool has; it makes scores comparable across query lengths and catalogue sizes (a 27-tool
 * shelf and a 527-tool one). The answer is weak when the relative top is below {@link STRONG_FLOOR},
 * or when the query is short (at most {@link SHORT_QUERY_TERMS} distinct terms) and the first hit
 * matches less than {@link SHORT_QUERY_SHARE} of them: one term can score past the floor alone by
 * matching in several fields ("search the web" → memory's `search_nodes` on "search", relative top
 * 2.4; "delete a file" → filesystem's tools on "file", 2.2). Otherwise the strong matches are the
 * leading run of hits that score at least {@link STRONG_RATIO} × `top` and match at least
 * {@link STRONG_COVERAGE} of the distinct query terms the first hit matched (so "add two numbers"
 * does not make `add_observations`, which matches only "add", as strong as `get-sum`). An exact-name
 * search makes that tool alone strong.
 *
 * Data and values (bench/search.mjs, `npm run bench:search`, "strong rule and deprecated penalty,
 * 2-fold cross-validation"): shared/data/retrieval livemcpbench (527 tools, 43 queries) and metatool
 * (199 tools, 2,368 queries), each split in two folds by a hash of the query id; a value is chosen on
 * one fold (mean objective of the two sets) and reported on the other, both ways. The weak test
 * maximises the balanced accuracy of "the first hit is relevant". The floor alone (grid 0.1–2 step
 * 0.05): fold A chose 1.3 (held-out B 0.671), fold B 1.2 (held-out A 0.700). Floor jointly with the
 * short-query terms (0 = off, 1–6) and share (0.5–1 step 0.05): fold A chose 1.3 / 3 / 0.55 (held-out
 * B 0.671), fold B 1.2 / 4 / 0.7 (held-out A 0.697): both folds turn the test on, and held-out accuracy
 * stays within 0.003. Why short queries only: a first hit that matches one term and still passes the
 * floor is right 8 times of 9 in queries of 4+ terms (a long request's other terms are narrative),
 * 11 of 27 in queries of 2–3 terms. Between 0.55 and 0.66 the share asks the same (two terms of two
 * or three); the grid's first is kept. Ratio and coverage maximise the F1 of the strong set against
 * the relevant tools at the shipped weak test (grid ratio 0.3–0.95 step 0.05 × coverage 0–1 step
 * 0.25): fold A chose 0.5 / 0.75 (held-out B 0.235), fold B 0.45 / 0 (held-out A 0.254).
 * Shipped: fold A's choices, reported on fold B. The folds disagree on coverage within noise
 * (livemcpbench's multi-step tasks want several partial matches strong, metatool's one-tool requests
 * do not); coverage 0 would make unrelated tools strong on the bundled config ("add two numbers").
 * Not covered: a one-term query matched once in one description ("what time is it" → filesystem's
 * `get_file_info`, "creation time, last modified time", relative top 1.7) passes the floor, and the
 * sets hold no one-term query to set a rule for it on.
 * Source: docs/tools.md, "Strong matches".
 */

/** Relative top score below which no hit is strong and the answer is judged weak (units: see above). */
export const STRONG_FLOOR = 1.3;
/** A hit is strong when its score is at least this share of the top score. */
export const STRONG_RATIO = 0.5;

/** Share of the first hit's matched query terms a strong hit must match too. */
export const STRONG_COVERAGE = 0.75;

/** A query of at most this many distinct search terms is short (see {@link SHORT_QUERY_SHARE}). */
export const SHORT_QUERY_TERMS = 3;

/**
 * Share of a short query's distinct search terms the first hit must match, or the answer is weak:
 * with 3 terms or fewer, 0.55 asks for two terms of two or three ("delete a file" matched on "file"
 * alone is weak).
 */
export const SHORT_QUERY_SHARE = 0.55;

/** The constants of the rule; defaults {@link STRONG_FLOOR}, {@link STRONG_RATIO}, {@link STRONG_COVERAGE}, {@link SHORT_QUERY_TERMS}, {@link SHORT_QUERY_SHARE}. */
export interface StrengthRule {
  readonly floor: number;
  readonly ratio: number;
  /** A strong hit also matches at least this share of the distinct query terms the first hit matched (0..1). */
  readonly coverage: number;
  /** Queries with at most this many distinct terms are short (0: no query is). */
  readonly shortTerms: number;
  /** The first hit of a short query matches at least this share of its distinct terms, or the answer is weak (0..1). */
  readonly shortShare: number;
}

export const DEFAULT_STRENGTH_RULE: StrengthRule = {
  floor: STRONG_FLOOR,
  ratio: STRONG_RATIO,
  coverage: STRONG_COVERAGE,
  shortTerms: SHORT_QUERY_TERMS,
  shortShare: SHORT_QUERY_SHARE,
};

/** What the rule needs from one ranking. */
export interface RankedForJudgement {
  /** Hits best first, with their scores (unitless BM25). */
  readonly hits: readonly { readonly name: string; readonly score: number; readonly matchedTerms: number }[];
  /** Search terms in the query (tokenize.ts, stop words removed). */
  readonly terms: number;
  /** Distinct search terms in the query (`matchedTerms` counts against these). */
  readonly distinctTerms: number;
  /** How many leading hits matched the query as an exact name or held a configured keyword phrase of theirs. */
  readonly exact: number;
  /** Searchable tools in the index. */
  readonly size: number;
}

/** The verdict on one ranking. */
export interface Judgement {
  /** Names of the strong hits, a prefix of the ranking (best first). */
  readonly strong: readonly string[];
  /** True when nothing is strong. */
  readonly weak: boolean;
  /** The relative top score (0 with no hits; Infinity for an exact name). */
  readonly relativeTop: number;
}

/** The BM25 IDF of a term that one of `size` tools has (minisearch's formula), at least 1e-9. */
export function rareTermIdf(size: number): number {
  return Math.max(1e-9, Math.log(1 + (Math.max(1, size) - 0.5) / 1.5));
}

/** The relative top score of a ranking (see the module docs); 0 with no hits. */
export function relativeTop(ranked: RankedForJudgement): number {
  const top = ranked.hits[0]?.score ?? 0;
  return top <= 0 ? 0 : top / (Math.max(1, ranked.terms) * rareTermIdf(ranked.size));
}

/**
 * True when the query is short (at most `rule.shortTerms` distinct terms) and its first hit matches
 * less than `rule.shortShare` of them: every term of a short query is intent, so a hit that misses
 * one of two is no answer however high it scores on the other.
 */
export function missesShortQuery(ranked: RankedForJudgement, rule: Pick<StrengthRule, 'shortTerms' | 'shortShare'>): boolean {
  const first = ranked.hits[0];
  if (first === undefined || ranked.distinctTerms > rule.shortTerms) return false;
  return first.matchedTerms < rule.shortShare * ranked.distinctTerms;
}

/** Applies the rule to one ranking. Pure; never throws. */
export function judge(ranked: RankedForJudgement, rule: StrengthRule = DEFAULT_STRENGTH_RULE): Judgement {
  if (ranked.exact > 0) {
    return { strong: ranked.hits.slice(0, ranked.exact).map((hit) => hit.name), weak: false, relativeTop: Infinity };
  }
  const relative = relativeTop(ranked);
  const top = ranked.hits[0]?.score ?? 0;
  if (ranked.hits.length === 0 || relative < rule.floor || missesShortQuery(ranked, rule)) return { strong: [], weak: true, relativeTop: relative };
  const strong: string[] = [];
  const covered = ranked.hits[0]?.matchedTerms ?? 0;
  // The leading run of hits that pass both tests: a weaker hit never outranks a rejected one.
  for (const hit of ranked.hits) {
    if (hit.score < rule.ratio * top || hit.matchedTerms < rule.coverage * covered) break;
    strong.push(hit.name);
  }
  return { strong, weak: false, relativeTop: relative };
}
