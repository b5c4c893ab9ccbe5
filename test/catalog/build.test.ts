import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, servedCounts } from '../../src/catalog/build.js';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { projectTool } from '../../src/schema/project.js';
import { advertisedTools } from '../../src/gateway/toolList.js';
import { parseConfig } from '../../src/config/load.js';

const catalogs = new URL('../../../shared/data/catalogs/', import.meta.url);
const hasShared = existsSync(catalogs);
const load = (file: string): UpstreamTool[] => JSON.parse(readFileSync(new URL(file, catalogs), 'utf8')) as UpstreamTool[];

function configOf(json: unknown) {
  const r = parseConfig(JSON.stringify(json), {}, '/');
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}
const project = (tool: UpstreamTool) => projectTool(tool, { prepare: { resolveRefs: false, stripKeywords: false, strict: false }, compaction: { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 } });

describe.skipIf(!hasShared)('catalogue and tools/list order on real catalogues', () => {
  it('github + playwright: hidden tools vanish, direct sorted, then bridge tools, then promoted in order', () => {
    const config = configOf({
      mcpServers: {
        github: { command: 'x', tools: { 'get_*': { exposure: 'direct' }, 'delete_*': { exposure: 'hidden' } } },
        playwright: { command: 'y', exposure: 'deferred', tools: { browser_navigate: { exposure: 'direct' } } },
      },
    });
    const tools = new Map([
      ['github', load('github.json')],
      ['playwright', load('playwright.json')],
    ]);
    const catalogue = buildCatalogue(config, tools, project);
    const counts = catalogue.counts.get('github');
    expect(counts && counts.direct + counts.deferred + counts.hidden).toBe(load('github.json').length);
    expect(catalogue.entries.some((e) => e.upstreamName.startsWith('delete_'))).toBe(false);
    expect(catalogue.get('github__delete_file')).toBeUndefined();
    const promoted = [catalogue.deferred[5]?.qualifiedName, catalogue.deferred[0]?.qualifiedName] as string[];
    const list = advertisedTools(catalogue, promoted, { searchDescription: 'index', maxLimit: 20, callTool: true }).map((t) => t.name);
    const direct = catalogue.direct.map((e) => e.qualifiedName);
    expect(direct).toEqual([...direct].sort());
    expect(list).toEqual([...direct, 'tool_search', 'call_tool', ...promoted]);
    expect(list.every((n) => /^[A-Za-z0-9_-]{1,48}$/.test(n))).toBe(true);
  });

  it('livemcpbench (527 tools, 70 servers as one upstream): every name unique, ≤ 48 characters, and stable', () => {
    const config = configOf({ mcpServers: { live: { command: 'x' } } });
    const tools = new Map([['live', load('livemcpbench-all.json')]]);
    const a = buildCatalogue(config, tools, project).entries.map((e) => e.qualifiedName);
    const b = buildCatalogue(config, new Map([['live', [...load('livemcpbench-all.json')].reverse()]]), project).entries.map((e) => e.qualifiedName);
    expect(new Set(a).size).toBe(a.length);
    expect(a.every((n) => n.length <= 48 && /^[A-Za-z0-9_-]+$/.test(n))).toBe(true);
    expect(b).toEqual(a);
  });

  it('with nothing deferred there is no tool_search or call_tool', () => {
    const config = configOf({ mcpServers: { pw: { command: 'x', exposure: 'direct' } } });
    const catalogue = buildCatalogue(config, new Map([['pw', load('playwright.json')]]), project);
    const list = advertisedTools(catalogue, [], { searchDescription: 'x', maxLimit: 20, callTool: true });
    expect(list.map((t) => t.name)).not.toContain('tool_search');
    expect(list).toHaveLength(load('playwright.json').length);
  });
});

describe('counts', () => {
  it('count served tools only: a held one is in neither direct nor deferred, and servedCounts reads the same', () => {
    const config = configOf({ mcpServers: { s: { command: 'x', tools: { a: { exposure: 'direct' }, h: { exposure: 'hidden' } } } } });
    const object = { type: 'object', properties: {} };
    const tools: UpstreamTool[] = ['a', 'b', 'c', 'h', 'q'].map((name) => ({ name, description: `Tool ${name}.`, inputSchema: object }));
    const catalogue = buildCatalogue(config, new Map([['s', tools]]), project, undefined, (_server, tool) => (tool === 'q' ? 'flagged' : undefined));
    expect(catalogue.held.map((h) => h.upstreamName)).toEqual(['q']);
    expect(catalogue.counts.get('s')).toEqual({ direct: 1, deferred: 2, hidden: 1 });
    expect(servedCounts(catalogue, 's')).toEqual({ direct: 1, deferred: 2, hidden: 1 });
    expect(servedCounts(catalogue, 'absent')).toEqual({ direct: 0, deferred: 0, hidden: 0 });
  });
});
