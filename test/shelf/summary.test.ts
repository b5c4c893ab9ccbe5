/** The all-direct figure (shelf/summary.ts): each upstream's `{"tools":[…]}` summed, and never a failed start over a hostile tool. */
import { describe, expect, it } from 'vitest';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { allDirectBytes } from '../../src/shelf/summary.js';

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
