/**
 * The whole path through the built CLI, over stdio and over Streamable HTTP, on real upstream servers
 * (server-filesystem, server-everything): list → tool_search → list_changed → re-list → call by real
 * name; call_tool; unknown and hidden names. Source: docs/tools.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { join } from 'node:path';
import { sandboxConfig, startHttp, startStdio, textOf, type HttpGateway } from '../helpers/gateway.js';

interface Setup {
  client: Client;
  sandbox: string;
}

/** Counts list_changed notifications a client receives. */
function watchListChanged(client: Client): { count: () => number; next: () => Promise<void> } {
  let count = 0;
  let waiters: (() => void)[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    count += 1;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  });
  return { count: () => count, next: () => new Promise((resolve) => waiters.push(resolve)) };
}

function promotionSuite(name: string, setup: () => Setup) {
  describe(name, () => {
    it('first tools/list holds direct and bridge tools only; the manifest names deferred tools', async () => {
      const { client } = setup();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['files__list_directory', 'tool_search', 'call_tool']);
      const search = tools.find((t) => t.name === 'tool_search');
      expect(search?.description).toContain('files__read_text_file');
      expect(search?.description).toContain('everything__echo');
      expect(search?.description).not.toContain('files__read_file(');
      expect(search?.description).not.toMatch(/files__move_file/);
    });

    it('tool_search promotes its strong matches, list_changed arrives, the re-list ends with them, and a real-name call reads the file', async () => {
      const { client, sandbox } = setup();
      await client.listTools();
      const changes = watchListChanged(client);
      const arrived = changes.next();
      const found = await client.callTool({ name: 'tool_search', arguments: { query: 'read the text contents of a file', limit: 3 } });
      const answered = (found.structuredContent as { tools: { name: string; parameters?: object }[] }).tools;
      expect(answered.map((t) => t.name)).toContain('files__read_text_file');
      expect(JSON.parse(textOf(found)).tools[0]).toHaveProperty('parameters');
      // Only the strong matches (those answered with their parameters) are promoted.
      const names = answered.filter((t) => t.parameters !== undefined).map((t) => t.name);
      expect(names[0]).toBe('files__read_text_file');
      expect(names.length).toBeLessThan(answered.length);
      await arrived;
      expect(changes.count()).toBe(1);
      const { tools } = await client.listTools();
      expect(tools.slice(0, 3).map((t) => t.name)).toEqual(['files__list_directory', 'tool_search', 'call_tool']);
      expect(tools.slice(3).map((t) => t.name)).toEqual(names);
      const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(sandbox, 'hello.txt') } });
      expect(read.isError).toBeFalsy();
      expect(textOf(read)).toBe('Hello from the sandbox!\n');
    });

    it('a search that promotes nothing new sends no list_changed', async () => {
      const { client } = setup();
      await client.listTools();
      await client.callTool({ name: 'tool_search', arguments: { query: 'echo a message', limit: 1 } });
      const changes = watchListChanged(client);
      await client.callTool({ name: 'tool_search', arguments: { query: 'echo a message', limit: 1 } });
      await new Promise((r) => setTimeout(r, 300));
      expect(changes.count()).toBe(0);
    });

    it('call_tool runs a deferred tool by qualified name with the same result', async () => {
      const { client } = setup();
      const result = await client.callTool({ name: 'call_tool', arguments: { name: 'everything__get-sum', arguments: { a: 2, b: 40 } } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('42');
      const direct = await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 40 } });
      expect(direct.content).toEqual(result.content);
    });

    it('an unknown name gets isError with close matches and a pointer to tool_search', async () => {
      const { client } = setup();
      const result = await client.callTool({ name: 'files__read_txt_file', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/Unknown tool "files__read_txt_file"/);
      expect(textOf(result)).toContain('files__read_text_file');
      expect(textOf(result)).toContain('tool_search');
      expect(textOf(result).match(/files__\w+/g)?.length ?? 0).toBeLessThanOrEqual(4);
    });

    it('a hidden name is answered exactly like an unknown one and never suggested', async () => {
      const { client, sandbox } = setup();
      const hidden = await client.callTool({ name: 'files__read_file', arguments: { path: join(sandbox, 'hello.txt') } });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden)).toMatch(/^Unknown tool "files__read_file"/);
      expect(textOf(hidden)).not.toMatch(/files__read_file[^"]/);
      const viaBridge = await client.callTool({ name: 'call_tool', arguments: { name: 'files__move_file', arguments: {} } });
      expect(viaBridge.isError).toBe(true);
      expect(textOf(viaBridge)).toMatch(/^Unknown tool "files__move_file"/);
    });
  });
}

describe('over stdio', () => {
  const state = {} as Setup & { close: () => Promise<void> };
  beforeAll(async () => {
    const { path, sandbox } = sandboxConfig();
    const gw = await startStdio(path);
    Object.assign(state, { client: gw.client, sandbox, close: gw.close });
  });
  afterAll(() => state.close());
  promotionSuite('stdio session', () => state);
});

describe('over Streamable HTTP', () => {
  let gateway: HttpGateway;
  const state = {} as Setup;
  beforeAll(async () => {
    const { path, sandbox } = sandboxConfig();
    gateway = await startHttp(path);
    state.client = await gateway.connect();
    state.sandbox = sandbox;
  });
  afterAll(async () => {
    expect(await gateway.stop()).toBe(0);
  });
  promotionSuite('http session', () => state);

  it('a real-name call whose arguments break the inputSchema promotes nothing; a valid one then promotes the tool', async () => {
    const client = await gateway.connect('client-bad-args');
    const before = (await client.listTools()).tools.map((t) => t.name);
    const changes = watchListChanged(client);
    const bad = await client.callTool({ name: 'everything__get-sum', arguments: { a: 'two', b: 40 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments for everything__get-sum/);
    await new Promise((r) => setTimeout(r, 300));
    expect(changes.count()).toBe(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
    const arrived = changes.next();
    const good = await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 40 } });
    expect(good.isError).toBeFalsy();
    await arrived;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...before, 'everything__get-sum']);
  });

  it('two HTTP sessions promote independently', async () => {
    const a = await gateway.connect('client-a');
    const b = await gateway.connect('client-b');
    await a.listTools();
    await b.listTools();
    await a.callTool({ name: 'tool_search', arguments: { query: 'get-tiny-image', limit: 1 } });
    const listA = (await a.listTools()).tools.map((t) => t.name);
    const listB = (await b.listTools()).tools.map((t) => t.name);
    expect(listA.at(-1)).toBe('everything__get-tiny-image');
    expect(listB).not.toContain('everything__get-tiny-image');
  });
});
