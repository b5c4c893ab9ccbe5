import { describe, expect, it } from 'vitest';
import type { JsonObject, UpstreamTool } from '../../src/catalog/types.js';
import { jsonBytes, textBytes } from '../../src/schema/measure.js';
import { prepareSchema } from '../../src/schema/prepare.js';
import { MAX_TITLE_BYTES } from '../../src/schema/compact.js';
import { projectTool } from '../../src/schema/project.js';
import { wireInputSchema } from '../../src/schema/wire.js';
import { topLevelSurface } from '../../src/schema/surface.js';
import { deepSchema, fixture, text, wideAnyOf } from './fixtures.js';
import { compiles } from './helpers.js';

const verbatim = { resolveRefs: false, stripKeywords: false, strict: false };
const thirdParty = { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 };
const options = { prepare: verbatim, compaction: thirdParty };

describe('projectTool', () => {
  it('sends a schema within budget with no preparation byte for byte: the same object', () => {
    const tool = { name: 'create', description: 'Create.', inputSchema: fixture('draft07-definitions') };
    const projected = projectTool(tool, options);
    expect(projected.inputSchema).toBe(tool.inputSchema);
    expect(projected).toMatchObject({ description: 'Create.', rung: 0, withinBudget: true });
    expect(projected.projectedBytes).toBe(projected.canonicalBytes);
  });

  it('clips a 200 KB tool title and annotations title to MAX_TITLE_BYTES; short titles go out as they are', () => {
    const huge = 'T'.repeat(200_000);
    const tool = { name: 'hugetitle', title: huge, annotations: { title: huge, readOnlyHint: true }, inputSchema: { type: 'object' } };
    const { fields } = projectTool(tool, options);
    expect(textBytes(fields.title as string)).toBeLessThanOrEqual(MAX_TITLE_BYTES);
    expect(fields.annotations).toEqual({ title: fields.title, readOnlyHint: true });
    const short = { name: 'x', title: 'Read a file', annotations: { title: 'Read a file' }, inputSchema: { type: 'object' } };
    expect(projectTool(short, options).fields).toEqual({ title: 'Read a file', annotations: { title: 'Read a file' } });
    // Compaction off sends every field as it is.
    expect(projectTool(tool, { ...options, compaction: false }).fields.title).toBe(huge);
  });

  it('applies requested preparation even within budget', () => {
    const tool = { name: 'create', inputSchema: fixture('draft07-definitions') };
    const projected = projectTool(tool, { prepare: { ...verbatim, stripKeywords: true }, compaction: thirdParty });
    expect(projected.inputSchema).not.toBe(tool.inputSchema);
    expect(projected.inputSchema.$schema).toBeUndefined();
    expect(projected.projectedBytes).toBe(jsonBytes(projected.inputSchema));
    expect(projected.projectedBytes).toBeLessThan(projected.canonicalBytes);
  });

  it('synthesises a missing description and clips a long one to the budget', () => {
    expect(projectTool({ name: 'read_text_file', inputSchema: { type: 'object' } }, options).description).toBe('Read text file.');
    const long = projectTool({ name: 'x', description: text('説明', 20_000), inputSchema: { type: 'object' } }, options);
    expect(textBytes(long.description)).toBeLessThanOrEqual(1000);
    expect(long.description.endsWith('…')).toBe(true);
  });

  it('with compaction off, sends everything at any size', () => {
    const tool = { name: 'x', description: 'y'.repeat(5000), inputSchema: wideAnyOf(300) };
    const projected = projectTool(tool, { prepare: verbatim, compaction: false });
    expect(projected.inputSchema).toBe(tool.inputSchema);
    expect(projected.description).toBe(tool.description);
    expect(projected.withinBudget).toBe(true);
  });

  it('reports withinBudget false, and sends the bare surface, when the surface alone is over budget', () => {
    const properties = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`argument_number_${i}`, { type: 'string' }]));
    const projected = projectTool({ name: 'wide', inputSchema: { type: 'object', properties } }, options);
    expect(projected.withinBudget).toBe(false);
    expect(projected.rung).toBe(6);
    expect(projected.inputSchema).toEqual(topLevelSurface({ type: 'object', properties }));
  });

  it('compacts after preparing: strict mode survives compaction', () => {
    const tool = { name: 'deep', inputSchema: deepSchema(40) };
    const projected = projectTool(tool, { prepare: { ...verbatim, strict: true }, compaction: { maxDescriptionBytes: 100, maxSchemaBytes: 600 } });
    expect(projected.withinBudget).toBe(true);
    expect(projected.inputSchema.additionalProperties).toBe(false);
    expect(compiles(projected.inputSchema)).toBe(true);
  });
});

/** Adversarial schemas: each must project without throwing, keep its surface, fit when it can, compile, be idempotent. */
const adversarial: Record<string, unknown> = {
  'deep nesting (500 levels)': deepSchema(500),
  'recursive $ref tree': fixture('recursive-tree'),
  'recursive $ref with 20 KB descriptions': {
    ...fixture('recursive-tree'),
    description: text('d', 20_000),
    properties: { root: { $ref: '#/$defs/node', description: text('r', 20_000) }, label: { $ref: '#/$defs/label' } },
  },
  'self-reference to the root': { type: 'object', properties: { next: { $ref: '#' }, note: { type: 'string', description: text('n', 6000) } } },
  'wide anyOf (800 branches)': wideAnyOf(800),
  'wide oneOf of $refs into wide $defs': {
    type: 'object',
    properties: { shape: { oneOf: Array.from({ length: 300 }, (_, i) => ({ $ref: `#/definitions/s${i}` })) } },
    definitions: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`s${i}`, { type: 'object', properties: { [`f${i}`]: { type: 'string' } } }])),
  },
  '20 KB property descriptions': { type: 'object', properties: { a: { type: 'string', description: text('a', 20_000) }, b: { type: 'number' } }, required: ['a'] },
  'multi-byte descriptions (emoji, CJK)': {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`字段${i}`, { type: 'string', description: text('👨‍👩‍👧漢字', 300) }])),
  },
  'huge enum': { type: 'object', properties: { id: { type: 'string', enum: Array.from({ length: 2000 }, (_, i) => `id-${i}`) } }, required: ['id'] },
  'draft-04 exclusive bounds (pdf-reader-mcp::read_pdf)': fixture('draft04-bounds'),
  'properties is an array': { type: 'object', properties: Array.from({ length: 500 }, () => ({ type: 'string', description: 'x'.repeat(20) })) },
  'properties hold numbers and required is a string': { type: 'object', properties: { a: 5, b: null, c: true, d: 'x'.repeat(6000) }, required: 'a' },
  'type is a number, $ref is not a string': { type: 5, properties: { a: { $ref: 7, description: 'y'.repeat(6000) } } },
  'dangling, remote and malformed refs': {
    type: 'object',
    properties: {
      a: { $ref: '#/$defs/missing' },
      b: { $ref: 'https://example.com/schema.json#/x' },
      c: { $ref: '#/%E0%A4%A', description: 'z'.repeat(6000) },
    },
  },
  'keywords holding the wrong shapes': { type: 'object', anyOf: 'x', items: [null, 1], $defs: 5, definitions: [1], properties: { __proto__: { type: 'string' }, constructor: { type: 'number', description: 'q'.repeat(6000) } } },
  'schema is an array': Array.from({ length: 2000 }, (_, i) => i),
  'schema is a string': 's'.repeat(6000),
  'cyclic-looking $defs': { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a', description: 'w'.repeat(6000) } } },
};

describe('adversarial schemas (wire invariants)', () => {
  for (const [name, schema] of Object.entries(adversarial)) {
    it(name, () => {
      const tool: UpstreamTool = { name: 'adversarial_tool', description: text('說明😀', 20_000), inputSchema: schema as JsonObject };
      for (const prepare of [verbatim, { resolveRefs: true, stripKeywords: true, strict: false }]) {
        const projected = projectTool(tool, { prepare, compaction: thirdParty });
        expect(textBytes(projected.description)).toBeLessThanOrEqual(1000);
        // Preparation may change the surface (an inlined `$ref` reveals a `type`), and so may the wire form
        // (`type` becomes "object", a string `required` goes); compaction never does.
        const wire = wireInputSchema(schema as JsonObject);
        expect(wire.ok).toBe(true);
        expect(topLevelSurface(projected.inputSchema)).toEqual(topLevelSurface(prepareSchema(wire.ok ? wire.schema : {}, prepare)));
        if (jsonBytes(topLevelSurface(schema)) <= 5000) expect(projected.projectedBytes).toBeLessThanOrEqual(5000);
        expect(projected.projectedBytes).toBe(jsonBytes(projected.inputSchema));
        const canonicalCompiles = typeof schema === 'object' && schema !== null && !Array.isArray(schema) && compiles(schema as JsonObject);
        if (canonicalCompiles) expect(compiles(projected.inputSchema)).toBe(true);
        const again = projectTool({ ...tool, description: projected.description, inputSchema: projected.inputSchema }, { prepare, compaction: thirdParty });
        expect(again.inputSchema).toEqual(projected.inputSchema);
        expect(again.description).toBe(projected.description);
      }
    });
  }
});
