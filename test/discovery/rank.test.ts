import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { err, ok } from '../../src/lib/result.js';
import { loadHostRanker, rankerCatalogueOf, type HostRankFn } from '../../src/discovery/hostRanker.js';
import { rankTools, type RankContext, type RankMode } from '../../src/discovery/rank.js';
import { buildSearchIndex } from '../../src/discovery/searchIndex.js';
import { entry } from './helpers.js';

const entries = [
  entry('files', 'read_file', 'Read a file from disk.'),
  entry('files', 'write_file', 'Write a file to disk.'),
  entry('web', 'fetch', 'Fetch a web page.'),
];
const index = buildSearchIndex(entries);
const catalogue = rankerCatalogueOf(entries);

function context(mode: RankMode, rank?: HostRankFn, timeoutMs = 50): RankContext {
  return { index, catalogue, mode, timeoutMs, ...(rank ? { host: ok({ rank, source: 'test' }) } : {}) };
}

describe('rank modes', () => {
  it('bm25 mode ignores a configured ranker', async () => {
    const result = await rankTools(context('bm25', () => ['web__fetch']), 'read file', 2);
    expect(result).toMatchObject({ ranker: 'bm25', matched: ['files__read_file', 'files__write_file'] });
    expect(result.topScore).toBeGreaterThan(0);
    expect(result.fallback).toBeUndefined();
  });

  it('ranker mode serves the host ranking; names may come as strings or {name, score}', async () => {
    const result = await rankTools(context('ranker', () => [{ name: 'web__fetch', score: 0.9 }, 'files__read_file']), 'x', 5);
    expect(result).toEqual({ matched: ['web__fetch', 'files__read_file'], ranker: 'host', topScore: 0.9, strong: ['web__fetch'], weak: false });
  });

  it('an exact name still comes first when the host ranker serves', async () => {
    const result = await rankTools(context('ranker', () => ['web__fetch']), 'write_file', 5);
    expect(result.matched).toEqual(['files__write_file', 'web__fetch']);
  });

  it('compare mode serves the host ranking and records BM25 as shadowMatched', async () => {
    const result = await rankTools(context('compare', async () => ['web__fetch']), 'read file', 1);
    expect(result).toEqual({ matched: ['web__fetch'], ranker: 'host', strong: ['web__fetch'], weak: false, shadowMatched: ['files__read_file'] });
  });
});

describe('host ranker failures fall back to BM25 with the reason', () => {
  const cases: [string, HostRankFn, RegExp][] = [
    ['throws', () => { throw new Error('model offline'); }, /^ranker threw: model offline$/],
    ['rejects', async () => Promise.reject(new Error('boom')), /^ranker threw: boom$/],
    ['times out', () => new Promise((done) => setTimeout(() => done(['web__fetch']), 500)), /^ranker timed out after 20 ms$/],
    ['returns an empty list', () => [], /^ranker returned no result$/],
    ['returns nothing', () => undefined, /^ranker returned no result$/],
    ['returns only invented names', () => ['files__delete_everything', 42, null], /^ranker returned only unknown names$/],
  ];
  it.each(cases)('a ranker that %s', async (_label, rank, reason) => {
    const result = await rankTools(context('ranker', rank, 20), 'read file', 2);
    expect(result.ranker).toBe('bm25');
    expect(result.fallback).toMatch(reason);
    expect(result.matched).toEqual(['files__read_file', 'files__write_file']);
  });

  it('invented names are dropped while known ones are served', async () => {
    const result = await rankTools(context('ranker', () => ['made__up', 'web__fetch', 'web__fetch']), 'page', 5);
    expect(result).toEqual({ matched: ['web__fetch'], ranker: 'host', strong: ['web__fetch'], weak: false });
  });

  it('a ranker that failed to load falls back with the load error', async () => {
    const result = await rankTools({ index, catalogue, mode: 'ranker', timeoutMs: 50, host: err('ranker module x failed to load: nope') }, 'fetch', 1);
    expect(result).toMatchObject({ ranker: 'bm25', matched: ['web__fetch'], fallback: 'ranker module x failed to load: nope' });
  });

  it('a broken index never makes the search reject', async () => {
    const broken = { ...context('bm25'), index: { size: 0, rank: () => { throw new Error('bad'); }, search: () => { throw new Error('bad'); }, exactMatches: () => [] } };
    await expect(rankTools(broken, 'x', 5)).resolves.toEqual({ matched: [], ranker: 'bm25', strong: [], weak: true, fallback: 'search failed: bad' });
  });
});

describe('loading a host ranker module', () => {
  const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

  it('loads rank from a path relative to the config folder', async () => {
    const loaded = await loadHostRanker('./ranker.mjs', fixtures);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const result = await rankTools({ index, catalogue, mode: 'ranker', timeoutMs: 100, host: loaded }, 'file', 5);
    expect(result).toEqual({ matched: ['files__write_file', 'files__read_file'], ranker: 'host', strong: ['files__write_file'], weak: false });
  });

  it('reports a module without rank, and a missing module, as errors', async () => {
    expect(await loadHostRanker('./notARanker.mjs', fixtures)).toEqual(err('ranker module ./notARanker.mjs exports no rank function'));
    const missing = await loadHostRanker('./absent.mjs', fixtures);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toMatch(/^ranker module \.\/absent\.mjs failed to load: /);
  });
});
