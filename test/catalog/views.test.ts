/**
 * Views (docs/views.md): which tools a view keeps and with what exposure, over a catalogue the config's
 * rules built; the shelf a view sees (its own search and manifest); patterns that match nothing; and the
 * config checks by JSON path. Pure, on the real github and playwright catalogues where they are present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalog/build.js';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { unmatchedViewPatterns, viewCatalogue, viewExposure, viewNames } from '../../src/catalog/views.js';
import { parseConfig } from '../../src/config/load.js';
import { projectTool } from '../../src/schema/project.js';
import { buildShelf, buildViewShelf } from '../../src/shelf/build.js';
import { mcpRoute } from '../../src/gateway/fronts/http.js';
import { unknownViewText } from '../../src/gateway/fronts/views.js';

const catalogs = new URL('../../../shared/data/catalogs/', import.meta.url);
const hasShared = existsSync(catalogs);
const load = (file: string): UpstreamTool[] => JSON.parse(readFileSync(new URL(file, catalogs), 'utf8')) as UpstreamTool[];
const tool = (name: string, description = `Does ${name}.`): UpstreamTool => ({ name, description, inputSchema: { type: 'object', properties: {} } });
const project = (t: UpstreamTool) => projectTool(t, { prepare: { resolveRefs: false, stripKeywords: false, strict: false }, compaction: false });

function configOf(json: unknown) {
  const r = parseConfig(JSON.stringify(json), {}, '/');
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}
function problemsOf(json: unknown) {
  const r = parseConfig(JSON.stringify(json), {}, '/');
  return r.ok ? [] : r.error;
}

const small = () => {
  const config = configOf({
    mcpServers: {
      files: { command: 'x', tools: { read_text_file: { exposure: 'direct' }, secret_dump: { exposure: 'hidden' } } },
      git: { command: 'y' },
      bare: { command: 'z', prefix: false },
      web: { command: 'w' },
    },
  });
  const tools = new Map([
    ['files', [tool('read_text_file'), tool('write_file'), tool('delete_file'), tool('secret_dump')]],
    ['git', [tool('git_status'), tool('git_delete_branch')]],
    ['bare', [tool('echo')]],
    ['web', [tool('fetch')]],
  ]);
  return { config, catalogue: buildCatalogue(config, tools, project) };
};

describe('view rules', () => {
  it('matches patterns against SERVER__TOOL and the qualified name (a prefix: false server too)', () => {
    const { catalogue } = small();
    expect(viewNames(catalogue.get('files__write_file')!, '__')).toEqual(['files__write_file']);
    expect(viewNames(catalogue.get('echo')!, '__')).toEqual(['bare__echo', 'echo']);
  });

  it('keeps its servers, then include, then exclude; exposure overrides win by specificity', () => {
    const { catalogue } = small();
    const view = { servers: ['files', 'git', 'bare'], include: ['files__*', 'git__*', 'echo'], exclude: ['*__delete_*', '*_delete_*'], exposure: { 'files__*': 'direct' as const, files__write_file: 'deferred' as const } };
    const seen = viewCatalogue(catalogue, view, '__');
    expect(seen.entries.map((e) => [e.qualifiedName, e.exposure])).toEqual([
      ['echo', 'deferred'],
      ['files__read_text_file', 'direct'],
      ['files__write_file', 'deferred'],
      ['git__git_status', 'deferred'],
    ]);
    // Outside the view: unknown by name, as a hidden tool is.
    expect(seen.get('web__fetch')).toBeUndefined();
    expect(seen.get('files__delete_file')).toBeUndefined();
    expect(seen.get('files__write_file')?.qualifiedName).toBe(catalogue.get('files__write_file')?.qualifiedName);
    expect(seen.direct.map((e) => e.qualifiedName)).toEqual(['files__read_text_file']);
    // Counts cover the view's servers only; what the view leaves out counts as hidden.
    expect([...seen.counts.keys()].sort()).toEqual(['bare', 'files', 'git']);
    expect(seen.counts.get('files')).toEqual({ direct: 1, deferred: 1, hidden: 2 });
    expect(seen.counts.get('git')).toEqual({ direct: 0, deferred: 1, hidden: 1 });
  });

  it('never shows a tool the config hides, and an empty view holds nothing', () => {
    const { catalogue } = small();
    expect(viewCatalogue(catalogue, { include: ['*'], exposure: { files__secret_dump: 'direct' } }, '__').get('files__secret_dump')).toBeUndefined();
    expect(viewCatalogue(catalogue, { servers: [] }, '__').entries).toEqual([]);
    expect(viewCatalogue(catalogue, {}, '__').entries.map((e) => e.qualifiedName)).toEqual(catalogue.entries.map((e) => e.qualifiedName));
  });

  it('an exact exposure rule beats any glob; between globs the longest wins', () => {
    const { catalogue } = small();
    const entry = catalogue.get('files__write_file')!;
    expect(viewExposure(entry, { exposure: { '*': 'direct', 'files__*': 'hidden' } }, '__')).toBe('hidden');
    expect(viewExposure(entry, { exposure: { 'files__*': 'hidden', files__write_file: 'direct' } }, '__')).toBe('direct');
    expect(viewExposure(entry, {}, '__')).toBe('deferred');
  });

  it('names the patterns that match no tool', () => {
    const { catalogue } = small();
    expect(unmatchedViewPatterns(catalogue, { include: ['files__*', 'fiels__*'], exclude: ['*__nope'], exposure: { 'git__*': 'direct', git__stauts: 'direct' } }, '__')).toEqual([
      { field: 'include', pattern: 'fiels__*' },
      { field: 'exclude', pattern: '*__nope' },
      { field: 'exposure', pattern: 'git__stauts' },
    ]);
  });
});

describe.skipIf(!hasShared)('view shelves on the real catalogues', () => {
  const config = configOf({
    mcpServers: { github: { command: 'x', tools: { 'get_*': { exposure: 'direct' } } }, playwright: { command: 'y' } },
    views: { browse: { servers: ['playwright'], exposure: { playwright__browser_navigate: 'direct' } }, readonly: { include: ['github__get_*', 'github__list_*', 'github__search_*'] } },
  });
  const tools = new Map([
    ['github', load('github.json')],
    ['playwright', load('playwright.json')],
  ]);
  const base = buildShelf(config, tools, undefined);

  it('searches and describes only the view\'s tools', async () => {
    const browse = buildViewShelf(config, 'browse', base, undefined);
    expect(browse.catalogue.entries.every((e) => e.server === 'playwright')).toBe(true);
    expect(browse.catalogue.direct.map((e) => e.qualifiedName)).toEqual(['playwright__browser_navigate']);
    const found = await browse.search('create a pull request', 5);
    expect(found.matched.every((n) => n.startsWith('playwright__'))).toBe(true);
    expect(browse.searchDescription(undefined)).not.toContain('github__');
    expect((await base.search('create a pull request', 5)).matched[0]).toMatch(/^github__/);
  });

  it('a read-only view of github lists no tool that writes', () => {
    const readonly = buildViewShelf(config, 'readonly', base, undefined);
    const names = readonly.catalogue.entries.map((e) => e.upstreamName);
    expect(names.length).toBeGreaterThan(10);
    expect(names.every((n) => /^(get|list|search)_/.test(n))).toBe(true);
    expect(readonly.searchDescription(undefined)).not.toMatch(/create_pull_request|delete_/);
  });

  it('a view the config does not have sees an empty shelf', () => {
    expect(buildViewShelf(config, undefined, base, undefined).catalogue.entries).toEqual([]);
  });
});

describe('view config', () => {
  const servers = { files: { command: 'x' }, git: { command: 'y' } };

  it('is accepted in full and defaults to no views', () => {
    expect(configOf({ mcpServers: servers }).views).toEqual({});
    const view = { servers: ['files'], include: ['files__*'], exclude: ['*__delete_*'], exposure: { files__read_text_file: 'direct' } };
    expect(configOf({ mcpServers: servers, views: { coding: view } }).views).toEqual({ coding: view });
  });

  it('lists every problem by JSON path, with the name meant', () => {
    expect(
      problemsOf({
        mcpServers: servers,
        views: {
          coding: { servers: ['files', 'gitt'], exlude: ['x'], exposure: { 'files__*': 'defered' } },
          'bad name': {},
          ok: { include: 'files__*' },
        },
      }),
    ).toEqual([
      { path: '/views/bad name', message: expect.stringMatching(/^is not a usable view name/) },
      { path: '/views/coding/exlude', message: 'is not a known key; did you mean "exclude"?' },
      { path: '/views/coding/exposure/files__*', message: 'must be one of "direct", "deferred", "hidden"; did you mean "deferred"?' },
      { path: '/views/coding/servers/1', message: 'names no server of mcpServers; did you mean "git"?' },
      { path: '/views/ok/include', message: 'must be array' },
    ]);
  });
});

describe('view names on the wire', () => {
  it('routes /mcp and /mcp/NAME, nothing else', () => {
    expect(mcpRoute('/mcp')).toEqual({ view: undefined });
    expect(mcpRoute('/mcp/coding')).toEqual({ view: 'coding' });
    expect(mcpRoute('/mcp/a%20b')).toEqual({ view: 'a b' });
    expect(mcpRoute('/mcp/')).toBeUndefined();
    expect(mcpRoute('/mcp/a/b')).toBeUndefined();
    expect(mcpRoute('/mcp/%E0%A4%A')).toBeUndefined();
    expect(mcpRoute('/mcpx')).toBeUndefined();
  });

  it('tells an unknown view with the closest name and the views there are', () => {
    expect(unknownViewText('codng', ['coding', 'chat'])).toBe('no view "codng" in the config; did you mean "coding"? (its views: chat, coding)');
    expect(unknownViewText('x\u001b[31m', [])).toBe('no view "x" in the config (it defines no views)');
  });
});
