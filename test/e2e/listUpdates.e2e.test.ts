/**
 * No upstream list update is lost: an upstream that adds a tool and sends
 * list_changed while its own first tools/list answer is held back ends up, through the built CLI,
 * with the new tool in the client's list. Source: docs/tools.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startStdio, writeConfig, type Connected } from '../helpers/gateway.js';

describe('a list_changed during the first tools/list', () => {
  let gw: Connected;
  beforeAll(async () => {
    gw = await startStdio(writeConfig({ mcpServers: { late: { command: 'node', args: [fixture('lateTool.mjs')], exposure: 'direct' } } }));
  });
  afterAll(() => gw.close());

  it('is not dropped: the catalogue converges to the upstream’s current list', async () => {
    const names = async (): Promise<string[]> => (await gw.client.listTools()).tools.map((t) => t.name);
    const deadline = Date.now() + 15_000;
    let seen = await names();
    while (!seen.includes('late__late_tool') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await names();
    }
    expect(seen).toEqual(expect.arrayContaining(['late__early_tool', 'late__late_tool']));
    expect((await gw.client.callTool({ name: 'late__late_tool', arguments: {} })).isError).toBeFalsy();
  });
});
