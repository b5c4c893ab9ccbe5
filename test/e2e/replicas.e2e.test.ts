/**
 * Stateless replicas: two toolshelf processes with the same config, on two ports, sharing nothing,
 * serve one modern client whose requests alternate between them — discover on one, tools/list on
 * the other, tool_search on one, call_tool on the other. A call held for `input_required` is the one
 * thing bound to a process: its retry on the other replica is refused (-32602) saying to call again.
 * Source: docs/http.md; docs/protocol-eras.md (state: none, any replica can answer any request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixture, serverEntry, startHttp, textOf, writeConfig, type HttpGateway } from '../helpers/gateway.js';

describe('two replicas, one modern client, requests alternating', () => {
  let replicas: HttpGateway[];
  /** Which replica served each POSTed method, in order. */
  const served: { replica: number; method: string; name?: string }[] = [];
  let client: Client;

  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
        asker: { command: 'node', args: [fixture('asker.mjs')] },
      },
    });
    replicas = await Promise.all([startHttp(path), startHttp(path)]);
    let next = 0;
    const alternate = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      if (init?.method !== 'POST') return fetch(input, init);
      const replica = next++ % 2;
      const body = JSON.parse(String(init.body)) as { method?: string; params?: { name?: string } };
      if (body.method) served.push({ replica, method: body.method, ...(body.params?.name ? { name: body.params.name } : {}) });
      return fetch((replicas[replica] as HttpGateway).url, init);
    };
    client = new Client({ name: 'replica-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { sampling: {} } });
    client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'a summary' } }));
    await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:9/mcp'), { fetch: alternate }));
  }, 60_000);
  afterAll(async () => {
    await client.close();
    await Promise.all(replicas.map((r) => r.stop()));
  });

  it('search on one replica, call_tool on the other, lists byte-identical from both', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    const lists = [await client.listTools(), await client.listTools()];
    expect(JSON.stringify(lists[0])).toBe(JSON.stringify(lists[1]));

    served.length = 0;
    const found = await client.callTool({ name: 'tool_search', arguments: { query: 'add two numbers' } });
    const name = (JSON.parse(textOf(found)) as { tools: { name: string }[] }).tools[0]?.name;
    expect(name).toBe('everything__get-sum');
    const sum = await client.callTool({ name: 'call_tool', arguments: { name, arguments: { a: 2, b: 3 } } });
    expect(textOf(sum)).toMatch(/5/);
    const byName = await client.callTool({ name: 'everything__get-sum', arguments: { a: 4, b: 5 } });
    expect(textOf(byName)).toMatch(/9/);

    const calls = served.filter((s) => s.method === 'tools/call');
    expect(calls.map((c) => c.name)).toEqual(['tool_search', 'call_tool', 'everything__get-sum']);
    expect(calls[0]?.replica).not.toBe(calls[1]?.replica);
    expect(calls[1]?.replica).not.toBe(calls[2]?.replica);
  });

  it('an input_required retry that lands on the other replica is refused (-32602) and told to call again (the held call stays where it started)', async () => {
    await expect(client.callTool({ name: 'call_tool', arguments: { name: 'asker__summarize' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/another toolshelf instance.*Call the tool again/),
    });
    const rounds = served.filter((s) => s.name === 'call_tool').slice(-2);
    expect(rounds.map((r) => r.replica).sort()).toEqual([0, 1]);
  });
});
