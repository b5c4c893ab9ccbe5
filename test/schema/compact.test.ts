import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/catalog/types.js';
import { clipDescription, compactSchema } from '../../src/schema/compact.js';
import { jsonBytes, textBytes } from '../../src/schema/measure.js';
import { topLevelSurface } from '../../src/schema/surface.js';
import { deepSchema, fixture, text, wideAnyOf } from './fixtures.js';
import { compiles } from './helpers.js';

const filler = (n: number): string => 'x'.repeat(n);

describe('compaction ladder, one rung at a time', () => {
  it('rung 0: a schema within budget is returned as the same object', () => {
    const schema = fixture('recursive-tree');
    const out = compactSchema(schema, jsonBytes(schema));
    expect(out).toEqual({ schema, rung: 0, bytes: jsonBytes(schema) });
    expect(out.schema).toBe(schema);
  });

  it('rung 1: prunes unreachable $defs / definitions and stops there', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/definitions/used' } },
      definitions: { used: { type: 'string', description: filler(200) }, unused: { type: 'string', description: filler(2000) } },
    };
    const out = compactSchema(schema, jsonBytes(schema) - 1000);
    expect(out.rung).toBe(1);
    expect(out.schema.definitions).toEqual({ used: { type: 'string', description: filler(200) } });
    expect(out.bytes).toBe(jsonBytes(out.schema));
    expect(schema.definitions.unused).toBeDefined(); // the input is never mutated
  });

  it('rung 1 keeps definitions reached only through other reachable definitions', () => {
    const schema = fixture('recursive-tree');
    const out = compactSchema(schema, jsonBytes(schema) - 10);
    expect(out.rung).toBe(1);
    expect(Object.keys(out.schema.$defs as object)).toEqual(['node', 'label']);
  });

  it('rung 1 resolves # inside an embedded resource ($id) against that resource', () => {
    const schema = {
      $id: 'https://example.com/root',
      type: 'object',
      properties: { a: { $ref: 'https://example.com/item' } },
      $defs: {
        item: { $id: 'https://example.com/item', type: 'object', properties: { k: { $ref: '#/$defs/key' } }, $defs: { key: { type: 'string' } } },
        key: { type: 'number', description: filler(2000) },
      },
    };
    const out = compactSchema(schema, jsonBytes(schema) - 1000);
    expect(out.rung).toBe(1);
    expect(Object.keys(out.schema.$defs as object)).toEqual(['item']);
    expect(compiles(out.schema)).toBe(true);
  });

  it('rung 1 follows a pointer the way ajv reads it: a non-canonical escape still reaches its definition', () => {
    // `~d` is no RFC 6901 escape; ajv (like pointer resolution here) reads the key "til~de" anyway.
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/til~de' } }, $defs: { 'til~de': { type: 'string' }, unused: { type: 'number', description: filler(2000) } } };
    const out = compactSchema(schema, jsonBytes(schema) - 1000);
    expect(out.rung).toBe(1);
    expect(out.schema).toEqual({ type: 'object', properties: { a: { $ref: '#/$defs/til~de' } }, $defs: { 'til~de': { type: 'string' } } });
    expect(compiles(out.schema)).toBe(true);
  });

  it('rung 2: strips nested property descriptions, keeps top-level ones', () => {
    const schema = {
      type: 'object',
      description: 'root',
      properties: { outer: { type: 'object', description: 'top', properties: { inner: { type: 'string', description: filler(2000) } } } },
    };
    const out = compactSchema(schema, jsonBytes(schema) - 1000);
    expect(out.rung).toBe(2);
    expect(out.schema).toEqual({
      type: 'object',
      description: 'root',
      properties: { outer: { type: 'object', description: 'top', properties: { inner: { type: 'string' } } } },
    });
  });

  it('rung 3: strips every property description, keeps the root description', () => {
    const schema = { type: 'object', description: 'root', properties: { a: { type: 'string', description: filler(2000) } } };
    const out = compactSchema(schema, 200);
    expect(out.rung).toBe(3);
    expect(out.schema).toEqual({ type: 'object', description: 'root', properties: { a: { type: 'string' } } });
  });

  it('rung 4: drops definition tables and the refs into them, and still compiles', () => {
    const values = Array.from({ length: 300 }, (_, i) => `value-${i}`);
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/big' }, b: { type: 'array', items: { $ref: '#/$defs/big' } } },
      required: ['a'],
      $defs: { big: { type: 'string', enum: values } },
    };
    const out = compactSchema(schema, 1000);
    expect(out.rung).toBe(4);
    expect(out.schema).toEqual({ type: 'object', properties: { a: {}, b: { type: 'array', items: {} } }, required: ['a'] });
    expect(compiles(out.schema)).toBe(true);
  });

  it('rung 5: collapses objects deeper than three levels to { type: "object" }', () => {
    const schema = deepSchema(30);
    const out = compactSchema(schema, 300);
    expect(out.rung).toBe(5);
    expect(out.schema).toEqual({
      type: 'object',
      properties: { top: { type: 'object', properties: { p1: { type: 'object', properties: { p2: { type: 'object', properties: { p3: { type: 'object' } } } } } } } },
      required: ['top'],
    });
  });

  it('rung 5 counts array levels too: arrays of arrays collapse to { type: "array" }', () => {
    let items: JsonObject = { type: 'string', enum: Array.from({ length: 200 }, (_, i) => `v${i}`) };
    for (let i = 0; i < 6; i++) items = { type: 'array', items };
    const out = compactSchema({ type: 'object', properties: { grid: items } }, 500);
    expect(out.rung).toBe(5);
    expect(out.schema).toEqual({ type: 'object', properties: { grid: { type: 'array', items: { type: 'array', items: { type: 'array', items: { type: 'array' } } } } } });
  });

  it('rung 6: drops anyOf / oneOf / allOf everywhere', () => {
    const schema = wideAnyOf(300);
    const out = compactSchema(schema, 5000);
    expect(out.rung).toBe(6);
    expect(out.schema).toEqual({ type: 'object', properties: { filter: {}, limit: { type: 'integer' } }, required: ['filter'] });
  });

  it('past rung 6: cuts the largest top-level property to its surface and keeps the other descriptions', () => {
    const schema = {
      type: 'object',
      properties: {
        item: { type: 'string', enum: Array.from({ length: 500 }, (_, i) => `item-${i}`), description: 'Item id' },
        region: { type: 'string', description: 'Server region' },
      },
      required: ['item'],
    };
    const out = compactSchema(schema, 5000);
    expect(out.rung).toBe(6);
    expect(out.schema).toEqual({
      type: 'object',
      properties: { item: { type: 'string', description: 'Item id' }, region: { type: 'string', description: 'Server region' } },
      required: ['item'],
    });
  });

  it('past rung 6: stops at the first cut that fits, as re-measuring after every cut would', () => {
    // Names and descriptions with multi-byte text, a boolean schema, a `__proto__` property, a property without type.
    const names = ['__proto__', 'région', '名前', 'plain', 'flag', 'untyped', ...Array.from({ length: 14 }, (_, i) => `p${i}`)];
    const property = (name: string, i: number): unknown =>
      name === 'flag'
        ? true
        : { ...(name === 'untyped' ? {} : { type: 'string' }), description: text('é', 20 + ((i * 37) % 90)), enum: Array.from({ length: (i * 7) % 30 }, (_, k) => `v${k}`) };
    const properties: JsonObject = Object.fromEntries(names.map((name, i) => [name, property(name, i)]));
    const schema: JsonObject = { type: 'object', description: 'root', properties, required: ['plain'] };
    expect(Object.keys(properties)).toContain('__proto__');
    // Budgets on both sides of every size the cuts pass through, so an off-by-one byte count shows.
    const budgets = cutsOneByOne(schema).flatMap((candidate) => [jsonBytes(candidate), jsonBytes(candidate) - 1]);
    let checked = 0;
    for (const maxSchemaBytes of budgets) {
      const out = compactSchema(schema, maxSchemaBytes);
      if (out.rung !== 6) continue;
      const expected = cutsOneByOne(schema).find((candidate) => jsonBytes(candidate) <= maxSchemaBytes) ?? topLevelSurface(schema);
      expect(out.schema, `budget ${maxSchemaBytes}`).toEqual(expected);
      expect(out.bytes).toBe(jsonBytes(out.schema));
      checked += 1;
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('reports bytes over budget when even the top-level surface does not fit', () => {
    const properties = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`argument_number_${i}`, { type: 'string', description: 'd' }]));
    const schema = { type: 'object', properties };
    const out = compactSchema(schema, 5000);
    expect(out.rung).toBe(6);
    expect(out.schema).toEqual(topLevelSurface(schema));
    expect(out.bytes).toBeGreaterThan(5000);
  });
});

/**
 * The schemas the past-rung-6 search passes through, in order, built the slow, obvious way, for schemas
 * whose properties rungs 1–6 leave as `{ type?, enum? }`: descriptions restored, then properties cut
 * largest first to `{ type?, description }`, then to `{ type? }`, one cut per candidate.
 */
function cutsOneByOne(schema: JsonObject): JsonObject[] {
  const props = schema.properties as JsonObject;
  const forms = Object.keys(props).map((name) => {
    const p = props[name];
    if (typeof p !== 'object' || p === null) return { name, forms: [p, p, p] };
    const { description, ...rest } = p as JsonObject;
    const bare = 'type' in rest ? { type: rest.type } : {};
    return { name, forms: [{ ...rest, description }, { ...bare, description }, bare] };
  });
  const stage = new Map<string, number>();
  const build = (): JsonObject => ({ ...schema, properties: Object.fromEntries(forms.map((f) => [f.name, f.forms[stage.get(f.name) ?? 0]])) });
  const order = [...forms].sort((a, b) => jsonBytes(b.forms[0]) - jsonBytes(a.forms[0]) || (a.name < b.name ? -1 : 1));
  const candidates = [build()];
  for (const level of [1, 2]) {
    for (const { name } of order) {
      stage.set(name, level);
      candidates.push(build());
    }
  }
  return candidates;
}

describe('clipDescription (clipped at a character boundary, ending in …)', () => {
  it('keeps text that fits, byte for byte', () => {
    expect(clipDescription('Reads a file.', 13)).toBe('Reads a file.');
  });

  it('clips ASCII to exactly the budget, ellipsis included, trailing space trimmed', () => {
    expect(clipDescription('Reads a file from disk.', 10)).toBe('Reads a…');
    expect(textBytes(clipDescription(filler(20_000), 1000))).toBe(1000);
  });

  it('never splits a multi-byte character, surrogate pair or emoji sequence', () => {
    const samples = ['漢字かな交じり文', '😀😃😄😁', 'a👨‍👩‍👧b👨‍👩‍👧c', 'e\u0301e\u0301e\u0301', 'Ünïcödé ✓ text'];
    for (const sample of samples) {
      for (let max = 0; max < textBytes(sample) + 2; max++) {
        const clipped = clipDescription(sample, max);
        expect(textBytes(clipped), `${sample} @${max}`).toBeLessThanOrEqual(max);
        if (clipped === sample) continue;
        if (max < 3) expect(clipped).toBe('');
        else {
          expect(clipped.endsWith('…')).toBe(true);
          const kept = clipped.slice(0, -1);
          expect(sample.startsWith(kept)).toBe(true);
          // The cut lands between graphemes: what follows is not a low surrogate, joiner or combining mark.
          expect(sample.slice(kept.length)).not.toMatch(/^[\uDC00-\uDFFF\u200D\u0301]/);
        }
      }
    }
  });

  it('clips 20 KB of CJK within 1,000 bytes', () => {
    const clipped = clipDescription(text('漢', 20_000), 1000);
    expect(textBytes(clipped)).toBeLessThanOrEqual(1000);
    expect(clipped).toBe(`${'漢'.repeat(332)}…`);
  });
});
