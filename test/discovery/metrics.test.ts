import { describe, expect, it } from 'vitest';
import { mrrAt, ndcgAt, recallAt, summarise, type JudgedQuery } from '../../src/discovery/metrics.js';

const single: JudgedQuery = { id: 's', query: 'q1', relevant: ['a'] };
const grouped: JudgedQuery = { id: 'g', query: 'q2', relevant: ['a', 'b', 'c'], relevant_groups: [['a', 'b'], ['c']] };

describe('metrics computed by hand (shared/data/README.md)', () => {
  it('Recall@k counts a group as found when any member is in the top k', () => {
    expect(recallAt(['x', 'b', 'y'], grouped, 2)).toBe(0.5);
    expect(recallAt(['x', 'b', 'c'], grouped, 3)).toBe(1);
    expect(recallAt(['x', 'y', 'a'], single, 2)).toBe(0);
    expect(recallAt(['x', 'y', 'a'], single, 3)).toBe(1);
  });

  it('nDCG@10 gains once per group, discounted by log2(rank + 1)', () => {
    // hits at ranks 2 (group 1) and 3 (group 2); rank 1's "a" after "b" would not count twice.
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(4);
    const idcg = 1 + 1 / Math.log2(3);
    expect(ndcgAt(['x', 'b', 'c'], grouped)).toBeCloseTo(dcg / idcg, 12);
    expect(ndcgAt(['b', 'a', 'x'], grouped)).toBeCloseTo(1 / idcg, 12);
    expect(ndcgAt(['a'], single)).toBe(1);
  });

  it('MRR@10 is the reciprocal rank of the first relevant name, 0 past rank 10', () => {
    expect(mrrAt(['x', 'y', 'c'], grouped)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt([...'0123456789'.split(''), 'a'], single)).toBe(0);
  });

  it('summarise averages over queries', () => {
    const ranked: Record<string, string[]> = { q1: ['a'], q2: ['x', 'y', 'z'] };
    const summary = summarise([single, grouped], [1, 5], (query) => ranked[query]!);
    expect(summary).toEqual({ queries: 2, recall: { 1: 0.5, 5: 0.5 }, ndcg10: 0.5, mrr10: 0.5 });
  });
});
