/**
 * What upstreams tell modern (2026-07-28) clients, through the built CLI over stdio and Streamable
 * HTTP with real v2 SDK Clients (modern, and legacy beside them), against the `notifier.mjs` fixture
 * spoken to in each era:
 * - `notifications/resources/updated` reaches a modern client that named the URI in its
 *   `subscriptions/listen` filter, and only the clients (of either era) subscribed to that URI; one
 *   client's stream ending does not end another's updates;
 * - an upstream's log messages during a call reach that call's client on the call's own stream, at the
 *   level its `_meta` asked for, and no other client; without a level, none;
 * - a modern `tools/list` is traced (`tools_advertised`, era `modern`) like a legacy one, with no
 *   credential in the trace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { alive, sharedInstances, cliPath, fixture, startHttp, tempDir, textOf, waitFor, writeConfig, type HttpGateway } from '../helpers/gateway.js';

const SECRET = 'sk-notify-test-0123456789abcdef';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

type Note = { method: string; params: Record<string, unknown> };

/** A client that records resource updates and log messages it receives. */
function recording(client: Client): { updates: string[]; logs: Note['params'][] } {
  const seen = { updates: [] as string[], logs: [] as Note['params'][] };
  client.setNotificationHandler('notifications/resources/updated', (n) => void seen.updates.push(n.params.uri));
  client.setNotificationHandler('notifications/message', (n) => void seen.logs.push(n.params as Note['params']));
  return seen;
}

/** How many lines a fixture's log file holds (0 before it exists). */
const lineCount = (path: string): number => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0);

const modernClient = (name: string): Client => new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });

const upstreamEras = ['legacy', 'modern'] as const;
const transports = ['stdio', 'http'] as const;

describe.each(transports.flatMap((t) => upstreamEras.map((e) => [t, e] as const)))('modern clients over %s, %s upstream', (transport, era) => {
  let gateway: HttpGateway | undefined;
  let tracePath: string;
  const clients: Client[] = [];
  /** Connects a modern client: to the HTTP gateway, or over stdio to a gateway of its own. */
  let connect: (name: string) => Promise<Client>;
  beforeAll(async () => {
    const dir = tempDir();
    tracePath = join(dir, 'trace.jsonl');
    const notifier = { command: 'node', args: [fixture('notifier.mjs')], env: { NOTIFIER_TOKEN: SECRET }, exposure: 'direct', protocol: era };
    const path = writeConfig({ mcpServers: { notifier } }, dir);
    if (transport === 'http') {
      gateway = await startHttp(path, ['--trace', tracePath]);
      connect = async (name) => {
        const client = modernClient(name);
        await client.connect(new StreamableHTTPClientTransport(new URL(gateway!.url)));
        clients.push(client);
        return client;
      };
    } else {
      connect = async (name) => {
        const client = modernClient(name);
        const env = { ...process.env } as Record<string, string>;
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', path, '--trace', tracePath], env, stderr: 'ignore' }));
        clients.push(client);
        return client;
      };
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gateway?.stop();
  });

  it('resources/updated reaches the modern client that listens to that URI, and no other', async () => {
    const a = await connect('listener-a');
    const b = await connect('listener-b');
    expect(a.getProtocolEra()).toBe('modern');
    const seenA = recording(a);
    const seenB = recording(b);
    const subA = await a.listen({ resourceSubscriptions: ['note://a'] });
    const subB = await b.listen({ resourceSubscriptions: ['note://b'] });
    expect(subA.honoredFilter).toEqual({ resourceSubscriptions: ['note://a'] });
    expect(subB.honoredFilter).toEqual({ resourceSubscriptions: ['note://b'] });
    // The stdio gateways are separate processes with an upstream each: each client touches through its own.
    const touch = (client: Client, uri: string): Promise<unknown> => client.callTool({ name: 'notifier__touch', arguments: { uri } });

    await touch(a, 'note://a');
    expect(await waitFor(() => seenA.updates.length === 1)).toBe(true);
    await touch(b, 'note://b');
    expect(await waitFor(() => seenB.updates.length === 1)).toBe(true);
    await touch(a, 'note://a');
    expect(await waitFor(() => seenA.updates.length === 2)).toBe(true);
    expect(seenA.updates).toEqual(['note://a', 'note://a']);
    expect(seenB.updates).toEqual(['note://b']);
    await subA.close();
    await subB.close();
  });

  it('a subscription outlives a restart of the upstream: the new process is subscribed again', async () => {
    const a = await connect('survivor');
    const seen = recording(a);
    const sub = await a.listen({ resourceSubscriptions: ['note://a'] });
    expect((await a.callTool({ name: 'notifier__crash', arguments: {} })).isError).toBe(true);
    // Back after its backoff (about a second): touch until the new process answers.
    let touched = false;
    for (let i = 0; i < 100 && !touched; i++) {
      touched = textOf(await a.callTool({ name: 'notifier__touch', arguments: { uri: 'note://a' } })) === 'touched note://a';
      if (!touched) await new Promise((r) => setTimeout(r, 200));
    }
    expect(touched).toBe(true);
    expect(await waitFor(() => seen.updates.length === 1)).toBe(true);
    await sub.close();
  });

  it('an upstream log during a call goes to that call, at the level its _meta asked for; none without one, none to others', async () => {
    const a = await connect('logger-a');
    const b = await connect('logger-b');
    const seenA = recording(a);
    const seenB = recording(b);
    const said = await a.callTool({ name: 'notifier__chatty', arguments: { text: 'one' }, _meta: { [LOG_LEVEL]: 'info' } });
    expect(textOf(said)).toBe('said one');
    expect(seenA.logs.map((l) => [l.level, l.data, l.logger])).toEqual([
      ['info', 'info: one', 'notifier/chat'],
      ['warning', 'warning: one', 'notifier/chat'],
    ]);
    expect(textOf(await b.callTool({ name: 'notifier__chatty', arguments: { text: 'two' } }))).toBe('said two');
    expect(textOf(await a.callTool({ name: 'notifier__chatty', arguments: { text: 'three' }, _meta: { [LOG_LEVEL]: 'debug' } }))).toBe('said three');
    expect(seenA.logs.map((l) => l.data)).toEqual(['info: one', 'warning: one', 'debug: three', 'info: three', 'warning: three']);
    expect(seenB.logs).toEqual([]);
  });

  it('modern tools/list is traced with its era, and the trace holds no credential', async () => {
    const a = await connect('tracer');
    const listed = await a.listTools();
    const events = (): Record<string, unknown>[] => readFileSync(tracePath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(await waitFor(() => events().some((e) => e.event === 'tools_advertised' && e.era === 'modern'))).toBe(true);
    const advertised = events().filter((e) => e.event === 'tools_advertised' && e.era === 'modern').at(-1)!;
    expect(advertised).toMatchObject({ session: 'modern', direct: 3, deferred: 0, promoted: 0, schemaBytes: JSON.stringify({ tools: listed.tools }).length });
    expect(readFileSync(tracePath, 'utf8')).not.toContain(SECRET);
  });
});

describe('legacy and modern clients of one HTTP gateway share an upstream subscription without crossing', () => {
  let gateway: HttpGateway;
  let tracePath: string;
  beforeAll(async () => {
    const dir = tempDir();
    tracePath = join(dir, 'trace.jsonl');
    gateway = await startHttp(writeConfig({ mcpServers: { notifier: { command: 'node', args: [fixture('notifier.mjs')], exposure: 'direct', protocol: 'legacy' } } }, dir), ['--trace', tracePath]);
  }, 60_000);
  afterAll(async () => {
    await gateway.stop();
  });

  it('both get note://a; the modern stream ending leaves the legacy subscription working; the legacy tools/list is traced as legacy', async () => {
    const legacy = await gateway.connect('legacy-listener');
    const seenLegacy = recording(legacy);
    await legacy.subscribeResource({ uri: 'note://a' });
    const modern = modernClient('modern-listener');
    await modern.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const seenModern = recording(modern);
    const sub = await modern.listen({ resourceSubscriptions: ['note://a', 'note://nowhere'] });
    // A URI no upstream owns is not promised in the acknowledgment.
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: ['note://a'] });

    await modern.callTool({ name: 'notifier__touch', arguments: { uri: 'note://a' } });
    expect(await waitFor(() => seenLegacy.updates.length === 1 && seenModern.updates.length === 1)).toBe(true);
    // A log during the modern client's call (no level asked) reaches nobody: not the legacy session either.
    await modern.callTool({ name: 'notifier__chatty', arguments: { text: 'quiet' } });
    await sub.close();
    await legacy.callTool({ name: 'notifier__touch', arguments: { uri: 'note://a' } });
    expect(await waitFor(() => seenLegacy.updates.length === 2)).toBe(true);
    expect(seenModern.updates).toEqual(['note://a']);
    expect(seenLegacy.logs.filter((l) => String(l.data).includes('quiet'))).toEqual([]);
    await legacy.listTools();
    await modern.listTools();
    const eras = (): unknown[] => readFileSync(tracePath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === 'tools_advertised').map((e) => [e.session === 'modern', e.era]);
    expect(await waitFor(() => eras().length >= 2)).toBe(true);
    expect(eras()).toEqual(expect.arrayContaining([[false, 'legacy'], [true, 'modern']]));
    await modern.close();
  });
});

describe('modern stdio clients of one shared instance', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    const running = sharedInstances().filter(alive);
    for (const pid of running) process.kill(pid, 'SIGTERM');
    await waitFor(() => !running.some(alive), 20_000);
  });

  it('each gets the updates of its own listen filter only, through one upstream', async () => {
    const path = writeConfig({ mcpServers: { notifier: { command: 'node', args: [fixture('notifier.mjs')], exposure: 'direct', protocol: 'legacy' } }, share: { idleExitMs: 300 } });
    const connect = async (name: string): Promise<Client> => {
      const client = modernClient(name);
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', path, '--share'], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
      clients.push(client);
      return client;
    };
    const a = await connect('shared-a');
    const b = await connect('shared-b');
    expect(sharedInstances()).toHaveLength(1);
    const seenA = recording(a);
    const seenB = recording(b);
    await a.listen({ resourceSubscriptions: ['note://a'] });
    const subB = await b.listen({ resourceSubscriptions: ['note://b', 'note://a'] });
    await a.callTool({ name: 'notifier__touch', arguments: { uri: 'note://b' } });
    expect(await waitFor(() => seenB.updates.length === 1)).toBe(true);
    // B's stream ends: note://a is still held by A, so A keeps its updates.
    await subB.close();
    await b.callTool({ name: 'notifier__touch', arguments: { uri: 'note://a' } });
    expect(await waitFor(() => seenA.updates.length === 1)).toBe(true);
    await a.callTool({ name: 'notifier__touch', arguments: { uri: 'note://b' } });
    await a.callTool({ name: 'notifier__touch', arguments: { uri: 'note://a' } });
    expect(await waitFor(() => seenA.updates.length === 2)).toBe(true);
    expect(seenA.updates).toEqual(['note://a', 'note://a']);
    expect(seenB.updates).toEqual(['note://b']);
  });
});

describe('legacy clients of one HTTP gateway: an upstream log during a call reaches that call’s client alone', () => {
  let gateway: HttpGateway;
  beforeAll(async () => {
    gateway = await startHttp(writeConfig({ mcpServers: { notifier: { command: 'node', args: [fixture('notifier.mjs')], exposure: 'direct', protocol: 'legacy' } } }));
  }, 60_000);
  afterAll(async () => {
    await gateway.stop();
  });

  it('A sets the level and calls chatty: A gets the three lines, B none; B’s own call then gets B’s lines alone', async () => {
    const a = await gateway.connect('legacy-logger-a');
    const b = await gateway.connect('legacy-logger-b');
    const seenA = recording(a);
    const seenB = recording(b);
    await a.setLoggingLevel('debug');
    expect(textOf(await a.callTool({ name: 'notifier__chatty', arguments: { text: 'private to a' } }))).toBe('said private to a');
    expect(await waitFor(() => seenA.logs.length === 3)).toBe(true);
    expect(seenA.logs.map((l) => [l.level, l.data, l.logger])).toEqual([
      ['debug', 'debug: private to a', 'notifier/chat'],
      ['info', 'info: private to a', 'notifier/chat'],
      ['warning', 'warning: private to a', 'notifier/chat'],
    ]);
    // B's own call afterwards: its logs are B's, and A's never arrived before them.
    expect(textOf(await b.callTool({ name: 'notifier__chatty', arguments: { text: 'for b' } }))).toBe('said for b');
    expect(await waitFor(() => seenB.logs.length === 3)).toBe(true);
    expect(seenB.logs.map((l) => l.data)).toEqual(['debug: for b', 'info: for b', 'warning: for b']);
    expect(seenA.logs).toHaveLength(3);
  });

  it('each session gets its own logging/setLevel: B at warning gets only warning lines while A at debug gets all', async () => {
    const a = await gateway.connect('level-a');
    const b = await gateway.connect('level-b');
    const seenA = recording(a);
    const seenB = recording(b);
    await b.setLoggingLevel('warning');
    // A's level is the upstream's now (one upstream for every client): toolshelf filters by B's own.
    await a.setLoggingLevel('debug');
    expect(textOf(await b.callTool({ name: 'notifier__chatty', arguments: { text: 'b' } }))).toBe('said b');
    expect(textOf(await a.callTool({ name: 'notifier__chatty', arguments: { text: 'a' } }))).toBe('said a');
    expect(await waitFor(() => seenA.logs.length === 3)).toBe(true);
    expect(seenA.logs.map((l) => l.data)).toEqual(['debug: a', 'info: a', 'warning: a']);
    expect(seenB.logs.map((l) => l.data)).toEqual(['warning: b']);
  });
});

describe('a listen filter naming many unknown URIs costs one refresh of the resource routes', () => {
  let gateway: HttpGateway;
  let lists: string;
  beforeAll(async () => {
    const dir = tempDir();
    lists = join(dir, 'lists.log');
    gateway = await startHttp(writeConfig({ mcpServers: { notifier: { command: 'node', args: [fixture('notifier.mjs')], env: { LIST_LOG: lists }, exposure: 'direct', protocol: 'legacy' } } }, dir));
  }, 60_000);
  afterAll(async () => {
    await gateway.stop();
  });

  it('500 unknown URIs and note://a: only note://a is acknowledged, after at most two resources/list upstream (it was one per URI)', async () => {
    const modern = modernClient('many-uris');
    await modern.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const count = (): number => lineCount(lists);
    const before = count();
    const uris = [...Array.from({ length: 500 }, (_, i) => `nowhere://${i}`), 'note://a'];
    const sub = await modern.listen({ resourceSubscriptions: uris });
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: ['note://a'] });
    expect(count() - before).toBeLessThanOrEqual(2);
    await sub.close();
    await modern.close();
  });
});

describe('a listen filter naming many URIs of a modern upstream costs one upstream re-listen, not one per URI', () => {
  let gateway: HttpGateway;
  let listens: string;
  beforeAll(async () => {
    const dir = tempDir();
    listens = join(dir, 'listens.log');
    gateway = await startHttp(writeConfig({ mcpServers: { m: { command: 'node', args: [fixture('modernOnly.mjs')], env: { LISTEN_LOG: listens }, exposure: 'direct' } } }, dir));
  }, 60_000);
  afterAll(async () => {
    await gateway.stop();
  });

  it('200 URIs of its template: at most a few subscriptions/listen upstream (it was one per URI, each naming all so far: quadratic)', async () => {
    const modern = modernClient('many-template-uris');
    await modern.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const count = (): number => lineCount(listens);
    const before = count();
    const sub = await modern.listen({ resourceSubscriptions: Array.from({ length: 200 }, (_, i) => `modern://notes/n${i}`) });
    // The fixture offers no resource subscriptions: none is honored, each checked.
    expect(sub.honoredFilter).toEqual({});
    expect(count() - before).toBeLessThanOrEqual(4);
    await sub.close();
    await modern.close();
  });
});
