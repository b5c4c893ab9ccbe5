import AjvCore from 'ajv/dist/core.js';
import { describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../../src/catalog/types.js';
import { Admission, schemaDialect, violationText } from '../../src/schema/admit.js';
import { projectTool } from '../../src/schema/project.js';
import { fixture, wideAnyOf } from './fixtures.js';

const readFile = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    mode: { type: 'string', enum: ['a', 'b'] },
    head: { type: 'integer', minimum: 1 },
    options: { type: 'object', properties: { encoding: { type: 'string', enum: ['utf8', 'latin1'] } }, additionalProperties: false },
  },
  required: ['path'],
};

describe('Admission against the canonical schema', () => {
  it('accepts valid arguments', () => {
    expect(new Admission().check('files__read_text_file', readFile, { path: '/a', mode: 'a' })).toEqual({ ok: true, validated: true });
  });

  it('reports wrong-typed, out-of-enum and missing-required arguments by JSON path', () => {
    const verdict = new Admission().check('files__read_text_file', readFile, { mode: 'c', head: 'ten', options: { encoding: 'ascii', extra: 1 } });
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.violations).toEqual([
      { path: '', message: 'missing required property "path"' },
      { path: '/mode', message: 'must be one of "a", "b"' },
      { path: '/head', message: 'must be integer' },
      { path: '/options', message: 'unexpected property "extra"' },
      { path: '/options/encoding', message: 'must be one of "utf8", "latin1"' },
    ]);
    expect(verdict.text).toBe(
      [
        'Invalid arguments for files__read_text_file:',
        '- (root): missing required property "path"',
        '- /mode: must be one of "a", "b"',
        '- /head: must be integer',
        '- /options: unexpected property "extra"',
        '- /options/encoding: must be one of "utf8", "latin1"',
      ].join('\n'),
    );
  });

  it('counts missing arguments as {}', () => {
    const admission = new Admission();
    expect(admission.check('t', readFile, undefined)).toMatchObject({ ok: false, violations: [{ path: '', message: 'missing required property "path"' }] });
    expect(admission.check('t', { type: 'object' }, undefined)).toEqual({ ok: true, validated: true });
    expect(admission.check('t', { type: 'object' }, null)).toEqual({ ok: true, validated: true });
  });

  it('rejects arguments that are not an object', () => {
    expect(new Admission().check('t', readFile, 'path')).toMatchObject({ ok: false, violations: [{ path: '', message: 'must be object' }] });
  });

  it('folds anyOf type alternatives into one line', () => {
    const schema = { type: 'object', properties: { pages: { anyOf: [{ type: 'array' }, { type: 'string' }] } } };
    const verdict = new Admission().check('t', schema, { pages: 3 });
    expect(verdict).toMatchObject({ ok: false, violations: [{ path: '/pages', message: 'must be array or string' }] });
  });

  it('lists at most eight violations, then "…and N more"', () => {
    const properties = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const args = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, i]));
    const verdict = new Admission().check('t', { type: 'object', properties }, args);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.violations).toHaveLength(12);
    const lines = verdict.text.split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[9]).toBe('- …and 4 more');
  });

  it('quotes at most twelve enum values', () => {
    const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const verdict = new Admission().check('t', { type: 'object', properties: { v: { enum: values } } }, { v: 'x' });
    expect(verdict).toMatchObject({ ok: false, violations: [{ path: '/v', message: expect.stringMatching(/"v11", … \(8 more\)$/) }] });
  });

  it('accepts a valid call whose arguments use keywords the projection dropped', () => {
    const canonical = wideAnyOf(300);
    const projected = projectTool({ name: 't', inputSchema: canonical }, {
      prepare: { resolveRefs: false, stripKeywords: false, strict: false },
      compaction: { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 },
    });
    expect(projected.rung).toBe(6);
    expect(JSON.stringify(projected.inputSchema)).not.toContain('kind7');
    const admission = new Admission();
    expect(admission.check('t', canonical, { filter: { kind7: 'k7' } })).toEqual({ ok: true, validated: true });
    expect(admission.check('t', canonical, { filter: { kind7: 'nope' } }).ok).toBe(false);
  });

  it('forwards unvalidated, warning once per tool, when the canonical schema cannot compile', () => {
    const admission = new Admission();
    const broken = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    const first = admission.check('srv__broken', broken, { a: 1 });
    expect(first).toMatchObject({ ok: true, validated: false, warning: expect.stringContaining('srv__broken') });
    expect(admission.check('srv__broken', broken, { a: 2 })).toEqual({ ok: true, validated: false });
    expect(admission.check('srv__other', { type: 5 }, {})).toMatchObject({ ok: true, validated: false, warning: expect.any(String) });
    expect(admission.check('srv__weird', [] as unknown as JsonObject, {})).toMatchObject({ ok: true, validated: false });
  });

  it('compiles each canonical schema once and reuses it', () => {
    // Counted, not timed: ajv's compile runs once per tool, whatever the calls.
    const admission = new Admission();
    const schema = wideAnyOf(200);
    const compile = vi.spyOn(AjvCore.prototype, 'compile');
    try {
      for (let i = 0; i < 101; i++) expect(admission.check('t', schema, { filter: { kind1: 'k1' } }).ok).toBe(true);
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it('ignores formats it does not know instead of failing to compile', () => {
    const schema = { type: 'object', properties: { when: { type: 'string', format: 'chrono-stamp' }, email: { type: 'string', format: 'email' } } };
    expect(new Admission().check('t', schema, { when: 'x', email: 'y' })).toEqual({ ok: true, validated: true });
  });

  it('keeps tools that share an $id apart', () => {
    const admission = new Admission();
    const a = { $id: 'https://example.com/args', type: 'object', required: ['a'] };
    const b = { $id: 'https://example.com/args', type: 'object', required: ['b'] };
    expect(admission.check('a', a, { a: 1 })).toEqual({ ok: true, validated: true });
    expect(admission.check('b', b, { a: 1 }).ok).toBe(false);
  });
});

describe('meta-schema constraints checked without ajv\'s meta-schema pass', () => {
  it('forwards unvalidated, with a warning, a schema whose broken constraint would change what is accepted', () => {
    const broken: Record<string, JsonObject> = {
      'negative maxLength': { type: 'object', properties: { a: { type: 'string', maxLength: -1 } } },
      'fractional minItems': { type: 'object', properties: { a: { type: 'array', minItems: 1.5 } } },
      'zero multipleOf': { type: 'object', properties: { n: { type: 'number', multipleOf: 0 } } },
      'empty anyOf': { type: 'object', properties: { a: { anyOf: [] } } },
      'number in required': { type: 'object', required: [5] },
      'number as a property schema': { type: 'object', properties: { a: 5 } },
      'number in a dependencies list': { type: 'object', dependencies: { a: [5] } },
      'number in a 2020-12 prefixItems': { type: 'array', prefixItems: [5] },
    };
    for (const [name, schema] of Object.entries(broken)) {
      expect(new Admission().check('t', schema, { a: 'x', n: 3 }), name).toEqual({
        ok: true,
        validated: false,
        warning: expect.stringContaining('schema is invalid: /'),
      });
    }
  });

  it('validates duplicates in enum, type and required by their meaning (they change nothing)', () => {
    const schema = { type: 'object', properties: { mode: { type: ['string', 'string'], enum: ['a', 'a', 'b'] } }, required: ['mode', 'mode'] };
    const admission = new Admission();
    expect(admission.check('t', schema, { mode: 'b' })).toEqual({ ok: true, validated: true });
    expect(admission.check('t', schema, { mode: 'c' })).toMatchObject({ ok: false, violations: [{ path: '/mode', message: 'must be one of "a", "a", "b"' }] });
    expect(admission.check('t', schema, {})).toMatchObject({ ok: false, violations: [{ path: '', message: 'missing required property "mode"' }] });
  });

  it('never throws on an anyOf too wide for V8 to parse its validator; forwards it unvalidated if need be', () => {
    const schema = { type: 'object', properties: { v: { anyOf: Array.from({ length: 2000 }, (_, i) => ({ const: i })) } } };
    const admission = new Admission();
    const first = admission.check('t', schema, { v: 1999 });
    expect(first.ok).toBe(true);
    if (first.ok && !first.validated) expect(first.warning).toContain('Maximum call stack size exceeded');
    expect(admission.check('t', schema, { v: 1999 })).toEqual({ ok: true, validated: first.ok && first.validated });
  });
});

describe('dialects (draft-07 and 2020-12)', () => {
  it('picks the dialect from $schema, else from 2019-09+ keywords, else draft-07', () => {
    expect(schemaDialect(fixture('draft07-definitions'))).toBe('draft-07');
    expect(schemaDialect(fixture('recursive-tree'))).toBe('2020-12');
    expect(schemaDialect({ type: 'object', $defs: {} })).toBe('2020-12');
    expect(schemaDialect({ type: 'array', prefixItems: [] })).toBe('2020-12');
    expect(schemaDialect({ type: 'object' })).toBe('draft-07');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' })).toBe('2019-09');
  });

  it('validates draft-07 tuples (items array) and 2020-12 tuples (prefixItems) by their own rules', () => {
    const admission = new Admission();
    const draft07 = fixture('draft07-definitions');
    expect(admission.check('d7', draft07, { owner: 'octo', point: [1, 2] })).toEqual({ ok: true, validated: true });
    expect(admission.check('d7', draft07, { owner: 'octo', point: [1, 'x', 3] })).toMatchObject({
      ok: false,
      violations: [
        { path: '/point', message: 'must NOT have more than 2 items' },
        { path: '/point/1', message: 'must be number' },
      ],
    });
    const modern = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { point: { type: 'array', prefixItems: [{ type: 'number' }], items: false } } };
    expect(admission.check('m', modern, { point: [1] })).toEqual({ ok: true, validated: true });
    expect(admission.check('m', modern, { point: [1, 2] }).ok).toBe(false);
  });

  it('follows recursive $defs refs', () => {
    const admission = new Admission();
    const tree = fixture('recursive-tree');
    expect(admission.check('tree', tree, { root: { name: 'a', children: [{ name: 'b', children: [] }] } })).toEqual({ ok: true, validated: true });
    expect(admission.check('tree', tree, { root: { name: 'a', children: [{ children: [] }] } })).toMatchObject({
      ok: false,
      violations: [{ path: '/root/children/0', message: 'missing required property "name"' }],
    });
  });

  it('follows a recursive reference to the root ($ref: "#")', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, next: { $ref: '#' } }, required: ['name'] };
    const admission = new Admission();
    expect(admission.check('list', schema, { name: 'a', next: { name: 'b' } })).toEqual({ ok: true, validated: true });
    expect(admission.check('list', schema, { name: 'a', next: {} })).toMatchObject({
      ok: false,
      violations: [{ path: '/next', message: 'missing required property "name"' }],
    });
  });

  it('reads draft-04 boolean exclusive bounds (regression: pdf-reader-mcp::read_pdf)', () => {
    const admission = new Admission();
    const schema = fixture('draft04-bounds');
    expect(admission.check('pdf', schema, { pages: [1, 2] })).toEqual({ ok: true, validated: true });
    expect(admission.check('pdf', schema, { pages: [0] })).toMatchObject({ ok: false, violations: expect.arrayContaining([{ path: '/pages/0', message: 'must be > 0' }]) });
  });

  it('accepts a draft-04 $schema it has no meta-schema for', () => {
    const schema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['x'] };
    expect(new Admission().check('t', schema, {})).toMatchObject({ ok: false });
  });
});

describe('violationText', () => {
  it('names the root (root) and lists one violation per line', () => {
    expect(violationText('x', [{ path: '', message: 'must be object' }])).toBe('Invalid arguments for x:\n- (root): must be object');
  });
});
