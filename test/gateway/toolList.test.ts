/**
 * The advertised list per discovery mode and its `_meta` hints, on real catalogues:
 * `anthropic/alwaysLoad` on direct, bridge and promoted tools; `anthropic/searchHint` from keywords;
 * `client` mode lists every deferred tool, sorted, without bridge tools; hidden tools never appear.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/server';
import { buildCatalogue } from '../../src/catalog/build.js';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { parseConfig } from '../../src/config/load.js';
import { projectTool } from '../../src/schema/project.js';
import { jsonBytes } from '../../src/schema/measure.js';
import { advertisedTools } from '../../src/gateway/toolList.js';
import { ALWAYS_LOAD, SEARCH_HINT, searchHint, withMeta } from '../../src/gateway/clientMeta.js';

const catalogs = new URL('../../../shared/data/catalogs/', import.meta.url);
const load = (file: string): UpstreamTool[] => JSON.parse(readFileSync(new URL(file, catalogs), 'utf8')) as UpstreamTool[];

function githubCatalogue(upstreamMeta?: Record<string, unknown>) {
  const result = parseConfig(
    JSON.stringify({
      mcpServers: {
        github: {
          command: 'x',
          tools: {
            get_me: { exposure: 'direct' },
            'delete_*': { exposure: 'hidden' },
            'create_*': { keywords: ['open', 'new', 'file a bug'] },
            create_issue: { keywords: ['ticket'] },
          },
        },
      },
    }),
    {},
    '/',
  );
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const config = result.value;
  const tools = load('github.json').map((tool) => (upstreamMeta && tool.name === 'create_issue' ? { ...tool, _meta: upstreamMeta } : tool));
  return buildCatalogue(config, new Map([['github', tools]]), (tool) => projectTool(tool, { prepare: config.schemas.prepare, compaction: config.schemas.compaction }));
}

const metaOf = (tools: Tool[], name: string) => tools.find((t) => t.name === name)?._meta;
const names = (tools: Tool[]) => tools.map((t) => t.name);
const base = { searchDescription: 'index', maxLimit: 20, callTool: true } as const;

describe('searchHint and withMeta', () => {
  it('joins keywords in the given (manifest) order; no keywords, no hint', () => {
    expect(searchHint(['new', 'open', 'ticket', 'file a bug'])).toBe('new, open, ticket, file a bug');
    expect(searchHint([])).toBeUndefined();
  });

  it('merges over a tool\'s own _meta, removes keys set to undefined, and drops an empty _meta', () => {
    const tool: Tool = { name: 't', inputSchema: { type: 'object' }, _meta: { 'vendor/x': 1, [ALWAYS_LOAD]: true } };
    expect(withMeta(tool, { [SEARCH_HINT]: 'a' })._meta).toEqual({ 'vendor/x': 1, [ALWAYS_LOAD]: true, [SEARCH_HINT]: 'a' });
    expect(withMeta(tool, { [ALWAYS_LOAD]: undefined })._meta).toEqual({ 'vendor/x': 1 });
    expect(withMeta({ name: 't', inputSchema: { type: 'object' } }, { [ALWAYS_LOAD]: undefined })).toEqual({ name: 't', inputSchema: { type: 'object' } });
  });
});

describe.skipIf(!existsSync(catalogs))('advertised list per discovery mode on github.json', () => {
  it('own: direct and bridge tools alwaysLoad; a promoted tool alwaysLoad with its keywords as searchHint', () => {
    const catalogue = githubCatalogue();
    const tools = advertisedTools(catalogue, ['github__create_issue', 'github__list_issues'], base);
    expect(names(tools)).toEqual(['github__get_me', 'tool_search', 'call_tool', 'github__create_issue', 'github__list_issues']);
    for (const name of ['github__get_me', 'tool_search', 'call_tool', 'github__list_issues']) expect(metaOf(tools, name)).toEqual({ [ALWAYS_LOAD]: true });
    expect(metaOf(tools, 'github__create_issue')).toEqual({ [ALWAYS_LOAD]: true, [SEARCH_HINT]: 'new, open, ticket, file a bug' });
  });

  it('own with alwaysLoad off: no _meta added at all', () => {
    const tools = advertisedTools(githubCatalogue(), ['github__list_issues'], { ...base, alwaysLoad: false });
    expect(tools.every((t) => t._meta === undefined)).toBe(true);
  });

  it('client: direct then every deferred tool sorted, no bridge tools, no hidden tools, promotions ignored', () => {
    const catalogue = githubCatalogue();
    const tools = advertisedTools(catalogue, ['github__list_issues'], { ...base, mode: 'client' });
    const deferred = catalogue.deferred.map((e) => e.qualifiedName);
    expect(deferred.length).toBeGreaterThan(90);
    expect(names(tools)).toEqual(['github__get_me', ...[...deferred].sort()]);
    expect(names(tools).some((n) => n.startsWith('github__delete_'))).toBe(false);
    expect(metaOf(tools, 'github__get_me')).toEqual({ [ALWAYS_LOAD]: true });
    expect(metaOf(tools, 'github__create_issue')).toEqual({ [SEARCH_HINT]: 'new, open, ticket, file a bug' });
    expect(metaOf(tools, 'github__create_branch')).toEqual({ [SEARCH_HINT]: 'new, open, file a bug' });
    expect(metaOf(tools, 'github__list_issues')).toBeUndefined();
    const entry = catalogue.get('github__list_issues');
    expect(tools.find((t) => t.name === 'github__list_issues')?.inputSchema).toBe(entry?.projected.inputSchema);
  });

  it('client: an upstream\'s own alwaysLoad on a deferred tool is dropped, its other _meta kept', () => {
    const tools = advertisedTools(githubCatalogue({ [ALWAYS_LOAD]: true, 'vendor/x': 'y' }), [], { ...base, mode: 'client' });
    expect(metaOf(tools, 'github__create_issue')).toEqual({ 'vendor/x': 'y', [SEARCH_HINT]: 'new, open, ticket, file a bug' });
  });

  it('client costs more bytes than own on the wire, and the same catalogue gives the same bytes', () => {
    const own = jsonBytes({ tools: advertisedTools(githubCatalogue(), [], base) });
    const client = jsonBytes({ tools: advertisedTools(githubCatalogue(), [], { ...base, mode: 'client' }) });
    expect(client).toBeGreaterThan(own * 5);
    expect(jsonBytes({ tools: advertisedTools(githubCatalogue(), [], { ...base, mode: 'client' }) })).toBe(client);
  });
});
