/**
 * The "strong match" rule of tool_search: which ranked hits get their full schema and are promoted,
 * and when a whole answer is judged weak. Pure: a function of the ranking (scores, query length,
 * catalogue size) and two constants. Leaves ranking to `searchIndex.ts` and the answer's shape to
 * the gateway.
 *
 * Rule. Let `top` be the first hit's BM25 score, `q` the query's search terms (after stop words) and
 * `N` the number of searchable tools. The relative top is `top / (q · ln(1 + (N − 0.5) / 1.5))`: the
 * score in units of "every query term matched once in one tool's text", the BM25 IDF of a term that
 * only one tool has; it makes scores comparable across query lengths and catalogue sizes (a 27-tool
 * shelf and a 527-tool one). The answer is weak when the relative top is below {@link STRONG_FLOOR}.
 * Otherwise the strong matches are the leading run of hits that score at least {@link STRONG_RATIO}
 * × `top` and match at least {@link STRONG_COVERAGE} of the distinct query terms the first hit
 * matched (so "add two numbers" does not make `add_observations`, which matches only "add", as strong
 * as `get-sum`). An exact-name search makes that tool alone strong.
 *
 * Data and values (bench/search.mjs, `npm run bench:search`, "strong rule and deprecated penalty,
 * 2-fold cross-validation"): shared/data/retrieval livemcpbench (527 tools, 43 queries) and metatool
 * (199 tools, 2,368 queries), each split in two folds by a hash of the query id; a value is chosen on
 * one fold (mean objective of the two sets) and reported on the other, both ways. The floor maximises
 * the balanced accuracy of "the first hit is relevant" (grid 0.1–2 step 0.05): fold A chose 1.3
 * (held-out B 0.671), fold B 1.2 (held-out A 0.700). Ratio and coverage maximise the F1 of the strong
 * set against the relevant tools at the shipped floor (grid ratio 0.3–0.95 step 0.05 × coverage
 * 0–1 step 0.25): fold A chose 0.5 / 0.75 (held-out B 0.237), fold B 0.45 / 0 (held-out A 0.256).
 * Shipped: fold A's choices, reported on fold B. The folds disagree on coverage within noise
 * (livemcpbench's multi-step tasks want several partial matches strong, metatool's one-tool requests
 * do not); coverage 0 would make unrelated tools strong on the bundled config ("add two numbers").
 * Source: issue 12 points 1–3; DESIGN §5, §9.
 */

/** Relative top score below which no hit is strong and the answer is judged weak (units: see above). */
export const STRONG_FLOOR = 1.3;
/** A hit is strong when its score is at least this share of the top score. */
export const STRONG_RATIO = 0.5;

/** Share of the first hit's matched query terms a strong hit must match too. */
export const STRONG_COVERAGE = 0.75;

/** The constants of the rule; defaults {@link STRONG_FLOOR}, {@link STRONG_RATIO}. */
export interface StrengthRule {
  readonly floor: number;
  readonly ratio: number;
  /** A strong hit also matches at least this share of the distinct query terms the first hit matched (0..1). */
  readonly coverage: number;
}

export const DEFAULT_STRENGTH_RULE: StrengthRule = { floor: STRONG_FLOOR, ratio: STRONG_RATIO, coverage: STRONG_COVERAGE };

/** What the rule needs from one ranking. */
export interface RankedForJudgement {
  /** Hits best first, with their scores (unitless BM25). */
  readonly hits: readonly { readonly name: string; readonly score: number; readonly matchedTerms: number }[];
  /** Search terms in the query (tokenize.ts, stop words removed). */
  readonly terms: number;
  /** How many leading hits matched the query as an exact name. */
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

/** Applies the rule to one ranking. Pure; never throws. */
export function judge(ranked: RankedForJudgement, rule: StrengthRule = DEFAULT_STRENGTH_RULE): Judgement {
  if (ranked.exact > 0) {
    return { strong: ranked.hits.slice(0, ranked.exact).map((hit) => hit.name), weak: false, relativeTop: Infinity };
  }
  const relative = relativeTop(ranked);
  const top = ranked.hits[0]?.score ?? 0;
  if (ranked.hits.length === 0 || relative < rule.floor) return { strong: [], weak: true, relativeTop: relative };
  const strong: string[] = [];
  const covered = ranked.hits[0]?.matchedTerms ?? 0;
  // The leading run of hits that pass both tests: a weaker hit never outranks a rejected one.
  for (const hit of ranked.hits) {
    if (hit.score < rule.ratio * top || hit.matchedTerms < rule.coverage * covered) break;
    strong.push(hit.name);
  }
  return { strong, weak: false, relativeTop: relative };
}
