/**
 * The strong-match rule, deprecation ranking and what the manifest shows, on real catalogues: the
 * bundled config's npm servers (captured tools/list) and the shared ones.
 * Source: docs/tools.md.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { renderManifest } from '../../src/discovery/manifest.js';
import { describesDeprecation, isDeprecated } from '../../src/discovery/deprecation.js';
import { buildSearchIndex } from '../../src/discovery/searchIndex.js';
import { judge, missesShortQuery, rareTermIdf, STRONG_FLOOR, type RankedForJudgement } from '../../src/discovery/strength.js';
import { searchResult } from '../../src/gateway/searchAnswer.js';
import { buildShelf } from '../../src/shelf/build.js';
import { bundledCatalogue, bundledTools, entry, SHARED_ABSENT, sharedCatalogue } from './helpers.js';

/** The bundled config's deferred tools: every tool but files' read_text_file, list_directory (direct) and read_file (hidden). */
const shelf = bundledCatalogue().filter((e) => !['files__read_text_file', 'files__list_directory', 'files__read_file'].includes(e.qualifiedName));
const shelfIndex = buildSearchIndex(shelf);
const judged = (index: ReturnType<typeof buildSearchIndex>, query: string, limit = 5) => judge(index.rank(query, limit));

describe('strong matches', () => {
  it('"add two numbers" on the bundled shelf: get-sum alone is strong', () => {
    const ranked = shelfIndex.rank('add two numbers', 5);
    expect(ranked.hits).toHaveLength(5);
    expect(judge(ranked)).toMatchObject({ strong: ['everything__get-sum'], weak: false });
  });

  it('"send an email" on the bundled shelf is judged weak: hits, none strong', () => {
    const ranked = shelfIndex.rank('send an email', 5);
    expect(ranked.hits.length).toBeGreaterThan(0);
    const verdict = judge(ranked);
    expect(verdict).toMatchObject({ strong: [], weak: true });
    expect(verdict.relativeTop).toBeLessThan(STRONG_FLOOR);
  });

  it('an exact name makes that tool alone strong, even where others score close', () => {
    expect(judged(shelfIndex, 'memory__create_entities')).toMatchObject({ strong: ['memory__create_entities'], weak: false });
    expect(judged(shelfIndex, 'write_file')).toMatchObject({ strong: ['files__write_file'], weak: false });
  });

  it.skipIf(SHARED_ABSENT)('on the shared 527-tool catalogue: an exact name is strong alone, nonsense is weak', () => {
    const index = buildSearchIndex(sharedCatalogue('livemcpbench-all', 'live'));
    expect(judge(index.rank('zzqx blorf', 5))).toMatchObject({ strong: [], weak: true });
    const first = sharedCatalogue('livemcpbench-all', 'live')[0]!.qualifiedName;
    expect(judged(index, first).strong).toEqual([first]);
  });

  it('the rule: floor on the relative top, then a leading run within the ratio that covers the query like the first', () => {
    const base = { terms: 2, distinctTerms: 2, exact: 0, size: 100 };
    const unit = 2 * rareTermIdf(100);
    const hits = [
      { name: 'a', score: 3 * unit, matchedTerms: 2 },
      { name: 'b', score: 2 * unit, matchedTerms: 2 },
      { name: 'c', score: 1.9 * unit, matchedTerms: 1 },
      { name: 'd', score: 1.8 * unit, matchedTerms: 2 },
    ];
    const ranked: RankedForJudgement = { ...base, hits };
    const off = { shortTerms: 0, shortShare: 0 };
    expect(judge(ranked, { floor: 1, ratio: 0.5, coverage: 0.75, ...off }).strong).toEqual(['a', 'b']);
    expect(judge(ranked, { floor: 1, ratio: 0.5, coverage: 0, ...off }).strong).toEqual(['a', 'b', 'c', 'd']);
    expect(judge(ranked, { floor: 1, ratio: 0.9, coverage: 0, ...off }).strong).toEqual(['a']);
    expect(judge(ranked, { floor: 3.5, ratio: 0.5, coverage: 0, ...off })).toMatchObject({ strong: [], weak: true });
    expect(judge({ ...base, hits: [] })).toMatchObject({ strong: [], weak: true, relativeTop: 0 });
  });

  it('the short-query test: a first hit matching one term of a 2–3-term query is weak however high it scores; 4+ terms are not short', () => {
    const unit = rareTermIdf(100);
    const oneOf = (distinctTerms: number): RankedForJudgement => ({
      terms: distinctTerms,
      distinctTerms,
      exact: 0,
      size: 100,
      hits: [{ name: 'a', score: 20 * distinctTerms * unit, matchedTerms: 1 }],
    });
    const rule = { floor: 1.3, ratio: 0.5, coverage: 0.75, shortTerms: 3, shortShare: 0.55 };
    expect(judge(oneOf(2), rule)).toMatchObject({ strong: [], weak: true });
    expect(judge(oneOf(3), rule)).toMatchObject({ strong: [], weak: true });
    expect(judge(oneOf(4), rule)).toMatchObject({ strong: ['a'], weak: false });
    expect(judge(oneOf(1), rule)).toMatchObject({ strong: ['a'], weak: false });
    expect(missesShortQuery({ ...oneOf(3), hits: [{ name: 'a', score: 1, matchedTerms: 2 }] }, rule)).toBe(false);
    expect(judge(oneOf(2), { ...rule, shortTerms: 0 })).toMatchObject({ strong: ['a'], weak: false });
    expect(judge({ ...oneOf(2), exact: 1 }, rule)).toMatchObject({ strong: ['a'], weak: false });
  });
});

describe('short queries on the bundled config (servers.config.json over its servers\' captured tools/list)', () => {
  const loaded = loadConfig(fileURLToPath(new URL('../../servers.config.json', import.meta.url)), {});
  if (!loaded.ok) throw new Error(`servers.config.json: ${JSON.stringify(loaded.error)}`);
  const shelf = buildShelf(loaded.value, bundledTools(), undefined);
  const answer = async (query: string) => {
    const result = await shelf.search(query, 5);
    const entries = result.matched.map((name) => shelf.catalogue.get(name)!);
    return { ...result, structured: searchResult(entries, query, result.strong).structuredContent as { weak?: boolean; note?: string } };
  };

  it('"delete a file": no tool deletes a file, so the answer is weak: nothing strong, the note says so', async () => {
    const found = await answer('delete a file');
    expect(found.matched.length).toBeGreaterThan(0);
    expect(found).toMatchObject({ strong: [], weak: true });
    expect(found.structured).toMatchObject({ weak: true, note: expect.stringMatching(/^No tool clearly matches/) });
  });

  it('"search the web": no web tool is configured; memory and files search tools match "search" alone and are not strong', async () => {
    const found = await answer('search the web');
    expect(found.matched).toEqual(expect.arrayContaining(['memory__search_nodes', 'files__search_files']));
    expect(found).toMatchObject({ strong: [], weak: true });
    expect(found.structured.weak).toBe(true);
  });

  it('a configured keyword phrase finds its tool, strong, though every word of it is a stop word ("what do you know" found nothing)', async () => {
    for (const query of ['what do you know', 'What do you know about Ada?', 'recall everything']) {
      const found = await answer(query);
      expect(found.matched[0], query).toBe('memory__read_graph');
      expect(found.strong, query).toEqual(['memory__read_graph']);
    }
    // Whole words only, and a one-word keyword is BM25's: no phrase takes "know" or "somewhat do you knowledge".
    expect((await answer('somewhat do you knowledge')).strong).not.toContain('memory__read_graph');
    expect((await answer('you know')).strong).not.toContain('memory__read_graph');
  });

  it('short queries that name what a tool does stay strong', async () => {
    expect(await answer('add two numbers')).toMatchObject({ strong: ['everything__get-sum'], weak: false });
    expect(await answer('echo a message')).toMatchObject({ strong: ['everything__echo'], weak: false });
    expect((await answer('read a file')).strong[0]).toBe('files__read_multiple_files');
    expect(await answer('files__write_file')).toMatchObject({ strong: ['files__write_file'], weak: false });
  });
});

describe('deprecated tools', () => {
  const files = bundledCatalogue(['files']);
  const index = buildSearchIndex(files);

  it('filesystem\'s read_file ("DEPRECATED: Use read_text_file instead") ranks below read_text_file for "read a file"', () => {
    for (const query of ['read a file', 'read file', 'read the contents of a file']) {
      const names = index.search(query, 10).map((hit) => hit.name);
      expect(names.indexOf('files__read_text_file'), query).toBeGreaterThanOrEqual(0);
      expect(names.indexOf('files__read_text_file'), query).toBeLessThan(names.indexOf('files__read_file') >>> 0);
      expect(judged(index, query).strong, query).not.toContain('files__read_file');
    }
  });

  it('its exact name still finds it first, alone strong', () => {
    expect(judged(index, 'read_file').strong).toEqual(['files__read_file']);
  });

  it('the manifest tags it "(deprecated)", and only it, deterministically', () => {
    const first = renderManifest(files, { tokenBudget: 4000 });
    expect(first.text).toBe(renderManifest([...files].reverse(), { tokenBudget: 4000 }).text);
    expect(first.text).toMatch(/^files__read_file\(path: string\) \(deprecated\) \(read-only\): Read the complete contents/m);
    expect(first.text.match(/\(deprecated\)/g)).toHaveLength(1);
    const short = renderManifest(files, { tokenBudget: 280 });
    expect(short.level).toBe('short');
    expect(short.text).toMatch(/^files__read_file \(deprecated\) \(read-only\): /m);
  });

  it('what counts: a sentence starting "deprecated", a tag, "this tool is deprecated", title, annotations, _meta', () => {
    for (const text of ['DEPRECATED: Use read_text_file instead', 'Reads. Deprecated, use y.', '[Deprecated] old', 'Old search (deprecated).', 'This tool is deprecated; use v2.', '⚠️ Deprecated.']) {
      expect(describesDeprecation(text), text).toBe(true);
    }
    for (const text of ['Check if packages are deprecated', 'List of package names to check for deprecation', 'Undeprecated things', '']) {
      expect(describesDeprecation(text), text).toBe(false);
    }
    const tool = { name: 't', inputSchema: { type: 'object' } };
    expect(isDeprecated({ ...tool, title: 'Read File (Deprecated)' })).toBe(true);
    expect(isDeprecated({ ...tool, annotations: { deprecated: true } })).toBe(true);
    expect(isDeprecated({ ...tool, _meta: { 'com.example/deprecated': true } })).toBe(true);
    expect(isDeprecated({ ...tool, _meta: { deprecated: false }, annotations: { title: 'Fine' } })).toBe(false);
  });
});

describe('manifest entries', () => {
  const text = renderManifest(shelf, { tokenBudget: 4000 }).text;

  it('required arrays and objects show their required item keys with types', () => {
    expect(text).toContain('memory__create_entities(entities: {name: string, entityType: string, observations: string[]}[]):');
    expect(text).toContain('memory__create_relations(relations: {from: string, to: string, relationType: string}[]):');
    expect(text).toContain('memory__add_observations(observations: {entityName: string, contents: string[]}[]):');
  });

  it('keywords are their own sentence after a description that ends without a full stop', () => {
    const kw = entry('memory', 'create_entities', 'Create multiple new entities in the knowledge graph', { type: 'object' }, ['remember', 'note']);
    expect(renderManifest([kw], { tokenBudget: 4000 }).text).toBe('memory__create_entities: Create multiple new entities in the knowledge graph. Keywords: note, remember.');
  });
});
