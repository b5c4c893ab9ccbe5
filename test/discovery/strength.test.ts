/**
 * The strong-match rule, deprecation ranking and what the manifest shows, on real catalogues: the
 * bundled config's npm servers (captured tools/list) and the shared ones.
 * Source: issue 12 points 1–5; DESIGN §5, §6, §9.
 */
import { describe, expect, it } from 'vitest';
import { renderManifest } from '../../src/discovery/manifest.js';
import { describesDeprecation, isDeprecated } from '../../src/discovery/deprecation.js';
import { buildSearchIndex } from '../../src/discovery/searchIndex.js';
import { judge, rareTermIdf, STRONG_FLOOR, type RankedForJudgement } from '../../src/discovery/strength.js';
import { bundledCatalogue, entry, SHARED_ABSENT, sharedCatalogue } from './helpers.js';

/** The bundled config's deferred tools: every tool but files' read_text_file, list_directory (direct) and read_file (hidden). */
const shelf = bundledCatalogue().filter((e) => !['files__read_text_file', 'files__list_directory', 'files__read_file'].includes(e.qualifiedName));
const shelfIndex = buildSearchIndex(shelf);
const judged = (index: ReturnType<typeof buildSearchIndex>, query: string, limit = 5) => judge(index.rank(query, limit));

describe('strong matches (issue 12 points 1–3)', () => {
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
    const base = { terms: 2, exact: 0, size: 100 };
    const unit = 2 * rareTermIdf(100);
    const hits = [
      { name: 'a', score: 3 * unit, matchedTerms: 2 },
      { name: 'b', score: 2 * unit, matchedTerms: 2 },
      { name: 'c', score: 1.9 * unit, matchedTerms: 1 },
      { name: 'd', score: 1.8 * unit, matchedTerms: 2 },
    ];
    const ranked: RankedForJudgement = { ...base, hits };
    expect(judge(ranked, { floor: 1, ratio: 0.5, coverage: 0.75 }).strong).toEqual(['a', 'b']);
    expect(judge(ranked, { floor: 1, ratio: 0.5, coverage: 0 }).strong).toEqual(['a', 'b', 'c', 'd']);
    expect(judge(ranked, { floor: 1, ratio: 0.9, coverage: 0 }).strong).toEqual(['a']);
    expect(judge(ranked, { floor: 3.5, ratio: 0.5, coverage: 0 })).toMatchObject({ strong: [], weak: true });
    expect(judge({ ...base, hits: [] })).toMatchObject({ strong: [], weak: true, relativeTop: 0 });
  });
});

describe('deprecated tools (issue 12 point 4)', () => {
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
    expect(first.text).toMatch(/^files__read_file\(path: string\) \(deprecated\): Read the complete contents/m);
    expect(first.text.match(/\(deprecated\)/g)).toHaveLength(1);
    const short = renderManifest(files, { tokenBudget: 280 });
    expect(short.level).toBe('short');
    expect(short.text).toMatch(/^files__read_file \(deprecated\): /m);
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

describe('manifest entries (issue 12 point 5)', () => {
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
