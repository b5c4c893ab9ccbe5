import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalog/build.js';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { parseConfig } from '../../src/config/load.js';
import { projectTool } from '../../src/schema/project.js';
import { buildShelf, manifestBudget, MANIFEST_FLOOR_TOKENS, ruleWarnings } from '../../src/shelf/build.js';
import { jsonBytes } from '../../src/schema/measure.js';
import { advertisedTools, wireTool } from '../../src/gateway/toolList.js';

const catalogs = new URL('../../../shared/data/catalogs/', import.meta.url);
const load = (file: string): UpstreamTool[] => JSON.parse(readFileSync(new URL(file, catalogs), 'utf8')) as UpstreamTool[];

function configOf(json: unknown) {
  const r = parseConfig(JSON.stringify(json), {}, '/');
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

describe.skipIf(!existsSync(catalogs))('manifest budget', () => {
  it('github (117 tools, all deferred): the first tools/list is at least 90% smaller than all-direct', () => {
    const config = configOf({ mcpServers: { github: { command: 'x' } } });
    const shelf = buildShelf(config, new Map([['github', load('github.json')]]), undefined);
    const first = advertisedTools(shelf.catalogue, [], { searchDescription: shelf.searchDescription(undefined), maxLimit: 20, callTool: true });
    const allDirect = shelf.catalogue.entries.map((e) => ({ ...wireTool(e), description: e.tool.description ?? '', inputSchema: e.tool.inputSchema }));
    expect(jsonBytes({ tools: first }) / jsonBytes({ tools: allDirect })).toBeLessThanOrEqual(0.1);
  });

  it('is the configured budget for big catalogues, a tenth of the replaced size otherwise, never below the floor', () => {
    const config = configOf({ mcpServers: { live: { command: 'x' }, pw: { command: 'y' } } });
    const project = (tool: UpstreamTool) => projectTool(tool, { prepare: config.schemas.prepare, compaction: config.schemas.compaction });
    const live = buildCatalogue(config, new Map([['live', load('livemcpbench-all.json')]]), project);
    expect(manifestBudget(4000, live.deferred)).toBe(4000);
    const github = buildCatalogue(config, new Map([['live', load('github.json')]]), project);
    expect(manifestBudget(4000, github.deferred)).toBeGreaterThan(2000);
    expect(manifestBudget(4000, github.deferred)).toBeLessThan(2600);
    const small = buildCatalogue(config, new Map([['pw', load('playwright.json').slice(0, 5)]]), project);
    expect(manifestBudget(4000, small.deferred)).toBe(MANIFEST_FLOOR_TOKENS);
    expect(manifestBudget(500, small.deferred)).toBe(500);
  });
});

describe('tools rules that match nothing', () => {
  const bundled = JSON.parse(readFileSync(new URL('../fixtures/catalogs/bundled.json', import.meta.url), 'utf8')) as Record<string, UpstreamTool[]>;

  it('warns, with close names, about a rule naming no tool of its listed server; a server not listed yet is not judged', () => {
    const config = configOf({
      mcpServers: {
        files: { command: 'x', tools: { 'no-such-tool': { exposure: 'direct' }, read_fle: { exposure: 'hidden' }, read_text_file: { exposure: 'direct' } } },
        later: { command: 'y', tools: { anything: { exposure: 'hidden' } } },
      },
    });
    const lines = ruleWarnings(config, new Map([['files', bundled.files!]]));
    expect(lines).toEqual([
      'upstream "files": the tools rule "no-such-tool" matches none of its 14 tools, so it does nothing',
      'upstream "files": the tools rule "read_fle" matches none of its 14 tools, so it does nothing; did you mean "read_file"?',
    ]);
    expect(buildShelf(config, new Map([['files', bundled.files!]]), undefined).ruleWarnings).toEqual(lines);
  });
});
