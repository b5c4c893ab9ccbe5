import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ListToolsResultSchema, ToolSchema as NeutralToolSchema } from '@modelcontextprotocol/core';
// The JSON Schema validator the v2 Client uses by default under Node (its own `_shims` entry point).
import { DefaultJsonSchemaValidator } from '@modelcontextprotocol/client/_shims';
import { buildCatalogue } from '../../src/catalog/build.js';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { parseConfig } from '../../src/config/load.js';
import { projectTool, UnservableToolError, type ProjectionOptions } from '../../src/schema/project.js';
import { acceptsObject, wireFields, wireInputSchema, wireOutputSchema } from '../../src/schema/wire.js';
import { parseToolsPage } from '../../src/upstream/listTools.js';

const catalogDir = fileURLToPath(new URL('../../../shared/data/catalogs/', import.meta.url));
const present = existsSync(catalogDir);
const files = present ? readdirSync(catalogDir).filter((f) => f.endsWith('.json')).sort() : [];
const hostileRaw = JSON.parse(readFileSync(new URL('../fixtures/schemas/hostile-tools.json', import.meta.url), 'utf8')) as Record<string, unknown>[];

function configFor(servers: Record<string, unknown>) {
  const parsed = parseConfig(JSON.stringify({ mcpServers: Object.fromEntries(Object.keys(servers).map((k) => [k, { command: 'x' }])) }), {}, '/');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

const verbatim = { resolveRefs: false, stripKeywords: false, strict: false };
/** The default budget, a tight one that drives compaction up the ladder, and every preparation on. */
const OPTION_SETS: readonly (readonly [string, ProjectionOptions])[] = [
  ['third-party', { prepare: verbatim, compaction: { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 } }],
  ['tight', { prepare: verbatim, compaction: { maxDescriptionBytes: 80, maxSchemaBytes: 300 } }],
  ['prepared', { prepare: { resolveRefs: true, stripKeywords: true, strict: true }, compaction: { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 } }],
  ['uncompacted', { prepare: verbatim, compaction: false }],
];

/** The Tool a client receives for `tool` (what gateway/toolList.ts `wireTool` sends). */
function wire(tool: UpstreamTool, options: ProjectionOptions): Record<string, unknown> {
  const projected = projectTool(tool, options);
  return { name: tool.name, description: projected.description, inputSchema: projected.inputSchema, ...projected.fields };
}

/**
 * MCP 2025-11-25's `Tool` (what legacy clients, SDK v1 among them, check): the SDK's era-neutral
 * ToolSchema, narrowed to the legacy wire's rules that it loosens: `inputSchema` and `outputSchema` are
 * object schemas with `"type": "object"` at the root, and each of their `properties` is an object
 * (schema.ts: `properties?: { [key: string]: object }`; the neutral schema takes any JSON value there
 * and any `outputSchema` root, SEP-2106).
 */
const ToolSchema = {
  safeParse(tool: unknown): { success: boolean; error?: unknown } {
    const parsed = NeutralToolSchema.safeParse(tool);
    if (!parsed.success) return parsed;
    for (const [field, schema] of [['inputSchema', parsed.data.inputSchema], ['outputSchema', parsed.data.outputSchema]] as const) {
      if (schema === undefined) continue;
      const root = NeutralToolSchema.shape.inputSchema.safeParse(schema);
      if (!root.success) return { success: false, error: { field, issues: root.error.issues } };
      const properties = Object.entries(root.data.properties ?? {});
      const bad = properties.find(([, p]) => typeof p !== 'object' || p === null || Array.isArray(p));
      if (bad) return { success: false, error: { field, property: bad[0], message: 'a property schema must be an object' } };
    }
    return { success: true };
  },
};

/**
 * A legacy SDK Client's listTools() verdict: the list schema, every Tool by the 2025-11-25 rule, then
 * compiling every outputSchema as the Client does.
 */
function clientAccepts(tools: readonly Record<string, unknown>[]): string | undefined {
  const parsed = ListToolsResultSchema.safeParse({ tools });
  if (!parsed.success) return JSON.stringify(parsed.error.issues[0]);
  const validator = new DefaultJsonSchemaValidator();
  for (const tool of parsed.data.tools) {
    const legacy = ToolSchema.safeParse(tool);
    if (!legacy.success) return `${tool.name}: ${JSON.stringify(legacy.error)}`;
    try {
      if (tool.outputSchema) validator.getValidator(tool.outputSchema);
    } catch (error) {
      return `${tool.name}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

describe.skipIf(!present)('every tool of every shared catalogue reaches the client as a valid MCP Tool', () => {
  for (const file of files) {
    for (const [label, options] of OPTION_SETS) {
      it(`${file}, ${label}: each wire Tool passes the SDK's ToolSchema, and the whole list passes listTools()`, () => {
        const tools = JSON.parse(readFileSync(join(catalogDir, file), 'utf8')) as UpstreamTool[];
        const wired = tools.map((tool) => wire(tool, options));
        for (const tool of wired) expect(ToolSchema.safeParse(tool).success, String(tool.name)).toBe(true);
        expect(clientAccepts(wired)).toBeUndefined();
      });
    }
  }
});

describe('hostile declarations (fixture test/fixtures/schemas/hostile-tools.json)', () => {
  const listed = parseToolsPage(structuredClone(hostileRaw)).tools;
  const byName = new Map(listed.map((t) => [t.name, t]));
  const tool = (name: string): UpstreamTool => byName.get(name) as UpstreamTool;
  const options = OPTION_SETS[0]![1];

  it('every one of them, as the upstream declares it, sinks the SDK Client’s listTools()', () => {
    for (const raw of hostileRaw) expect(clientAccepts([raw]), String(raw.name)).toBeDefined();
  });

  it('all but the two that accept no object reach the client as valid Tools, in every option set', () => {
    const servable = listed.filter((t) => t.name !== 'string_input' && t.name !== 'scalar_any_of');
    expect(servable).toHaveLength(hostileRaw.length - 2);
    for (const [label, opts] of OPTION_SETS) expect(clientAccepts(servable.map((t) => wire(t, opts))), label).toBeUndefined();
  });

  it('a non-object inputSchema cannot be called with the object MCP sends: the tool is refused with the reason', () => {
    expect(() => projectTool(tool('string_input'), options)).toThrow(UnservableToolError);
    expect(() => projectTool(tool('string_input'), options)).toThrow('its inputSchema accepts no JSON object ("type": "string")');
    expect(() => projectTool(tool('scalar_any_of'), options)).toThrow(UnservableToolError);
  });

  it('missing type gets type object; top-level anyOf / oneOf / allOf keep their branches beside it', () => {
    expect(wire(tool('no_type'), options).inputSchema).toEqual({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] });
    const anyOf = wire(tool('top_any_of'), options).inputSchema as Record<string, unknown>;
    expect(anyOf).toEqual({ type: 'object', anyOf: (tool('top_any_of').inputSchema as { anyOf: unknown }).anyOf });
    expect(Object.keys(anyOf)[0]).toBe('type');
    expect((wire(tool('top_one_of'), options).inputSchema as { oneOf: unknown[] }).oneOf).toHaveLength(2);
    expect((wire(tool('top_all_of'), options).inputSchema as { allOf: unknown[] }).allOf).toHaveLength(2);
  });

  it('{} and true become {type: "object"}; ["object", "null"] becomes "object"; boolean properties become schemas; a string required is left out', () => {
    expect(wire(tool('empty_schema'), options).inputSchema).toEqual({ type: 'object' });
    expect(wire(tool('true_schema'), options).inputSchema).toEqual({ type: 'object' });
    expect(wire(tool('nullable_object'), options).inputSchema).toEqual({ type: 'object', properties: { note: { type: 'string' } } });
    expect(wire(tool('boolean_properties'), options).inputSchema).toEqual({ type: 'object', properties: { anything: {}, never: { not: {} } } });
    expect(wire(tool('string_required'), options).inputSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('the canonical schema is never changed: admission keeps validating against what the upstream declared', () => {
    const before = structuredClone(listed);
    for (const t of listed) {
      try {
        projectTool(t, options);
      } catch {
        // string_input and scalar_any_of: refused above.
      }
    }
    expect(listed).toEqual(before);
    expect(tool('true_schema').inputSchema).toEqual({});
  });

  it('an outputSchema that is no object schema or does not compile is left out with its reason; one without type is normalised', () => {
    const array = projectTool(tool('output_array'), options);
    expect(array.fields).not.toHaveProperty('outputSchema');
    expect(array.leftOut).toEqual(['outputSchema accepts no JSON object ("type": "array"), and structuredContent is always an object; it is left out']);
    const uncompilable = projectTool(tool('output_uncompilable'), options);
    expect(uncompilable.fields).not.toHaveProperty('outputSchema');
    expect(uncompilable.leftOut[0]).toMatch(/^outputSchema does not compile: Invalid regular expression/);
    const noType = projectTool(tool('output_no_type'), options);
    expect(noType.fields.outputSchema).toEqual({ type: 'object', properties: { count: { type: 'number' } }, required: ['count'] });
    expect(noType.leftOut).toEqual([]);
  });

  it('optional fields of the wrong shape are left out, each named once; unknown fields stay verbatim', () => {
    const { fields, leftOut } = projectTool(tool('bad_fields'), options);
    expect(fields).toEqual({ 'x-vendor': { kept: true } });
    expect(leftOut).toEqual(['title', 'annotations', 'icons'].map((k) => `"${k}" is not the shape MCP defines for it; it is left out`));
  });

  it('the catalogue drops the tools with no wire form, naming each with its reason, and keeps the rest', () => {
    const catalogue = buildCatalogue(configFor({ hostile: {} }), new Map([['hostile', listed]]), (t) => projectTool(t, options));
    expect(catalogue.dropped.map((d) => d.tool).sort()).toEqual(['scalar_any_of', 'string_input']);
    expect(catalogue.dropped.find((d) => d.tool === 'string_input')?.reason).toBe(
      'its inputSchema accepts no JSON object ("type": "string"), and MCP tool arguments are always an object',
    );
    expect(catalogue.entries).toHaveLength(listed.length - 2);
  });
});

describe('wire form rules', () => {
  it('a valid schema is returned as the same object, so it stays byte-identical', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], $defs: { x: {} } };
    const result = wireInputSchema(schema);
    expect(result.ok && result.schema).toBe(schema);
  });

  it('acceptsObject refuses only what provably accepts no object', () => {
    expect(acceptsObject({ type: 'integer' })).toBe(false);
    expect(acceptsObject({ type: ['string', 'null'] })).toBe(false);
    expect(acceptsObject({ const: 3 })).toBe(false);
    expect(acceptsObject({ enum: ['a', 1] })).toBe(false);
    expect(acceptsObject({ allOf: [{}, { type: 'array' }] })).toBe(false);
    expect(acceptsObject(false)).toBe(false);
    expect(acceptsObject({ type: 'Object' })).toBe(true);
    expect(acceptsObject({ $ref: '#/$defs/args' })).toBe(true);
    expect(acceptsObject({ anyOf: [{ type: 'string' }, { properties: {} }] })).toBe(true);
    expect(acceptsObject({ enum: [{ a: 1 }] })).toBe(true);
  });

  it('a type that names no JSON type becomes object; a properties that is no object is left out', () => {
    expect(wireInputSchema({ type: 'Object', properties: [] })).toEqual({ ok: true, schema: { type: 'object' } });
  });

  it('outputSchema true becomes {type: "object"}; null and arrays are refused', () => {
    expect(wireOutputSchema(true)).toEqual({ ok: true, schema: { type: 'object' } });
    expect(wireOutputSchema(null).ok).toBe(false);
    expect(wireOutputSchema([]).ok).toBe(false);
    expect(wireOutputSchema({ $ref: '#/nowhere' })).toMatchObject({ ok: false, reason: expect.stringContaining('does not compile') });
  });

  it('an outputSchema too large to compile on every rebuild, or too deep to serialise, is left out; the tool stays', () => {
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(200) }])) };
    expect(wireOutputSchema(wide)).toMatchObject({ ok: false, reason: expect.stringMatching(/^outputSchema is \d+ bytes, over the 32768 checked/) });
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { n: deep } };
    expect(wireOutputSchema(deep)).toMatchObject({ ok: false, reason: expect.stringContaining('cannot be serialised') });
    const projected = projectTool({ name: 'deep_output', inputSchema: { type: 'object' }, outputSchema: deep }, OPTION_SETS[0]![1]);
    expect(projected.fields).toEqual({});
  });

  it('an own "__proto__" property name survives normalisation as a property', () => {
    const schema = JSON.parse('{"properties":{"__proto__":true}}') as Record<string, unknown>;
    const result = wireInputSchema(schema);
    expect(result.ok && JSON.stringify(result.schema)).toBe('{"type":"object","properties":{"__proto__":{}}}');
  });

  it('wireFields keeps valid optional fields as they are', () => {
    const tool = { name: 't', inputSchema: {}, title: 'T', annotations: { readOnlyHint: true }, _meta: { a: 1 }, execution: { taskSupport: 'optional' } };
    expect(wireFields(tool)).toEqual({ fields: { title: 'T', annotations: { readOnlyHint: true }, _meta: { a: 1 }, execution: { taskSupport: 'optional' } }, removed: [] });
  });
});
