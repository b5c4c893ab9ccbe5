/**
 * The legacy era's GatewaySession (src/gateway/legacy/session.ts) in process: an SDK Client on an in-memory
 * transport pair, a real shelf, real admission, and an upstream caller that records what reached it.
 * What a client lists, what a search promotes and announces, how call_tool depends on the client's
 * name, and when a catalogue change is announced: each in milliseconds, without a process or socket.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { UpstreamTool } from '../../../src/catalog/types.js';
import { GatewaySession } from '../../../src/gateway/legacy/session.js';
import type { UpstreamDirectory } from '../../../src/gateway/types.js';
import { FILES, inProcess, MATH, NO_DIRECTORY, object, settle } from '../inProcess.js';

/** A session over `listings` and a Client named `clientName` connected to it. */
async function connect(clientName: string, listings = new Map([['files', FILES], ['math', MATH]]), directory: UpstreamDirectory = NO_DIRECTORY) {
  const { options, calls, events, relist } = inProcess(listings, directory);
  const session = new GatewaySession({ id: 'test-session', ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: clientName, version: '1.0.0' });
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void (listChanged += 1));
  await client.connect(clientSide);
  const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);
  return {
    session,
    client,
    names,
    calls,
    events,
    listChanged: () => listChanged,
    replaceShelf: (next: Map<string, UpstreamTool[]>) => {
      relist(next);
      session.catalogueChanged();
    },
    close: async () => {
      await client.close();
      await session.close();
    },
  };
}

describe('GatewaySession (legacy era)', () => {
  it('an unnamed client lists the direct tools, then tool_search and call_tool, and gets the instructions', async () => {
    const s = await connect('some-client');
    expect(await s.names()).toEqual(['files__read_text_file', 'tool_search', 'call_tool']);
    expect(s.client.getInstructions()).toBe('Use tool_search to find tools.');
    expect(s.session.clientName).toBe('some-client');
    expect(s.events.find((e) => e.event === 'tools_advertised')).toMatchObject({ session: 'test-session', era: 'legacy', direct: 1, deferred: 2, promoted: 0 });
    await s.close();
  });

  it('a client that re-lists on list_changed gets no call_tool', async () => {
    const s = await connect('Visual Studio Code');
    expect(await s.names()).toEqual(['files__read_text_file', 'tool_search']);
    await s.close();
  });

  it('a search promotes its strong matches after everything listed, with one list_changed; the same search again announces nothing', async () => {
    const s = await connect('Visual Studio Code');
    await s.names();
    await s.client.callTool({ name: 'tool_search', arguments: { query: 'add two numbers' } });
    await settle();
    expect(s.listChanged()).toBe(1);
    expect(await s.names()).toEqual(['files__read_text_file', 'tool_search', 'math__add']);
    expect(s.session.promotedTools).toEqual(['math__add']);
    await s.client.callTool({ name: 'tool_search', arguments: { query: 'add two numbers' } });
    await settle();
    expect(s.listChanged()).toBe(1);
    const called = await s.client.callTool({ name: 'math__add', arguments: { a: 1, b: 2 } });
    expect(called.content).toEqual([{ type: 'text', text: 'math/add ran' }]);
    expect(s.events.filter((e) => e.event === 'tool_called').at(-1)).toMatchObject({ origin: 'promoted' });
    await s.close();
  });

  it('a deferred tool called by its name from the manifest runs and is promoted', async () => {
    const s = await connect('Visual Studio Code');
    await s.names();
    const called = await s.client.callTool({ name: 'files__write_file', arguments: { path: 'a', content: 'b' } });
    expect(called.isError).not.toBe(true);
    expect(s.calls).toEqual(['files/write_file']);
    await settle();
    expect(await s.names()).toContain('files__write_file');
    await s.close();
  });

  it('a catalogue change is announced only when what this client lists changed', async () => {
    const s = await connect('Visual Studio Code');
    await s.names();
    // A rebuild over the same listings (an upstream re-listed, nothing new): nothing to announce.
    s.replaceShelf(new Map([['files', [...FILES]], ['math', [...MATH]]]));
    await settle();
    expect(s.listChanged()).toBe(0);
    // Another deferred tool: tool_search's manifest names it, so the list changed.
    s.replaceShelf(new Map([['files', FILES], ['math', [...MATH, { name: 'sub', description: 'Subtract two numbers.', inputSchema: object({}) }]]]));
    await settle();
    expect(s.listChanged()).toBe(1);
    // The direct tool's description changed: the list changed.
    s.replaceShelf(new Map([['files', [{ ...FILES[0]!, description: 'Read a file.' }, FILES[1]!]], ['math', MATH]]));
    await settle();
    expect(s.listChanged()).toBe(2);
    await s.close();
  });

  it('bad arguments are an isError result the model can act on, and reach no upstream', async () => {
    const s = await connect('some-client');
    const refused = await s.client.callTool({ name: 'files__read_text_file', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/path/);
    expect(s.calls).toEqual([]);
    await s.close();
  });
});

describe('pass-through of resources and prompts (src/gateway/passthrough.ts)', () => {
  /** Two upstreams with resources, one with prompts; records each request it was asked. */
  function directory() {
    const asked: string[] = [];
    const resources: Record<string, { uri: string; name: string }[]> = { files: [{ uri: 'file:///notes/a.txt', name: 'a.txt' }], math: [{ uri: 'math://constants/pi', name: 'pi' }] };
    const dir: UpstreamDirectory = {
      capabilities: () => [
        ['files', { resources: {} }],
        ['math', { resources: {}, prompts: {} }],
      ],
      request: async (server, method, params) => {
        asked.push(`${server} ${method} ${JSON.stringify(params ?? {})}`);
        if (method === 'resources/list') return { ok: true, result: { resources: resources[server] ?? [] } };
        if (method === 'resources/templates/list') return { ok: true, result: { resourceTemplates: [] } };
        if (method === 'resources/read') return { ok: true, result: { contents: [{ uri: params?.uri, text: `${server} has ${String(params?.uri)}` }] } };
        if (method === 'prompts/list') return { ok: true, result: { prompts: server === 'math' ? [{ name: 'explain', description: 'Explain a sum step by step.' }] : [] } };
        if (method === 'prompts/get') return { ok: true, result: { messages: [{ role: 'user', content: { type: 'text', text: `${server}/${String(params?.name)}` } }] } };
        return { ok: false, error: { code: -32601, message: `${method} not served` } };
      },
    };
    return { dir, asked };
  }

  it('advertises only the capabilities some upstream has, lists every upstream resource, and reads each from its own upstream', async () => {
    const { dir, asked } = directory();
    const s = await connect('some-client', undefined, dir);
    const caps = s.client.getServerCapabilities();
    expect(caps?.resources).toBeDefined();
    expect(caps?.prompts).toBeDefined();
    expect(caps?.completions).toBeUndefined();
    const listed = (await s.client.listResources()).resources;
    expect(listed.map((r) => r.name).sort()).toEqual(['a.txt', 'pi']);
    for (const resource of listed) {
      const read = await s.client.readResource({ uri: resource.uri });
      const owner = resource.name === 'pi' ? 'math' : 'files';
      expect(read.contents[0]).toMatchObject({ uri: resource.uri });
      expect((read.contents[0] as { text: string }).text).toMatch(new RegExp(`^${owner} has `));
    }
    expect(asked.filter((a) => a.includes('resources/read')).map((a) => a.split(' ')[0]).sort()).toEqual(['files', 'math']);
    await s.close();
  });

  it('prompts are named as tools are (server__name) and got from their own upstream under its own name', async () => {
    const { dir, asked } = directory();
    const s = await connect('some-client', undefined, dir);
    expect((await s.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['math__explain']);
    const got = await s.client.getPrompt({ name: 'math__explain' });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'math/explain' });
    expect(asked.some((a) => a.startsWith('math prompts/get {"name":"explain"'))).toBe(true);
    await expect(s.client.getPrompt({ name: 'math__nope' })).rejects.toThrow();
    await s.close();
  });

  it('with no upstream offering them, resources and prompts are not advertised', async () => {
    const s = await connect('some-client');
    const caps = s.client.getServerCapabilities();
    expect(caps?.resources).toBeUndefined();
    expect(caps?.prompts).toBeUndefined();
    await s.close();
  });
});
