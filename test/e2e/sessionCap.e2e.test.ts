/**
 * Abandoned sessions never lock out new clients, through the built CLI with real
 * SDK Clients: at a cap of 3 (TOOLSHELF_MAX_SESSIONS), clients that close without DELETE (the SDK's
 * close() sends none) leave idle sessions; a new client still gets in and works, the least recently
 * used idle session is closed, and its id then gets 404. Source: docs/robustness.md; MCP spec, Transports ›
 * Streamable HTTP (session management).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixture, textOf, writeConfig } from '../helpers/gateway.js';
import { openRawHttp, post, PROTOCOL_VERSION, spawnHttp, type SpawnedHttp } from '../gateway/wire.js';

describe('the HTTP session cap', () => {
  let gateway: SpawnedHttp;
  beforeAll(async () => {
    const config = writeConfig({ mcpServers: { counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' } } });
    gateway = await spawnHttp(config, ['--http', '0'], { TOOLSHELF_MAX_SESSIONS: '3' });
  });
  afterAll(() => gateway.stop());

  const connect = async (): Promise<{ client: Client; id: string }> => {
    const transport = new StreamableHTTPClientTransport(new URL(gateway.url));
    const client = new Client({ name: 'cap-e2e', version: '1.0.0' });
    await client.connect(transport);
    return { client, id: transport.sessionId as string };
  };
  const pingWith = async (id: string): Promise<number> =>
    (await post(gateway.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION })).status;

  it('lets a new client in after three clients vanished without DELETE, closing the least recently used', async () => {
    const [first, second, third] = [await connect(), await connect(), await connect()];
    await first!.client.close();
    // The other two were used after the first went away, so the first is the least recently used.
    await second!.client.ping();
    await third!.client.ping();
    await second!.client.close();
    await third!.client.close();

    const fresh = await connect();
    expect(textOf(await fresh.client.callTool({ name: 'counter__call_count', arguments: {} }))).toMatch(/^\d+$/);
    expect(await pingWith(first!.id)).toBe(404);
    expect(await pingWith(second!.id)).toBe(200);
    await fresh.client.close();
  });

  it('keeps admitting well-behaved clients, one after another, at the cap', async () => {
    for (let i = 0; i < 5; i++) {
      const { client } = await connect();
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('counter__call_count');
      await client.close();
    }
    await expect(openRawHttp(gateway.url)).resolves.toBeDefined();
  });
});
