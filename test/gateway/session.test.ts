/**
 * The legacy era's GatewaySession (src/gateway/session.ts) in process: an SDK Client on an in-memory
 * transport pair, a real shelf, real admission, and an upstream caller that records what reached it.
 * What a client lists, what a search promotes and announces, how call_tool depends on the client's
 * name, and when a catalogue change is announced: each in milliseconds, without a process or socket.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { GatewaySession, sessionSettings } from '../../src/gateway/session.js';
import { UpstreamSubscriptions } from '../../src/gateway/subscriptions.js';
import type { Shelf } from '../../src/gateway/types.js';
import { Admission } from '../../src/schema/admit.js';
import { jsonBytes } from '../../src/schema/measure.js';
import { buildShelf } from '../../src/shelf.js';
import type { TraceEvent } from '../../src/trace/events.js';
import { silentLogger } from '../../src/trace/log.js';

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });
const FILES: UpstreamTool[] = [
  { name: 'read_text_file', description: 'Read a text file from disk.', inputSchema: object({ path: { type: 'string' } }, ['path']) },
  { name: 'write_file', description: 'Write a text file to disk.', inputSchema: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']) },
];
const MATH: UpstreamTool[] = [{ name: 'add', description: 'Add two numbers and return their sum.', inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) }];

function configOf(json: unknown): Config {
  const parsed = parseConfig(JSON.stringify(json), {}, '/');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

const CONFIG = configOf({ mcpServers: { files: { command: 'x', tools: { read_text_file: { exposure: 'direct' } } }, math: { command: 'y' } } });

/** A session over `listings` and a Client named `clientName` connected to it. */
async function connect(clientName: string, listings = new Map([['files', FILES], ['math', MATH]])) {
  let shelf: Shelf = buildShelf(CONFIG, listings, undefined);
  const calls: string[] = [];
  const events: TraceEvent[] = [];
  const admission = new Admission();
  const session = new GatewaySession({
    id: 'test-session',
    version: '0.0.0-test',
    shelf: () => shelf,
    caller: {
      callTool: async (server, tool) => {
        calls.push(`${server}/${tool}`);
        return { kind: 'ok', result: { content: [{ type: 'text', text: `${server}/${tool} ran` }] } };
      },
    },
    admit: (entry, args) => {
      const verdict = admission.check(entry.qualifiedName, entry.tool.inputSchema, args);
      return verdict.ok ? { ok: true, args } : { ok: false, text: verdict.text };
    },
    trace: { record: (e) => void events.push(e), close: async () => undefined },
    logger: silentLogger,
    instructions: 'Use tool_search to find tools.',
    settings: sessionSettings(CONFIG),
    measure: (value) => ({ bytes: jsonBytes(value), tokens: Math.ceil(jsonBytes(value) / 4) }),
    passthrough: {
      directory: { capabilities: () => [], request: async () => ({ ok: false, error: { code: -32601, message: 'no upstream' } }) },
      routes: { resources: new Map(), prompts: new Map(), templates: [] },
      naming: { ...CONFIG.naming, prefixes: ['files', 'math'] },
      prefixed: () => true,
      upstreamSubscriptions: new UpstreamSubscriptions(async () => undefined),
    },
  });
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
      shelf = buildShelf(CONFIG, next, undefined);
      session.catalogueChanged();
    },
    close: async () => {
      await client.close();
      await session.close();
    },
  };
}

/** Lets notifications in flight on the in-memory pair arrive. */
const settle = () => new Promise((r) => setTimeout(r, 20));

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
