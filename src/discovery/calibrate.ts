/**
 * Calibration of tool_search's constants on judged queries, with 2-fold cross-validation over query
 * ids: the objectives of the strong rule (`strength.ts`), the fold split, and choose-on-one-fold /
 * report-on-the-other. Pure functions of rankings and judgements; `bench/search.mjs` runs them on
 * shared/data/retrieval and prints the tables the constants' docstrings quote.
 * Source: docs/search.md (each change judged with cross-validation, not on the whole dev set); docs/benchmarks.md.
 */
import { groupsOf, type JudgedQuery } from './metrics.js';
import type { SearchIndex } from './searchIndex.js';
import { judge, missesShortQuery, relativeTop, type RankedForJudgement, type StrengthRule } from './strength.js';

/** One judged query's ranking, kept so a grid of rules costs no further search. */
export interface RankedQuery {
  readonly query: JudgedQuery;
  readonly ranked: RankedForJudgement;
}

export type Fold = 'A' | 'B';

/** Fold of a query id: parity of its FNV-1a hash, so the split is stable and independent of file order. */
export function foldOf(id: string): Fold {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 2 === 0 ? 'A' : 'B';
}

/** Ranks every query once at depth `limit` (tool_search's default 5). */
export function rankQueries(index: SearchIndex, queries: readonly JudgedQuery[], limit: number): RankedQuery[] {
  return queries.map((query) => ({ query, ranked: index.rank(query.query, limit) }));
}

function isRelevant(query: JudgedQuery, name: string): boolean {
  return groupsOf(query).some((group) => group.includes(name));
}

/** The part of the rule that judges a whole answer weak: the floor and the short-query test. */
export type WeakTest = Pick<StrengthRule, 'floor' | 'shortTerms' | 'shortShare'>;

/**
 * Balanced accuracy (0..1) of the weak test (floor on the relative top, then the short-query share,
 * `strength.ts`) as a test of "the first hit is relevant": the mean of the share of right first hits
 * judged strong and the share of wrong (or absent) first hits judged weak. A class with no query
 * counts as 1. `shortTerms` 0 is the floor alone.
 */
export function weakTestAccuracy(rows: readonly RankedQuery[], test: WeakTest): number {
  let right = 0;
  let rightStrong = 0;
  let wrong = 0;
  let wrongWeak = 0;
  for (const { query, ranked } of rows) {
    const first = ranked.hits[0];
    const strong = ranked.exact > 0 || (relativeTop(ranked) >= test.floor && !missesShortQuery(ranked, test));
    if (first !== undefined && isRelevant(query, first.name)) {
      right += 1;
      if (strong) rightStrong += 1;
    } else {
      wrong += 1;
      if (!strong) wrongWeak += 1;
    }
  }
  return ((right === 0 ? 1 : rightStrong / right) + (wrong === 0 ? 1 : wrongWeak / wrong)) / 2;
}

/** What the strong sets of a rule give over a query set (means per query). */
export interface StrongSetStats {
  /** F1 of the strong set against the relevant groups (0 when nothing is strong). */
  readonly f1: number;
  /** Share of relevant groups with a strong member. */
  readonly recall: number;
  /** Share of strong hits that are relevant (queries with a strong hit only). */
  readonly precision: number;
  /** Strong hits per query: what one search promotes. */
  readonly strongPerQuery: number;
  /** Share of queries judged weak. */
  readonly weakShare: number;
  /** Of the weak queries, the share whose answer (the named matches) holds a relevant tool. */
  readonly weakWithRelevant: number;
}

/** Applies `rule` to each ranking and averages {@link StrongSetStats}. */
export function strongSetStats(rows: readonly RankedQuery[], rule: StrengthRule): StrongSetStats {
  let f1 = 0;
  let recall = 0;
  let precision = 0;
  let withStrong = 0;
  let strongCount = 0;
  let weak = 0;
  let weakRelevant = 0;
  for (const { query, ranked } of rows) {
    const verdict = judge(ranked, rule);
    const groups = groupsOf(query);
    strongCount += verdict.strong.length;
    if (verdict.weak) {
      weak += 1;
      if (ranked.hits.some((hit) => isRelevant(query, hit.name))) weakRelevant += 1;
      continue;
    }
    const relevantStrong = verdict.strong.filter((name) => isRelevant(query, name)).length;
    const found = groups.filter((group) => group.some((name) => verdict.strong.includes(name))).length;
    const p = verdict.strong.length === 0 ? 0 : relevantStrong / verdict.strong.length;
    const r = groups.length === 0 ? 0 : found / groups.length;
    withStrong += 1;
    precision += p;
    recall += r;
    f1 += p + r === 0 ? 0 : (2 * p * r) / (p + r);
  }
  const n = rows.length || 1;
  return {
    f1: f1 / n,
    recall: recall / n,
    precision: withStrong === 0 ? 0 : precision / withStrong,
    strongPerQuery: strongCount / n,
    weakShare: weak / n,
    weakWithRelevant: weak === 0 ? 0 : weakRelevant / weak,
  };
}

/** One direction of a 2-fold cross-validation: chosen on `tunedOn`, measured on the other fold. */
export interface FoldChoice<T> {
  readonly tunedOn: Fold;
  readonly value: T;
  /** Objective on the tuning fold at the chosen value. */
  readonly tuned: number;
  /** Objective on the other fold at the chosen value. */
  readonly held: number;
}

/**
 * 2-fold cross-validation over the query ids of several sets: for each fold, the grid value with
 * the best mean objective over the sets (ties: the first in grid order), and that value's objective
 * on the other fold. `objective(rows, value)` gets one set's rows of one fold.
 */
export function crossValidate<T>(
  sets: readonly (readonly RankedQuery[])[],
  grid: readonly T[],
  objective: (rows: readonly RankedQuery[], value: T) => number,
): FoldChoice<T>[] {
  const split = (fold: Fold): RankedQuery[][] => sets.map((rows) => rows.filter((row) => foldOf(row.query.id) === fold));
  const mean = (parts: readonly (readonly RankedQuery[])[], value: T): number =>
    parts.reduce((sum, rows) => sum + objective(rows, value), 0) / Math.max(1, parts.length);
  return (['A', 'B'] as const).map((tunedOn) => {
    const tune = split(tunedOn);
    const hold = split(tunedOn === 'A' ? 'B' : 'A');
    let best = grid[0] as T;
    let bestScore = -Infinity;
    for (const value of grid) {
      const score = mean(tune, value);
      if (score > bestScore) [best, bestScore] = [value, score];
    }
    return { tunedOn, value: best, tuned: bestScore, held: mean(hold, best) };
  });
}

/** `from`, `from + step`, … up to `to` (inclusive), rounded to 1e-6 so grid values print cleanly. */
export function grid(from: number, to: number, step: number): number[] {
  const values: number[] = [];
  for (let value = from; value <= to + step / 2; value += step) values.push(Math.round(value * 1e6) / 1e6);
  return values;
}
