import { describe, expect, it } from 'vitest';
import { MAX_QUERY_CHARS, parseCallToolArgs, parseSearchArgs } from '../../src/gateway/bridgeTools.js';

describe('tool_search and call_tool arguments', () => {
  it('clamps limit to 1..maxLimit and defaults it', () => {
    expect(parseSearchArgs({ query: 'x' }, 5, 20)).toEqual({ query: 'x', limit: 5 });
    expect(parseSearchArgs({ query: 'x', limit: 0 }, 5, 20)).toEqual({ query: 'x', limit: 1 });
    expect(parseSearchArgs({ query: 'x', limit: 1e9 }, 5, 20)).toEqual({ query: 'x', limit: 20 });
    expect(parseSearchArgs({ query: 'x', limit: 2.7 }, 5, 20)).toEqual({ query: 'x', limit: 2 });
    expect(parseSearchArgs({ query: 'x', limit: '3' }, 5, 20)).toEqual({ query: 'x', limit: 3 });
    expect(parseSearchArgs({ query: 'x', limit: 'five' }, 5, 20)).toHaveProperty('error');
    expect(parseSearchArgs({ query: '  ' }, 5, 20)).toHaveProperty('error');
  });

  it('ranks at most the first 1,000 characters of a query (a 1 MB query blocked 2.4 s)', () => {
    const parsed = parseSearchArgs({ query: 'read file '.repeat(100_000) }, 5, 20);
    expect('query' in parsed && parsed.query.length).toBe(MAX_QUERY_CHARS);
  });

  it('call_tool: missing arguments count as {}, non-object arguments are refused', () => {
    expect(parseCallToolArgs({ name: 'a__b' })).toEqual({ name: 'a__b', arguments: {} });
    expect(parseCallToolArgs({ name: 'a__b', arguments: [] })).toHaveProperty('error');
    expect(parseCallToolArgs({ name: '' })).toHaveProperty('error');
  });
});
