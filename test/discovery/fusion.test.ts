import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFloodGuard } from '../../src/discovery/diversify.js';
import { rankerCatalogueOf } from '../../src/discovery/hostRanker.js';
import { rankTools, type RankContext } from '../../src/discovery/rank.js';
import { buildSearchIndex } from '../../src/discovery/searchIndex.js';
import type { Embedder } from '../../src/discovery/semantic/embedder.js';
import { SemanticEngine, type SemanticScorer } from '../../src/discovery/semantic/engine.js';
import { cosines, fuseRanking, zScores } from '../../src/discovery/semantic/fusion.js';
import { ok } from '../../src/lib/result.js';
import { bundledCatalogue, entry } from './helpers.js';

const cosine = (pairs: [string, number][]): Map<string, number> => new Map(pairs);

describe('fusion of BM25 and cosine (pure)', () => {
  it('z-scores centre and scale; constant values give 0', () => {
    const z = zScores(cosine([['a', 1], ['b', 3]]));
    expect([z.get('a'), z.get('b')]).toEqual([-1, 1]);
    expect([...zScores(cosine([['a', 0.5], ['b', 0.5]])).values()]).toEqual([0, 0]);
  });

  it('cosines of fake vectors, a zero vector scoring 0', () => {
    const scores = cosines(Float32Array.from([1, 0]), [Float32Array.from([2, 0]), Float32Array.from([0, 3]), Float32Array.from([0, 0])]);
    expect([...scores]).toEqual([1, 0, 0]);
  });

  it('max-normalised BM25 plus α × z-scored cosine; a tool only the encoder finds can win', () => {
    const bm25 = [{ name: 'delete_relations', score: 10 }, { name: 'create_entities', score: 8 }];
    const cos = cosine([['delete_relations', 0.1], ['create_entities', 0.9], ['add_observations', 0.5]]);
    expect(fuseRanking({ bm25, exact: 0, cosine: cos, alpha: 0 }, 3).map((h) => h.name)).toEqual(['delete_relations', 'create_entities', 'add_observations']);
    // z: −1.22, +1.22, 0 → 1 − 0.37 = 0.63 against 0.8 + 0.37 = 1.17.
    const fused = fuseRanking({ bm25, exact: 0, cosine: cos, alpha: 0.3 }, 3);
    expect(fused.map((h) => h.name)).toEqual(['create_entities', 'delete_relations', 'add_observations']);
    expect(fused[0]!.score).toBeCloseTo(0.8 + 0.3 * Math.sqrt(1.5), 6);
    expect(fuseRanking({ bm25: [], exact: 0, cosine: cos, alpha: 0.3 }, 1).map((h) => h.name)).toEqual(['create_entities']);
  });

  it('exact names stay first; a tool without a vector keeps its BM25 part (z 0); limit holds', () => {
    const bm25 = [{ name: 'exact', score: 11 }, { name: 'a', score: 10 }, { name: 'b', score: 9 }];
    // z: a −0.71, c +1.41, b none (0): a 1 − 0.71, b 0.9, c 1.41.
    const fused = fuseRanking({ bm25, exact: 1, cosine: cosine([['exact', -1], ['a', -1], ['c', 1]]), alpha: 1 }, 3);
    expect(fused.map((h) => h.name)).toEqual(['exact', 'c', 'b']);
    expect(fuseRanking({ bm25, exact: 1, cosine: new Map(), alpha: 0.3 }, 0)).toEqual([]);
  });

  it("BM25's strong matches lead after the exact ones, in BM25's order; the encoder reorders the rest", () => {
    const bm25 = [{ name: 'exact', score: 11 }, { name: 'a', score: 10 }, { name: 'b', score: 9 }, { name: 'd', score: 2 }];
    const cos = cosine([['exact', -1], ['a', -1], ['b', -1], ['c', 1], ['d', 0.5]]);
    // Without the strong run, c (found by the encoder alone) would come right after the exact name.
    expect(fuseRanking({ bm25, exact: 1, cosine: cos, alpha: 1 }, 5).map((h) => h.name)).toEqual(['exact', 'c', 'd', 'a', 'b']);
    // The rest is normalised by its own best BM25 score: d 2/2 + 0.92 against c's 1.49.
    const fused = fuseRanking({ bm25, exact: 1, cosine: cos, alpha: 1, strong: ['exact', 'b', 'a'] }, 5);
    expect(fused.map((h) => h.name)).toEqual(['exact', 'a', 'b', 'd', 'c']);
    expect(fused[1]).toEqual({ name: 'a', score: 10 });
  });
});

describe('rankTools with a semantic scorer', () => {
  const entries = [
    entry('memory', 'delete_relations', 'Delete multiple relations from the knowledge graph'),
    entry('memory', 'create_entities', 'Create multiple new entities in the knowledge graph'),
    entry('files', 'list_directory', 'Get a detailed listing of all files and directories in a specified path.'),
  ];
  const index = buildSearchIndex(entries);
  const base: RankContext = { index, mode: 'bm25', catalogue: rankerCatalogueOf(entries), timeoutMs: 50 };
  const scorer = (answer: Awaited<ReturnType<SemanticScorer['score']>>): SemanticScorer => ({ score: async () => answer });
  const favourCreate = scorer({ ok: true, cosine: cosine([['memory__delete_relations', 0.1], ['memory__create_entities', 0.9], ['files__list_directory', 0.2]]), missing: 0 });

  it('fuses and says so; the encoder sitting out leaves BM25 with the reason', async () => {
    const fused = await rankTools({ ...base, semantic: favourCreate }, 'store a fact in the knowledge graph', 3);
    expect(fused).toMatchObject({ ranker: 'hybrid', semantic: { used: true, missing: 0 } });
    expect(fused.matched[0]).toBe('memory__create_entities');
    const plain = await rankTools(base, 'store a fact in the knowledge graph', 3);
    const sat = await rankTools({ ...base, semantic: scorer({ ok: false, reason: 'no tool vectors yet', missing: 3 }) }, 'store a fact in the knowledge graph', 3);
    expect(sat).toEqual({ ...plain, semantic: { used: false, missing: 3, reason: 'no tool vectors yet' } });
    expect(plain.semantic).toBeUndefined();
  });

  it('compare mode shadows the fused ranking; a failing host ranker falls back to it', async () => {
    const host = ok({ rank: () => ['files__list_directory'], source: 'test' });
    const compared = await rankTools({ ...base, mode: 'compare', host, semantic: favourCreate }, 'store a fact in the knowledge graph', 2);
    expect(compared).toMatchObject({ ranker: 'host', matched: ['files__list_directory'], semantic: { used: true } });
    expect(compared.shadowMatched?.[0]).toBe('memory__create_entities');
    const failing = ok({ rank: () => { throw new Error('offline'); }, source: 'test' });
    const fallback = await rankTools({ ...base, mode: 'ranker', host: failing, semantic: favourCreate }, 'store a fact in the knowledge graph', 2);
    expect(fallback).toMatchObject({ ranker: 'hybrid', fallback: 'ranker threw: offline' });
  });

  it('without a scorer the ranking is BM25 exactly, on the bundled servers', async () => {
    const bundled = bundledCatalogue();
    const idx = buildSearchIndex(bundled);
    for (const query of ['read a file', 'store a fact in the knowledge graph', 'add two numbers', 'think step by step']) {
      const result = await rankTools({ index: idx, mode: 'bm25', catalogue: rankerCatalogueOf(bundled), timeoutMs: 50 }, query, 5);
      expect(result.matched).toEqual(idx.search(query, 5).map((hit) => hit.name));
      expect(result.ranker).toBe('bm25');
    }
  });
});

describe('the semantic engine with an embedder of fake vectors', () => {
  const tools = [
    entry('memory', 'create_entities', 'Create multiple new entities in the knowledge graph'),
    entry('files', 'list_directory', 'List a folder.'),
  ];
  /** Vector [1, 0] for texts that mention "entities" or "fact", [0, 1] for the rest; counts what it embeds. */
  const fake = (fail = false) => {
    const seen: string[] = [];
    const embedder: Embedder = {
      embed: async (texts) => {
        if (fail) throw new Error('no model');
        seen.push(...texts);
        return texts.map((text) => Float32Array.from(/entities|fact/.test(text) ? [1, 0] : [0, 1]));
      },
      close: async () => undefined,
    };
    return { embedder, seen };
  };
  const ready = async (engine: SemanticEngine): Promise<void> => {
    while (engine.status().state !== 'ready' && engine.status().state !== 'failed') await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('embeds after start, scores by cosine, and a start from the disk cache embeds nothing again', async () => {
    const cacheFile = join(mkdtempSync(join(tmpdir(), 'toolshelf-vectors-')), 'vectors.json');
    const first = fake();
    const engine = new SemanticEngine({ embedder: first.embedder, cacheFile });
    const scorer = engine.track(tools);
    expect(await scorer.score('store a fact')).toEqual({ ok: false, reason: 'no tool vectors yet', missing: 2 });
    await ready(engine);
    expect(first.seen).toHaveLength(2);
    const scored = await scorer.score('store a fact');
    expect(scored.ok && [...scored.cosine]).toEqual([['memory__create_entities', 1], ['files__list_directory', 0]]);
    await engine.close();
    const second = fake();
    const again = new SemanticEngine({ embedder: second.embedder, cacheFile });
    again.track(tools);
    again.start();
    await ready(again);
    expect(second.seen).toEqual([]);
    // A view's scorer reads the tracked vectors and changes nothing tracked.
    expect(await again.scorerFor(tools.slice(1)).score('list')).toMatchObject({ ok: true, missing: 0 });
    expect(again.status()).toEqual({ state: 'ready', vectors: 2, missing: 0 });
  });

  it('a failing encoder leaves every search to BM25 with the reason', async () => {
    const engine = new SemanticEngine({ embedder: fake(true).embedder });
    const scorer = engine.track(tools);
    engine.start();
    await ready(engine);
    expect(await scorer.score('store a fact')).toEqual({ ok: false, reason: 'encoder failed: no model', missing: 2 });
  });
});

describe('the per-server cap holds for the fused ranking', () => {
  // Six tools of one server the encoder favours, four of others BM25 matches: the fused ranking
  // alone would fill the top 5 with the first server.
  const entries = [
    ...['one', 'two', 'three', 'four', 'five', 'six'].map((n) => entry('flood', `store_${n}`, `Keeps records, variant ${n}.`)),
    entry('memory', 'save_facts', 'Save facts to the knowledge graph.'),
    entry('memory', 'link_entities', 'Link two entities of the knowledge graph with a relation.'),
    entry('notes', 'write_note', 'Write a note with facts to remember.'),
    entry('wiki', 'edit_page', 'Edit a page of the team knowledge base.'),
  ];
  const index = buildSearchIndex(entries);
  const favourFlood: SemanticScorer = {
    score: async () => ({ ok: true, cosine: new Map(entries.map((e) => [e.qualifiedName, e.server === 'flood' ? 0.9 : 0.1])), missing: 0 }),
  };
  const base: RankContext = { index, mode: 'bm25', catalogue: rankerCatalogueOf(entries), timeoutMs: 50, semantic: favourFlood, alpha: 5 };

  it("without the guard the encoder fills the top 5 behind BM25's strong match; with it one server holds at most 2 of them", async () => {
    const open = await rankTools(base, 'save facts to the knowledge graph', 5);
    expect(open.matched[0]).toBe('memory__save_facts');
    expect(open.matched.filter((name) => name.startsWith('flood__'))).toHaveLength(4);
    const capped = await rankTools({ ...base, guard: buildFloodGuard(entries) }, 'save facts to the knowledge graph', 5);
    expect(capped).toMatchObject({ ranker: 'hybrid', semantic: { used: true } });
    expect(capped.matched, capped.matched.join(' ')).toHaveLength(5);
    expect(capped.matched.filter((name) => name.startsWith('flood__')).length, capped.matched.join(' ')).toBeLessThanOrEqual(2);
    expect(capped.matched.filter((name) => name.startsWith('flood__')).length).toBeLessThanOrEqual(2);
  });
});
