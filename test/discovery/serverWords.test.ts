import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CatalogEntry, JsonObject } from '../../src/catalog/types.js';
import { buildFloodGuard, diversify, namedServers } from '../../src/discovery/diversify.js';
import { toCatalogEntry } from '../../src/discovery/retrievalSet.js';
import { serverKeyWords, serversNamedByKeyWords } from '../../src/discovery/serverWords.js';
import { floodTools } from '../fixtures/flood/floodTools.mjs';
import { bundledCatalogue, entry, sharedCatalogue, sharedData, SHARED_ABSENT, SKIP_MESSAGE } from './helpers.js';

/**
 * The shared livemcpbench catalogue (`server::tool` names) as entries of their servers (keys with
 * `-` for spaces, as the livemcpbench retrieval set has them), beside github, playwright and linear.
 */
function realCatalogue(): CatalogEntry[] {
  const path = sharedData('catalogs/livemcpbench-all.json');
  if (path === undefined) return [];
  const tools = JSON.parse(readFileSync(path, 'utf8')) as { name: string; description?: string; inputSchema: JsonObject }[];
  return [
    ...tools.map((tool) => toCatalogEntry({ ...tool, name: tool.name.replace(/ /g, '-').replace('::', '__') })),
    ...sharedCatalogue('github', 'github'),
    ...sharedCatalogue('playwright', 'browser'),
    ...sharedCatalogue('linear', 'linear'),
  ];
}

describe.skipIf(SHARED_ABSENT)('a server key word specific to one server names it (real catalogues)', () => {
  if (SHARED_ABSENT) it.skip(SKIP_MESSAGE, () => {});
  const entries = realCatalogue();
  const words = serverKeyWords(entries);
  const guard = buildFloodGuard(entries);

  it('product names in a key name their server, whatever the query calls them', () => {
    expect(serversNamedByKeyWords('Help me write a quick start tutorial for Ant Design in markdown', words)).toEqual(new Set(['Ant-Design-Components']));
    expect(serversNamedByKeyWords("I'm using shadcn/ui to build a 'create post' page", words)).toEqual(new Set(['shadcn-ui-server']));
    expect(serversNamedByKeyWords('latest airbnb listings in Paris', words)).toEqual(new Set(['airbnb']));
    expect(words.get('kosdaq')).toBe('kospi-kosdaq');
  });

  it('generic words, stop words and words other servers use name nothing', () => {
    for (const word of ['mcp', 'server', 'file', 'data', 'search', 'time', 'text', 'image', 'word', 'document', 'trending', 'github', 'the']) expect(words.has(word)).toBe(false);
    expect(serversNamedByKeyWords('search the web for the latest news and save a text file', words)).toEqual(new Set());
    expect(serversNamedByKeyWords('what time is it in Tokyo', words)).toEqual(new Set());
  });

  it('the cap is lifted for the named server only', () => {
    expect(namedServers('a quick start for Ant Design', guard)).toEqual(new Set(['Ant-Design-Components']));
    const ant = entries.filter((e) => e.server === 'Ant-Design-Components');
    const ranked = [...ant, ...entries.filter((e) => e.server !== 'Ant-Design-Components')].map((e) => ({ name: e.qualifiedName }));
    const served = diversify(ranked, 'a quick start for Ant Design', guard, 5).map((hit) => hit.name);
    expect(served.filter((name) => name.startsWith('Ant-Design-Components__')).length).toBeGreaterThan(2);
    expect(diversify(ranked, 'a quick start for a component library', guard, 5).filter((hit) => hit.name.startsWith('Ant-Design-Components__'))).toHaveLength(2);
  });
});

describe('key words and floods', () => {
  it('a flood server cannot lift its cap with everyday words in its key: they are generic or used by the other servers', () => {
    const flood = (floodTools() as { name: string; description: string }[]).map((tool) => entry('read-files-helper', tool.name, tool.description));
    const entries = [...bundledCatalogue(['files', 'memory', 'everything']), ...flood];
    const guard = buildFloodGuard(entries);
    for (const query of ['read a file', 'read all of it out loud', 'list a folder', 'search for a file', 'remember a fact']) expect(namedServers(query, guard)).toEqual(new Set());
    expect(namedServers('helper, read it', guard)).toEqual(new Set(['read-files-helper']));
  });

  it('the bundled servers are named by no everyday request beyond their whole key', () => {
    const entries = bundledCatalogue();
    const words = serverKeyWords(entries);
    const requests = JSON.parse(readFileSync(new URL('../../bench/fixtures/everyday.json', import.meta.url), 'utf8')) as { query: string }[];
    for (const { query } of requests) expect([...serversNamedByKeyWords(query, words)].filter((server) => !query.toLowerCase().split(/\W+/).includes(server.toLowerCase()))).toEqual([]);
  });

  it('a key word two servers share names neither', () => {
    const entries = [entry('maps-google', 'geocode', 'Geocode an address.'), entry('maps-osm', 'route', 'Route between places.'), entry('weather', 'forecast', 'Forecast.')];
    const words = serverKeyWords(entries);
    expect(words.has('maps')).toBe(false);
    expect(words.get('google')).toBe('maps-google');
    expect(serversNamedByKeyWords('find it on Google Maps', words)).toEqual(new Set(['maps-google']));
  });
});
