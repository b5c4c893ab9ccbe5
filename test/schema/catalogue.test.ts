import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { jsonBytes, textBytes } from '../../src/schema/measure.js';
import { prepareSchema } from '../../src/schema/prepare.js';
import { projectTool } from '../../src/schema/project.js';
import { topLevelSurface } from '../../src/schema/surface.js';
import { compiles } from './helpers.js';

const catalogDir = fileURLToPath(new URL('../../../shared/data/catalogs/', import.meta.url));
const present = existsSync(catalogDir);
const files = present ? readdirSync(catalogDir).filter((f) => f.endsWith('.json')).sort() : [];
const thirdParty = { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 };
const verbatim = { resolveRefs: false, stripKeywords: false, strict: false };
const options = { prepare: verbatim, compaction: thirdParty };

function load(file: string): UpstreamTool[] {
  return JSON.parse(readFileSync(join(catalogDir, file), 'utf8')) as UpstreamTool[];
}

const title = present
  ? 'every tool of every shared catalogue, third-party budget'
  : `SKIPPED: shared catalogues not found at ${catalogDir} (catalogue-wide wire invariants not checked)`;

describe.skipIf(!present)(title, () => {
  it('finds catalogue files to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`${file}: projection fits, keeps the surface, compiles, is idempotent`, () => {
      const rungs: Record<string, string[]> = {};
      const uncompilable: string[] = [];
      for (const tool of load(file)) {
        const projected = projectTool(tool, options);
        const surfaceBytes = jsonBytes(topLevelSurface(tool.inputSchema));
        if (surfaceBytes <= thirdParty.maxSchemaBytes) {
          expect(projected.withinBudget, tool.name).toBe(true);
          expect(jsonBytes(projected.inputSchema), tool.name).toBeLessThanOrEqual(thirdParty.maxSchemaBytes);
        }
        expect(textBytes(projected.description), tool.name).toBeLessThanOrEqual(thirdParty.maxDescriptionBytes);
        if (typeof tool.description === 'string' && tool.description.trim() !== '' && textBytes(tool.description) <= thirdParty.maxDescriptionBytes) {
          expect(projected.description, tool.name).toBe(tool.description);
        }
        expect(topLevelSurface(projected.inputSchema), tool.name).toEqual(topLevelSurface(tool.inputSchema));
        if (compiles(tool.inputSchema)) expect(compiles(projected.inputSchema), tool.name).toBe(true);
        else uncompilable.push(tool.name);
        if (projected.rung === 0) expect(projected.inputSchema, tool.name).toBe(tool.inputSchema);
        const again = projectTool({ ...tool, description: projected.description, inputSchema: projected.inputSchema }, options);
        expect(JSON.stringify(again.inputSchema), tool.name).toBe(JSON.stringify(projected.inputSchema));
        expect(again.description, tool.name).toBe(projected.description);
        expect(JSON.stringify(projectTool(tool, options)), tool.name).toBe(JSON.stringify(projected));
        if (projected.rung > 0) (rungs[projected.rung] ??= []).push(`${tool.name} ${projected.canonicalBytes}→${projected.projectedBytes}`);
      }
      console.info(`${file}: rungs used`, JSON.stringify(rungs), 'canonical not compilable:', uncompilable);
    });
  }

  for (const file of files) {
    it(`${file}: with every preparation on, still fits, compiles and is idempotent`, () => {
      const prepare = { resolveRefs: true, stripKeywords: true, strict: true };
      for (const tool of load(file)) {
        const projected = projectTool(tool, { prepare, compaction: thirdParty });
        const prepared = prepareSchema(tool.inputSchema, prepare);
        expect(topLevelSurface(projected.inputSchema), tool.name).toEqual(topLevelSurface(prepared));
        if (jsonBytes(topLevelSurface(prepared)) <= thirdParty.maxSchemaBytes) {
          expect(projected.projectedBytes, tool.name).toBeLessThanOrEqual(thirdParty.maxSchemaBytes);
        }
        if (compiles(tool.inputSchema)) expect(compiles(projected.inputSchema), tool.name).toBe(true);
        const again = projectTool({ ...tool, description: projected.description, inputSchema: projected.inputSchema }, { prepare, compaction: thirdParty });
        expect(again.inputSchema, tool.name).toEqual(projected.inputSchema);
      }
    });
  }
});
