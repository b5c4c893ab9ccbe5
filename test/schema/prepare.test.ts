import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/catalog/types.js';
import { describeTool, dropNullOptionals, prepareSchema } from '../../src/schema/prepare.js';
import { topLevelSurface } from '../../src/schema/surface.js';
import { fixture } from './fixtures.js';
import { compiles } from './helpers.js';

const off = { resolveRefs: false, stripKeywords: false, strict: false };
const refsOnly = { ...off, resolveRefs: true };
const stripOnly = { ...off, stripKeywords: true };
const strictOnly = { ...off, strict: true };

describe('prepareSchema with every option off (verbatim by default)', () => {
  it('returns the very same object', () => {
    const schema = fixture('draft07-definitions');
    expect(prepareSchema(schema, off)).toBe(schema);
  });
});

describe('resolveRefs', () => {
  it('inlines draft-07 #/definitions refs and drops the table they no longer need', () => {
    const out = prepareSchema(fixture('draft07-definitions'), refsOnly);
    const props = out.properties as Record<string, JsonObject>;
    expect(props.owner).toEqual({ type: 'string', pattern: '^[A-Za-z0-9-]+$', examples: ['octocat'] });
    expect((props.assignees?.items as JsonObject).pattern).toBe('^[A-Za-z0-9-]+$');
    expect(out.definitions).toBeUndefined();
    expect(JSON.stringify(out)).not.toContain('$ref');
    expect(compiles(out)).toBe(true);
  });

  it('keeps 2020-12 recursive refs with their $defs reachable, inlines the rest, prunes the unused', () => {
    const out = prepareSchema(fixture('recursive-tree'), refsOnly);
    const props = out.properties as Record<string, JsonObject>;
    expect(props.root).toEqual({ $ref: '#/$defs/node', description: 'The tree to store.' });
    expect(props.label).toEqual({ type: 'string', minLength: 1, description: 'A non-empty label.' });
    const defs = out.$defs as Record<string, JsonObject>;
    expect(Object.keys(defs)).toEqual(['node']);
    expect((defs.node?.properties as Record<string, JsonObject>).name).toMatchObject({ type: 'string' });
    expect(compiles(out)).toBe(true);
  });

  it('merges $ref siblings: annotations override, conflicting assertions go through allOf', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/s', description: 'own' },
        b: { $ref: '#/$defs/s', minLength: 3 },
      },
      $defs: { s: { type: 'string', minLength: 1, description: 'shared' } },
    };
    const props = prepareSchema(schema, refsOnly).properties as Record<string, JsonObject>;
    expect(props.a).toEqual({ type: 'string', minLength: 1, description: 'own' });
    expect(props.b).toEqual({ minLength: 3, allOf: [{ type: 'string', minLength: 1, description: 'shared' }] });
  });

  it('keeps a self-reference to the root and every remote or broken ref as it is', () => {
    const schema = {
      type: 'object',
      properties: { self: { $ref: '#' }, remote: { $ref: 'https://example.com/x.json' }, bad: { $ref: '#/%E0%A4%A' } },
    };
    expect(prepareSchema(schema, refsOnly)).toEqual(schema);
  });

  it('leaves schemas with embedded resources (nested $id) alone: # means something else inside them', () => {
    const schema = {
      type: 'object',
      properties: { a: { $id: 'https://example.com/a', $ref: '#/$defs/x', $defs: { x: { type: 'string' } } } },
    };
    expect(prepareSchema(schema, refsOnly)).toEqual(schema);
  });

  it('gives up inlining (refs kept) when a diamond of definitions would grow exponentially', () => {
    const defs: Record<string, JsonObject> = { d0: { type: 'string', description: 'x'.repeat(100) } };
    for (let i = 1; i <= 20; i++) defs[`d${i}`] = { type: 'object', properties: { l: { $ref: `#/$defs/d${i - 1}` }, r: { $ref: `#/$defs/d${i - 1}` } } };
    const schema = { type: 'object', properties: { v: { $ref: '#/$defs/d20' } }, $defs: defs };
    expect(prepareSchema(schema, refsOnly)).toEqual(schema);
  });
});

describe('stripKeywords', () => {
  it('drops $schema, root $id, $comment and examples at keyword positions only', () => {
    const out = prepareSchema(fixture('draft07-definitions'), stripOnly);
    expect(out.$schema).toBeUndefined();
    expect(out.$id).toBeUndefined();
    expect(out.$comment).toBeUndefined();
    const props = out.properties as Record<string, JsonObject>;
    expect(props.assignees?.examples).toBeUndefined();
    expect((out.definitions as Record<string, JsonObject>).Login?.examples).toBeUndefined();
    expect(props.examples).toEqual({ type: 'string', description: 'A property that happens to be named like a keyword.' });
  });

  it('rewrites references that named the root by its $id once the $id is gone', () => {
    const schema = {
      $id: 'https://example.com/args.json',
      type: 'object',
      properties: { a: { $ref: 'https://example.com/args.json#/definitions/s' }, self: { $ref: 'https://example.com/args.json' } },
      definitions: { s: { type: 'string' } },
    };
    const out = prepareSchema(schema, stripOnly);
    expect(out.properties).toEqual({ a: { $ref: '#/definitions/s' }, self: { $ref: '#' } });
    expect(compiles(out)).toBe(true);
  });

  it('rewrites a draft-07 tuple as prefixItems once $schema no longer says draft-07', () => {
    const props = prepareSchema(fixture('draft07-definitions'), stripOnly).properties as Record<string, JsonObject>;
    expect(props.point).toEqual({ type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false });
    expect(props.labels).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('leaves 2020-12 prefixItems alone and keeps nested $id', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { p: { type: 'array', prefixItems: [{ type: 'string', $comment: 'c' }], items: false }, q: { $id: 'urn:q', type: 'string' } },
    };
    expect(prepareSchema(schema, stripOnly)).toEqual({
      type: 'object',
      properties: { p: { type: 'array', prefixItems: [{ type: 'string' }], items: false }, q: { $id: 'urn:q', type: 'string' } },
    });
  });
});

describe('strict', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      mode: { type: 'string', enum: ['a', 'b'] },
      opts: { type: 'object', properties: { depth: { type: ['integer'] } } },
      meta: { type: 'object' },
      tags: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: { type: 'string' } },
    },
    required: ['path'],
  };

  it('requires every property, closes objects that declare properties, makes former optionals nullable', () => {
    const out = prepareSchema(schema, strictOnly);
    expect(out.required).toEqual(['path', 'mode', 'opts', 'meta', 'tags']);
    expect(out.additionalProperties).toBe(false);
    const props = out.properties as Record<string, JsonObject>;
    expect(props.path).toEqual({ type: 'string' });
    expect(props.mode).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(props.opts).toEqual({
      type: ['object', 'null'],
      properties: { depth: { type: ['integer', 'null'] } },
      required: ['depth'],
      additionalProperties: false,
    });
    expect(props.meta).toEqual({ type: ['object', 'null'] });
    expect(props.tags?.additionalProperties).toEqual({ type: 'string' });
    expect(compiles(out)).toBe(true);
  });

  it('is idempotent', () => {
    const once = prepareSchema(schema, strictOnly);
    expect(prepareSchema(once, strictOnly)).toEqual(once);
  });

  it('dropNullOptionals removes the nulls a model sends to decline optional properties', () => {
    const args = { path: 'a', mode: null, opts: { depth: null }, meta: { x: null } };
    expect(dropNullOptionals(schema, args)).toEqual({ path: 'a', opts: {}, meta: { x: null } });
    expect(dropNullOptionals(schema, { path: null })).toEqual({ path: null });
  });
});

describe('all options together', () => {
  it('apply in order, are idempotent and keep both dialects compilable', () => {
    const all = { resolveRefs: true, stripKeywords: true, strict: true };
    for (const name of ['draft07-definitions', 'recursive-tree']) {
      const once = prepareSchema(fixture(name), all);
      expect(prepareSchema(once, all), name).toEqual(once);
      expect(compiles(once), name).toBe(true);
      expect(Object.keys((topLevelSurface(once).properties ?? {}) as object)).toEqual(Object.keys(fixture(name).properties as object));
    }
  });

  it('never throw on schemas that are not valid JSON Schema', () => {
    const all = { resolveRefs: true, stripKeywords: true, strict: true };
    const garbage: unknown[] = [[], 'x', { properties: [1, 2] }, { properties: { a: 5 }, required: 'a' }, { $ref: 7 }, { items: [null, 1] }];
    for (const schema of garbage) expect(() => prepareSchema(schema as JsonObject, all)).not.toThrow();
  });
});

describe('describeTool (a tool with no description gets one from its name)', () => {
  it('keeps a real description verbatim', () => {
    expect(describeTool('x', '  Reads a file.\n')).toBe('  Reads a file.\n');
  });

  it.each([
    ['read_text_file', 'Read text file.'],
    ['getHTTPStatus', 'Get HTTP status.'],
    ['bing-cn-mcp::bing_search', 'Bing cn mcp bing search.'],
    ['browser.navigate', 'Browser navigate.'],
    ['___', 'Tool.'],
  ])('synthesises %s → %s', (name, expected) => {
    expect(describeTool(name, undefined)).toBe(expected);
    expect(describeTool(name, '   ')).toBe(expected);
    expect(describeTool(name, 42)).toBe(expected);
  });
});
