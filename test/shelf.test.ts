import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../src/catalog/build.js';
import type { UpstreamTool } from '../src/catalog/types.js';
import { parseConfig } from '../src/config/load.js';
import { projectTool } from '../src/schema/project.js';
import { buildShelf, manifestBudget, MANIFEST_FLOOR_TOKENS } from '../src/shelf.js';
import { jsonBytes } from '../src/schema/measure.js';
import { advertisedTools, wireTool } from '../src/gateway/advertise.js';

const catalogs = new URL('../../shared/data/catalogs/', import.meta.url);
const load = (file: string): UpstreamTool[] => JSON.parse(readFileSync(new URL(file, catalogs), 'utf8')) as UpstreamTool[];

function configOf(json: unknown) {
  const r = parseConfig(JSON.stringify(json), {}, '/');
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

describe.skipIf(!existsSync(catalogs))('manifest budget (DESIGN §6, §13)', () => {
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
