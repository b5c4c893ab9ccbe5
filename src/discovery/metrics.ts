/**
 * Retrieval metrics for `toolshelf eval` and the search benchmark: Recall@k, nDCG@10, MRR@10, with
 * `relevant_groups` support. Pure functions of a ranking and a judged query; no I/O.
 * Source: shared/data/README.md (metric definitions).
 */

/** One judged query (a line of queries.jsonl). */
export interface JudgedQuery {
  readonly id: string;
  readonly query: string;
  /** Every relevant tool name. */
  readonly relevant: readonly string[];
  /** Alternatives: a group is found when any member is ranked. Defaults to one group per relevant name. */
  readonly relevant_groups?: readonly (readonly string[])[];
}

/** The groups of a query: `relevant_groups` when given and non-empty, else each relevant name alone. */
export function groupsOf(query: JudgedQuery): readonly (readonly string[])[] {
  const groups = query.relevant_groups?.filter((group) => group.length > 0);
  return groups && groups.length > 0 ? groups : query.relevant.map((name) => [name]);
}

/**
 * Recall@k: share of groups with a member in the first `k` names (0..1). A query with no
 * relevant tools scores 0.
 */
export function recallAt(ranked: readonly string[], query: JudgedQuery, k: number): number {
  const groups = groupsOf(query);
  if (groups.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return groups.filter((group) => group.some((name) => top.has(name))).length / groups.length;
}

/**
 * Index of the group each ranked name first satisfies, or -1 (a name in an already-found group,
 * or in no group, gains nothing), so alternatives are not double-counted.
 */
function groupHits(ranked: readonly string[], query: JudgedQuery, k: number): boolean[] {
  const groups = groupsOf(query);
  const found = new Set<number>();
  return ranked.slice(0, k).map((name) => {
    const index = groups.findIndex((group, i) => !found.has(i) && group.includes(name));
    if (index < 0) return false;
    found.add(index);
    return true;
  });
}

/**
 * nDCG@k with binary gains per group (log2 discount; ideal = all groups first). 0..1.
 * Default k = 10.
 */
export function ndcgAt(ranked: readonly string[], query: JudgedQuery, k = 10): number {
  const ideal = Math.min(groupsOf(query).length, k);
  if (ideal === 0) return 0;
  let dcg = 0;
  groupHits(ranked, query, k).forEach((hit, i) => {
    if (hit) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < ideal; i += 1) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}

/** Reciprocal rank of the first relevant name within the first `k` (default 10), else 0. */
export function mrrAt(ranked: readonly string[], query: JudgedQuery, k = 10): number {
  const index = groupHits(ranked, query, k).indexOf(true);
  return index < 0 ? 0 : 1 / (index + 1);
}

/** Mean metrics over a query set: `recall[k]` for each requested k, `ndcg10`, `mrr10`. */
export interface MetricSummary {
  readonly queries: number;
  readonly recall: Readonly<Record<number, number>>;
  readonly ndcg10: number;
  readonly mrr10: number;
}

/**
 * Averages the metrics of `rank(query)` over `queries` for each k in `ks`.
 * `rank` returns names best first (at least max(ks, 10) of them when available).
 */
export function summarise(
  queries: readonly JudgedQuery[],
  ks: readonly number[],
  rank: (query: string) => readonly string[],
): MetricSummary {
  const recall: Record<number, number> = Object.fromEntries(ks.map((k) => [k, 0]));
  let ndcg10 = 0;
  let mrr10 = 0;
  for (const query of queries) {
    const ranked = rank(query.query);
    for (const k of ks) recall[k] = (recall[k] ?? 0) + recallAt(ranked, query, k);
    ndcg10 += ndcgAt(ranked, query);
    mrr10 += mrrAt(ranked, query);
  }
  const n = queries.length || 1;
  for (const k of ks) recall[k] = (recall[k] ?? 0) / n;
  return { queries: queries.length, recall, ndcg10: ndcg10 / n, mrr10: mrr10 / n };
}
