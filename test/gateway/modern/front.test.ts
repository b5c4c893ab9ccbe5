/**
 * The 2026-07-28 era's front (src/gateway/modern/front.ts) in process: the Server it builds for a
 * stdio connection, connected on an in-memory transport pair to an SDK Client pinned to 2026-07-28.
 * The list is the same before and after a search (nothing is promoted), found tools run through
 * call_tool or by name, a catalogue change reaches a listening client, and the front holds no state
 * between requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { createModernFront, type ModernFront } from '../../../src/gateway/modern/front.js';
import { FILES, inProcess, MATH, object, settle } from '../inProcess.js';

const fronts: ModernFront[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(fronts.splice(0).map((f) => f.close()));
});

/** A modern front over the in-process options and a pinned 2026-07-28 Client on one of its stdio connections. */
async function connect(clientName = 'modern-unit') {
  const setup = inProcess();
  const front = createModernFront(() => setup.options);
  fronts.push(front);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // As serveStream does for a stdio connection: the SDK's era entry hands a server/discover opening to the modern Server.
  const connection = front.stdioConnection();
  serveEras(({ era }) => {
    if (era !== 'modern') throw new Error('this test speaks 2026-07-28 only');
    return connection.server();
  }, { transport: serverSide });
  let toolsChanged = 0;
  const client = new Client(
    { name: clientName, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, listChanged: { tools: { autoRefresh: false, onChanged: () => void (toolsChanged += 1) } } },
  );
  clients.push(client);
  await client.connect(clientSide);
  return { ...setup, front, client, toolsChanged: () => toolsChanged, names: async () => (await client.listTools()).tools.map((t) => t.name) };
}

describe('modern front', () => {
  it('lists the direct tools, tool_search and call_tool; a search changes nothing in the list', async () => {
    const s = await connect();
    const before = await s.names();
    expect(before).toEqual(['files__read_text_file', 'tool_search', 'call_tool']);
    const found = await s.client.callTool({ name: 'tool_search', arguments: { query: 'add two numbers' } });
    expect(JSON.stringify(found.content)).toContain('math__add');
    expect(await s.names()).toEqual(before);
    expect(s.events.filter((e) => e.event === 'tools_advertised').every((e) => e.event === 'tools_advertised' && e.era === 'modern' && e.promoted === 0)).toBe(true);
  });

  it('a found tool runs through call_tool and by its name, with the same checks', async () => {
    const s = await connect();
    const bridged = await s.client.callTool({ name: 'call_tool', arguments: { name: 'math__add', arguments: { a: 1, b: 2 } } });
    expect(bridged.content).toEqual([{ type: 'text', text: 'math/add ran' }]);
    const direct = await s.client.callTool({ name: 'math__add', arguments: { a: 1, b: 2 } });
    expect(direct.content).toEqual([{ type: 'text', text: 'math/add ran' }]);
    const refused = await s.client.callTool({ name: 'math__add', arguments: { a: 'one' } });
    expect(refused.isError).toBe(true);
    expect(s.calls).toEqual(['math/add', 'math/add']);
    expect(s.events.filter((e) => e.event === 'tool_called').map((e) => e.event === 'tool_called' && e.origin)).toEqual(['bridge', 'catalog', 'catalog']);
  });

  it('tools/list carries the cache hint and is the same bytes on every request', async () => {
    const s = await connect();
    const first = await s.client.listTools();
    const second = await s.client.listTools();
    expect(JSON.stringify(first.tools)).toBe(JSON.stringify(second.tools));
    expect(first).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
  });

  it('a catalogue change that changes the modern list reaches a listening client; one that does not, does not', async () => {
    const s = await connect();
    await s.client.listTools();
    const grown = (names: string[]) => new Map([['files', FILES], ['math', [...MATH, ...names.map((name) => ({ name, description: `The ${name} of two numbers.`, inputSchema: object({}) }))]]]);
    const change = async (next: ReturnType<typeof grown>, count: number): Promise<number> => {
      s.relist(next);
      s.front.catalogueChanged();
      for (let i = 0; i < 500 && s.toolsChanged() < count; i += 1) await settle();
      return s.toolsChanged();
    };
    expect(await change(grown(['difference']), 1)).toBe(1);
    // The same tools again: nothing is sent. Notifications keep their order, so had it been sent, the next change would count 3.
    s.relist(grown(['difference']));
    s.front.catalogueChanged();
    expect(await change(grown(['difference', 'product']), 2)).toBe(2);
  });
});
