/**
 * The output check (schema/output.ts): what forwards untouched (a match, an error, no outputSchema, a
 * schema ajv cannot compile or a dialect the SDK client does not validate) and what becomes an
 * isError with the content and a note (a mismatch by JSON path, formats checked as the SDK client does,
 * a missing structuredContent).
 */
import { describe, expect, it } from 'vitest';
import { OutputCheck } from '../../src/schema/output.js';

const schema = { type: 'object', properties: { n: { type: 'integer' }, when: { type: 'string', format: 'date-time' } }, required: ['n'] };
const result = (structuredContent?: unknown, isError?: boolean): Record<string, unknown> => ({
  content: [{ type: 'text', text: 'answer' }],
  ...(structuredContent !== undefined ? { structuredContent } : {}),
  ...(isError !== undefined ? { isError } : {}),
});

describe('OutputCheck', () => {
  const check = new OutputCheck();

  it('forwards a match, an error, a tool without outputSchema, and a schema it cannot compile or whose dialect the client does not validate', () => {
    expect(check.check(schema, result({ n: 1 }))).toEqual({ ok: true });
    expect(check.check(schema, result({ n: 'x' }, true))).toEqual({ ok: true });
    expect(check.check(undefined, result({ n: 'x' }))).toEqual({ ok: true });
    expect(check.check({ type: 'object', properties: { n: { $ref: '#/nowhere' } } }, result({ n: 'x' }))).toEqual({ ok: true });
    expect(check.check({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['n'] }, result({}))).toEqual({ ok: true });
  });

  it('a mismatch: the content, a note naming each path, isError, no structuredContent; formats are checked as the SDK client does', () => {
    const verdict = check.check(schema, { ...result({ n: 'x', when: 'yesterday' }), _meta: { k: 1 } });
    expect(verdict).toEqual({
      ok: false,
      mismatch: `structuredContent does not match the tool's outputSchema (/n must be integer; /when must match format "date-time"), so it was left out`,
      result: {
        content: [{ type: 'text', text: 'answer' }, { type: 'text', text: `[toolshelf: structuredContent does not match the tool's outputSchema (/n must be integer; /when must match format "date-time"), so it was left out. The content above is the tool's whole answer.]` }],
        isError: true,
        _meta: { k: 1 },
      },
    });
  });

  it('a missing structuredContent is a mismatch too; the dialect is 2020-12 without $schema', () => {
    expect(check.check(schema, result())).toMatchObject({ ok: false, mismatch: 'the tool returned no structuredContent, which its outputSchema asks for' });
    const modern = { type: 'object', prefixItems: [], properties: { list: { type: 'array', prefixItems: [{ type: 'string' }] } } };
    expect(check.check(modern, result({ list: [1] }))).toMatchObject({ ok: false, mismatch: expect.stringContaining('/list/0 must be string') });
  });
});
