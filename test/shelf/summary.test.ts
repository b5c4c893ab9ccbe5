/**
 * The all-direct figure (shelf/summary.ts): each upstream's `{"tools":[…]}` summed, and never a failed
 * start over a hostile tool; the summary's size line names tool_search only when it is listed.
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { allDirectBytes, formatSummary, type StartSummary } from '../../src/shelf/summary.js';

const tool = (name: string): UpstreamTool => ({ name, inputSchema: { type: 'object' } });

describe('allDirectBytes', () => {
  it('sums one tools/list result per upstream, as each lists its tools', () => {
    const a = [tool('x'), tool('y')];
    const b = [tool('z')];
    expect(allDirectBytes(new Map([['a', a], ['b', b], ['down', []]]))).toBe(JSON.stringify({ tools: a }).length + JSON.stringify({ tools: b }).length);
  });

  it('leaves out a tool too deep to serialise instead of throwing', () => {
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 20_000; i += 1) deep = { type: 'object', properties: { x: deep } };
    const tools = [tool('plain'), { name: 'abyss', inputSchema: deep } as UpstreamTool, tool('other')];
    expect(allDirectBytes(new Map([['d', tools]]))).toBe(JSON.stringify({ tools: [tool('plain'), tool('other')] }).length);
  });
});

describe('formatSummary', () => {
  const sized = (searchListed: boolean): StartSummary => ({
    upstreams: [],
    direct: 4,
    deferred: searchListed ? 1 : 0,
    hidden: 0,
    firstListBytes: 1040,
    firstListTokens: 260,
    modernListBytes: 1200,
    allDirectBytes: 1000,
    allDirectTokens: 250,
    searchListed,
  });

  it('with every tool direct, says the list is larger without blaming a tool_search that is not listed', () => {
    expect(formatSummary(sized(false))[2]).toBe('first tools/list: 1,040 bytes (~260 tokens; 1,200 bytes for a 2026-07-28 client) vs 1,000 bytes all-direct (4% larger)');
  });

  it('with tool_search listed, names its index as the cost', () => {
    expect(formatSummary(sized(true))[2]).toMatch(/\(4% larger: the tool_search index costs more than the few tools it defers\)$/);
  });
});
