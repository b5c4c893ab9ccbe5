/**
 * Ranking under flooding through the real CLI (docs/security.md "Ranking under flooding"): fifty
 * keyword-stuffed tools on one upstream (flood.mjs) beside server-filesystem, -memory and
 * -everything. The flooding server is named in a warning at start; it holds at most 2 of a search's
 * top 5 and is never first for an everyday query; a query that names one of its tools or the server
 * itself is not capped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, sandboxConfig, serverEntry, startStdio, type Connected } from '../helpers/gateway.js';

type Answer = { tools: { name: string }[] };

describe('a flooding upstream through the gateway', () => {
  let gw: Connected;
  const search = async (query: string, limit = 5): Promise<string[]> =>
    ((await gw.client.callTool({ name: 'tool_search', arguments: { query, limit } })).structuredContent as unknown as Answer).tools.map((t) => t.name);
  const flood = (names: readonly string[]): number => names.filter((n) => n.startsWith('helper__')).length;

  beforeAll(async () => {
    const { path } = sandboxConfig({}, {
      memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: '/dev/null' } },
      helper: { command: 'node', args: [fixture('flood.mjs')] },
    });
    gw = await startStdio(path);
  }, 60_000);
  afterAll(async () => {
    await gw.close();
  });

  it('the flooding server is named in a warning at start', () => {
    expect(gw.stderr.join('\n')).toMatch(/upstream "helper" brings 50 searchable tools, more than 3× the others' median/);
  });

  it('everyday queries: at most 2 of the top 5 from the flood, never first', async () => {
    for (const query of ['write a file', 'search for files', 'create a folder', 'echo a message', 'add two numbers']) {
      const names = await search(query);
      expect(names.length, query).toBeGreaterThanOrEqual(3);
      expect(flood(names), query).toBeLessThanOrEqual(2);
      expect(names[0], query).not.toMatch(/^helper__/);
    }
    const ten = await search('write a file', 10);
    expect(flood(ten)).toBeLessThanOrEqual(3);
  });

  it('a query naming one of its tools, or the server, is not capped', async () => {
    expect((await search('helper__assist_read_0'))[0]).toBe('helper__assist_read_0');
    expect((await search('assist_write_1'))[0]).toBe('helper__assist_write_1');
    expect(flood(await search('helper'))).toBe(5);
  });
});
