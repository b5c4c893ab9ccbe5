/**
 * Fusion of the BM25 ranking with sentence-encoder similarity: each tool's score is its BM25 score
 * divided by the best BM25 score of the query (0 when BM25 did not match it) plus α times the z-score
 * of its cosine similarity to the query among the tools that have a vector (0 for a tool without
 * one, so until its vector exists BM25 alone places it). Exact names and configured keyword phrases
 * stay first, as in BM25, then BM25's strong matches (strength.ts) in BM25's order: the encoder
 * reorders what BM25 is not sure of. Pure: vectors come in, names come out.
 *
 * Why this form and α: docs/search.md ("Semantic ranking"), measured by `npm run bench:search`
 * with 2-fold cross-validation by query id on shared/data/retrieval; reciprocal-rank fusion and raw
 * (not z-scored) cosine did worse there.
 */

/** Weight of the z-scored cosine against the max-normalised BM25 score (docs/search.md). */
export const DEFAULT_ALPHA = 0.3;

/** One BM25 hit as fusion reads it: a qualified name and its score (unitless, higher is better). */
export interface ScoredName {
  readonly name: string;
  readonly score: number;
}

/** What one fused ranking needs. */
export interface FusionInput {
  /** Every BM25 hit, best first; the first `exact` of them are exact names or keyword phrases. */
  readonly bm25: readonly ScoredName[];
  /** How many leading BM25 hits are exact (kept first, in their order). */
  readonly exact: number;
  /** Cosine similarity of the query to each tool that has a vector, by qualified name (−1..1). */
  readonly cosine: ReadonlyMap<string, number>;
  /** Weight of the cosine z-score; {@link DEFAULT_ALPHA} in production. */
  readonly alpha: number;
  /**
   * BM25's strong matches (strength.ts `judge`), kept right after the exact ones in BM25's order:
   * with them first, livemcpbench's dev Recall@5 went from 0.480 to 0.496 and metatool's from 0.773
   * to 0.774 (docs/search.md "Quality"). None when absent.
   */
  readonly strong?: readonly string[];
}

/**
 * The fused ranking, best first, at most `limit` names: the exact hits, then the strong ones (each
 * with its BM25 score), then the others by fused score; ties keep BM25's order, then the cosine's.
 * A tool with neither a BM25 match nor a vector is left out. Never throws.
 */
export function fuseRanking(input: FusionInput, limit: number): ScoredName[] {
  const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
  if (max === 0) return [];
  const exact = input.bm25.slice(0, input.exact);
  const exactNames = new Set(exact.map((hit) => hit.name));
  const strongNames = new Set(input.strong ?? []);
  const strong = input.bm25.slice(input.exact).filter((hit) => strongNames.has(hit.name) && !exactNames.has(hit.name));
  const leading = [...exact, ...strong];
  const leadingNames = new Set(leading.map((hit) => hit.name));
  const z = zScores(input.cosine);
  const rest = input.bm25.slice(input.exact).filter((hit) => !leadingNames.has(hit.name));
  const top = rest.reduce((best, hit) => Math.max(best, hit.score), 0);
  const fused = new Map<string, { score: number; order: number }>();
  rest.forEach((hit, order) => fused.set(hit.name, { score: (top > 0 ? hit.score / top : 0) + input.alpha * (z.get(hit.name) ?? 0), order }));
  let order = rest.length;
  for (const [name, value] of z) {
    if (leadingNames.has(name) || fused.has(name)) continue;
    fused.set(name, { score: input.alpha * value, order: order++ });
  }
  const ranked = [...fused].sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order);
  return [...leading, ...ranked.map(([name, value]) => ({ name, score: value.score }))].slice(0, max);
}

/** Each value's z-score against all of them (population standard deviation); all 0 when they do not vary. */
export function zScores(values: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  if (values.size === 0) return out;
  let sum = 0;
  for (const value of values.values()) sum += value;
  const mean = sum / values.size;
  let squares = 0;
  for (const value of values.values()) squares += (value - mean) ** 2;
  const sd = Math.sqrt(squares / values.size);
  for (const [name, value] of values) out.set(name, sd > 1e-12 ? (value - mean) / sd : 0);
  return out;
}

/**
 * Cosine similarity of `query` to each of `vectors` (all the same length). Vectors of zero length
 * score 0. Units: none, −1..1.
 */
export function cosines(query: Float32Array, vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors.length);
  const qn = norm(query);
  vectors.forEach((vector, i) => {
    let dot = 0;
    for (let d = 0; d < query.length; d += 1) dot += query[d]! * vector[d]!;
    const denominator = qn * norm(vector);
    out[i] = denominator > 0 ? dot / denominator : 0;
  });
  return out;
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (let d = 0; d < vector.length; d += 1) sum += vector[d]! * vector[d]!;
  return Math.sqrt(sum);
}
