import { describe, expect, it } from 'vitest';
import { buildFloodGuard, diversify, namedServers } from '../../src/discovery/diversify.js';
import { floodedTools, isStuffed, oversizedServerWarnings } from '../../src/discovery/flooding.js';
import { buildSearchIndex } from '../../src/discovery/searchIndex.js';
import { rankTools } from '../../src/discovery/rank.js';
import { rankerCatalogueOf } from '../../src/discovery/hostRanker.js';
import { suggestNames } from '../../src/discovery/suggest.js';
import type { CatalogEntry } from '../../src/catalog/types.js';
import { floodTools } from '../fixtures/flood/floodTools.mjs';
import { bundledCatalogue, entry, SHARED_ABSENT, sharedCatalogue, SKIP_MESSAGE } from './helpers.js';

const floodEntries = (): CatalogEntry[] => (floodTools() as { name: string; description: string }[]).map((tool) => entry('helper', tool.name, tool.description));
const names = (list: readonly { name: string }[]): string[] => list.map((item) => item.name);

describe('the per-server cap', () => {
  const entries = [
    ...['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((n) => entry('alpha', n, `Alpha tool ${n}.`)),
    ...['b1', 'b2'].map((n) => entry('beta', n, `Beta tool ${n}.`)),
    ...['c1', 'c2'].map((n) => entry('gamma', n, `Gamma tool ${n}.`)),
  ];
  const guard = buildFloodGuard(entries);
  const ranked = entries.map((e) => ({ name: e.qualifiedName }));

  it('one upstream holds at most 2 of the top 5 and 3 of the top 10', () => {
    const five = names(diversify(ranked, 'anything', guard, 5));
    expect(five.filter((n) => n.startsWith('alpha__'))).toHaveLength(2);
    expect(five).toEqual(['alpha__a1', 'alpha__a2', 'beta__b1', 'beta__b2', 'gamma__c1']);
    const ten = names(diversify(ranked, 'anything', guard, 10));
    expect(ten.slice(0, 5).filter((n) => n.startsWith('alpha__'))).toHaveLength(2);
    // Past the other servers' candidates the capped ones fill the answer, in their order.
    expect(ten).toHaveLength(10);
    expect(new Set(ten)).toEqual(new Set(names(ranked)));
  });

  it('is lifted for a server the query names exactly, by key or by one of its tool names', () => {
    expect(namedServers('alpha things', guard)).toEqual(new Set(['alpha']));
    expect(namedServers('run alpha__a3 please', guard)).toEqual(new Set(['alpha']));
    expect(namedServers('"beta__b2"', guard)).toEqual(new Set(['beta']));
    expect(namedServers('alphabet', guard)).toEqual(new Set());
    expect(names(diversify(ranked, 'alpha', guard, 5))).toEqual(['alpha__a1', 'alpha__a2', 'alpha__a3', 'alpha__a4', 'alpha__a5']);
  });

  it('a tool named with a plain word names no server: a flood of tools called read, the, file cannot lift its own cap', () => {
    const flood = ['a', 'the', 'file', 'read', 'open', 'contents', 'folder'].map((n) => entry('helper', n, `Helps to ${n} things.`));
    const real = [
      ...['read_text_file', 'list_directory', 'read_multiple_files'].map((n) => entry('files', n, `Filesystem: ${n}.`)),
      ...['create_entities', 'search_nodes'].map((n) => entry('memory', n, `Memory: ${n}.`)),
    ];
    const mixed = buildFloodGuard([...flood, ...real]);
    expect(namedServers('read the text of a file', mixed)).toEqual(new Set());
    expect(namedServers('read_text_file', mixed)).toEqual(new Set(['files']));
    expect(namedServers('helper__read', mixed)).toEqual(new Set(['helper']));
    const ranked = [...flood, ...real].map((e) => ({ name: e.qualifiedName }));
    expect(names(diversify(ranked, 'read the text of a file', mixed, 5)).filter((n) => n.startsWith('helper__'))).toHaveLength(2);
  });

  it('tools named like product names or hyphenated words name no server: a flood cannot lift its own cap with YouTube, mp3 or e-mail', () => {
    const names = ['YouTube', 'GitHub', 'PowerPoint', 'mp3', 'follow-up', 'e-mail', 'to-do', '2fa', 'iPhone', 'JavaScript'];
    const flood = names.map((n) => entry('helper', n, `Does ${n} things, the best.`));
    const real = [entry('youtube-dl', 'download_video', 'Download a video from a URL.'), entry('office', 'make_slides', 'Create presentation slides.')];
    const mixed = buildFloodGuard([...flood, ...real]);
    for (const query of ['download a youtube video', 'create a github issue', 'make a powerpoint deck', 'convert mp3 to wav', 'send a follow-up e-mail', 'add a to-do item', 'set up 2fa on my iphone', 'run some javascript']) {
      expect(namedServers(query, mixed).has('helper'), query).toBe(false);
    }
    // A snake_case name is still an identifier the query can name.
    expect(namedServers('use download_video', mixed)).toEqual(new Set(['youtube-dl']));
  });

  it('a single-server catalogue still gets full answers', () => {
    const only = entries.filter((e) => e.server === 'alpha');
    expect(diversify(only.map((e) => ({ name: e.qualifiedName })), 'x', buildFloodGuard(only), 5)).toHaveLength(5);
  });

  it('turned off, it only truncates', () => {
    expect(names(diversify(ranked, 'anything', buildFloodGuard(entries, false), 5))).toEqual(names(ranked).slice(0, 5));
  });
});

describe('flooding signals', () => {
  it('the flood fixture: every tool is scored down (near-duplicate or stuffed)', () => {
    const flooded = floodedTools(floodEntries());
    expect(flooded.size).toBe(50);
    expect([...flooded.values()].filter((why) => why === 'stuffed')).toHaveLength(10);
  });

  it('a repeated term makes a description stuffed; ordinary repetition does not', () => {
    expect(isStuffed('Read file: file file file file reader for any file.')).toBe(true);
    expect(isStuffed('Read the complete contents of a file from the file system as text. Handles various text encodings.')).toBe(false);
  });

  it.skipIf(SHARED_ABSENT)('no real tool is scored down: every tool of the shared catalogues and the bundled servers', () => {
    const catalogues = ['chrome-devtools', 'github', 'linear', 'playwright'].map((file) => sharedCatalogue(file, file));
    // livemcpbench-all holds many servers: each tool keeps its own server (`server::tool`).
    const all = sharedCatalogue('livemcpbench-all', 'lmb').map((e) => ({ ...e, server: e.upstreamName.split('::')[0] ?? e.server }));
    const entries = [...catalogues.flat(), ...all, ...bundledCatalogue()];
    expect(entries.length).toBeGreaterThan(800);
    expect([...floodedTools(entries).keys()]).toEqual([]);
  }, 30_000);

  it('a server far bigger than the others is named in a warning; the bundled servers are not', () => {
    const real = bundledCatalogue(['files', 'memory', 'everything']);
    expect(oversizedServerWarnings(real)).toEqual([]);
    const lines = oversizedServerWarnings([...real, ...floodEntries()]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^upstream "helper" brings 50 searchable tools, more than 3× the others. median \(\d+(\.\d+)?\)/);
  });
});

describe('ranking under flooding (BM25 through rankTools)', () => {
  const entries = [...bundledCatalogue(['files', 'memory', 'everything']), ...floodEntries()];
  const context = (guarded: boolean) => ({ index: buildSearchIndex(entries), mode: 'bm25' as const, catalogue: rankerCatalogueOf(entries), timeoutMs: 1000, guard: buildFloodGuard(entries, guarded) });
  const flood = (list: readonly string[]): number => list.filter((n) => n.startsWith('helper__')).length;

  it('guard off, the flood holds most of the top 5; on, at most 2 where others match, and never first', async () => {
    const [off, on] = [context(false), context(true)];
    let before = 0;
    for (const query of ['write a file', 'search for files', 'create a folder', 'list a folder']) {
      before += flood((await rankTools(off, query, 5)).matched);
      const after = (await rankTools(on, query, 5)).matched;
      expect(flood(after)).toBeLessThanOrEqual(2);
      expect(after[0]).not.toMatch(/^helper__/);
    }
    expect(before).toBeGreaterThanOrEqual(10);
  });

  it('an exact tool name or the server key is not capped', async () => {
    const on = context(true);
    expect((await rankTools(on, 'helper__assist_read_0', 5)).matched[0]).toBe('helper__assist_read_0');
    expect(flood((await rankTools(on, 'helper', 5)).matched)).toBe(5);
  });

  it('a host ranker answer is capped too', async () => {
    const list = [...Array.from({ length: 8 }, (_, i) => `helper__assist_${['read', 'write', 'list', 'folder', 'add', 'sum', 'remember', 'recall'][i]}_${i}`), 'files__read_text_file', 'memory__read_graph'];
    const host = { ok: true as const, value: { rank: () => list } };
    const result = await rankTools({ ...context(true), mode: 'ranker', host }, 'read a file', 5);
    expect(result.ranker).toBe('host');
    expect(result.matched.slice(0, 2)).toEqual(['files__read_text_file', 'memory__read_graph']);
    expect(flood(result.matched)).toBeLessThanOrEqual(3);
  });
});

describe('unknown-name suggestions put the named server first', () => {
  it('mail_send_email → mail__send_email, not helper__mail__send_email', () => {
    const callable = ['helper__mail__send_email', 'mail__send_email', 'mail__read_inbox'];
    expect(suggestNames('mail_send_email', callable)[0]).toBe('mail__send_email');
    expect(suggestNames('mail-send_email', callable)[0]).toBe('mail__send_email');
  });
});
