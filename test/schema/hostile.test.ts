/**
 * Hostile-upstream sizes: schemas an upstream may send to stall the gateway's event loop. Each case is
 * the input that once took seconds (re-measuring the whole schema after every property cut; pairwise
 * definition reachability; ajv's pairwise `uniqueItems` over an `enum` in the draft-07 meta-schema), with
 * its result checked and its time compared with a baseline measured in the same run (a JSON round trip
 * of 1 MB), never a wall-clock bound: under load both slow alike (1.0–3.0 s > 1 s
 * failed on a loaded 2-core machine).
 * Source: docs/tools.md; hostile-upstream findings (reduceToSurface 45 s at 1 MB, `$defs` ring 2.9 s, 62,000-value enum 29 s;
 * found while fixing those: 1,000 nested resources 70 s, 10,000 anchor references 143 s).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/catalog/types.js';
import { Admission } from '../../src/schema/admit.js';
import { compactSchema } from '../../src/schema/compact.js';
import { jsonBytes } from '../../src/schema/measure.js';
import { prepareSchema } from '../../src/schema/prepare.js';
import { projectTool } from '../../src/schema/project.js';
import { pruneDefinitions } from '../../src/schema/refs.js';
import { topLevelSurface } from '../../src/schema/surface.js';
import { anchorRefs, bigEnum, defsRing, describedProperties, nestedResources, timedAgainstBaseline } from './fixtures.js';

/**
 * Most time a case may take, in calibration units (a JSON round trip of 1 MB, measured just before
 * it): 5× the slowest case measured after the fix (81 units, three runs on a loaded 2-core machine,
 * 2026-12-01). Before the fix the ring cost about 580 units, the others 1,000 to 30,000.
 */
const BOUND_UNITS = 400;
const verbatim = { resolveRefs: false, stripKeywords: false, strict: false };
const everything = { resolveRefs: true, stripKeywords: true, strict: true };
const thirdParty = { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 };

describe('compaction of hostile schemas stays near-linear', () => {
  it('2,800 described properties (~1 MB) fall back to the surface at once', () => {
    const schema = describedProperties(2800, 300);
    expect(jsonBytes(schema)).toBeGreaterThan(1_000_000);
    const { result, units } = timedAgainstBaseline(() => projectTool({ name: 'wide', inputSchema: schema }, { prepare: verbatim, compaction: thirdParty }));
    expect(result).toMatchObject({ rung: 6, withinBudget: false });
    expect(result.inputSchema).toEqual(topLevelSurface(schema));
    expect(result.projectedBytes).toBe(jsonBytes(result.inputSchema));
    expect(units).toBeLessThan(BOUND_UNITS);
  });

  it('2,800 described properties with enums, budget between surface and whole: cut largest first, just enough', () => {
    const schema = describedProperties(2800, 300);
    const properties = schema.properties as Record<string, JsonObject>;
    for (const [i, property] of Object.values(properties).entries()) property.enum = Array.from({ length: 20 }, (_, k) => `choice_${i}_${k}`);
    const maxSchemaBytes = 500_000;
    const { result, units } = timedAgainstBaseline(() => compactSchema(schema, maxSchemaBytes));
    expect(result.rung).toBe(6);
    expect(result.bytes).toBe(jsonBytes(result.schema));
    expect(result.bytes).toBeLessThanOrEqual(maxSchemaBytes);
    // Every enum is cut before any description; then descriptions go one by one, no more than needed.
    const kept = Object.values(result.schema.properties as Record<string, JsonObject>);
    expect(kept.filter((p) => 'enum' in p)).toEqual([]);
    expect(kept.filter((p) => 'description' in p).length).toBeGreaterThan(1000);
    expect(result.bytes).toBeGreaterThan(maxSchemaBytes - 400);
    expect(topLevelSurface(result.schema)).toEqual(topLevelSurface(schema));
    expect(units).toBeLessThan(BOUND_UNITS);
  });

  it('a ring of 2,500 $defs (~1 MB) projects with and without preparation', () => {
    const schema = defsRing(2500);
    expect(jsonBytes(schema)).toBeGreaterThan(900_000);
    for (const prepare of [verbatim, everything]) {
      const { result, units } = timedAgainstBaseline(() => projectTool({ name: 'ring', inputSchema: schema }, { prepare, compaction: thirdParty }));
      expect(result.withinBudget).toBe(true);
      expect(topLevelSurface(result.inputSchema)).toEqual(topLevelSurface(prepareSchema(schema, prepare)));
      expect(units).toBeLessThan(BOUND_UNITS);
    }
  });

  it('1,000 nested $id resources with anchors (~170 KB) project with and without preparation', () => {
    const schema = nestedResources(1000);
    for (const prepare of [verbatim, everything]) {
      const { result, units } = timedAgainstBaseline(() => projectTool({ name: 'nested', inputSchema: schema }, { prepare, compaction: thirdParty }));
      expect(result.withinBudget).toBe(true);
      expect(topLevelSurface(result.inputSchema)).toEqual(topLevelSurface(prepareSchema(schema, prepare)));
      expect(units).toBeLessThan(BOUND_UNITS);
    }
  });

  it('10,000 references by $anchor into 2,000 definitions (~570 KB) project at once', () => {
    const schema = anchorRefs(10_000, 2000);
    const { result, units } = timedAgainstBaseline(() => projectTool({ name: 'anchors', inputSchema: schema }, { prepare: verbatim, compaction: thirdParty }));
    expect(result.inputSchema).toEqual(topLevelSurface(schema));
    expect(units).toBeLessThan(BOUND_UNITS);
  });

  it('rung 1 keeps a ring of 2,500 $defs reached from the root and drops a ring nothing reaches', () => {
    const reached = defsRing(2500);
    const orphans = defsRing(2500).$defs as Record<string, unknown>;
    const $defs = { ...(reached.$defs as object), ...Object.fromEntries(Object.entries(orphans).map(([name]) => [`orphan_${name}`, { $ref: `#/$defs/orphan_${name}` }])) };
    const schema = { ...reached, $defs };
    const { units } = timedAgainstBaseline(() => pruneDefinitions(schema));
    expect(Object.keys(schema.$defs)).toEqual(Object.keys(reached.$defs as object));
    expect(units).toBeLessThan(BOUND_UNITS);
  });
});

describe('admission of hostile schemas compiles quickly', () => {
  it('a 62,000-value enum compiles and checks in well under a second', () => {
    const schema = bigEnum(62_000);
    const admission = new Admission();
    const { result, units } = timedAgainstBaseline(() => admission.check('shop__buy', schema, { code: 'product_61999' }));
    expect(result).toEqual({ ok: true, validated: true });
    expect(units).toBeLessThan(BOUND_UNITS);
    expect(admission.check('shop__buy', schema, { code: 'product_62000' })).toMatchObject({
      ok: false,
      violations: [{ path: '/code', message: expect.stringMatching(/^must be one of "product_0", .*\(61988 more\)$/) }],
    });
  });
});
