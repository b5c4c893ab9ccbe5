/**
 * Views (docs/views.md) through the built CLI with real SDK clients of both eras: over HTTP at
 * /mcp/NAME (one gateway, bearer token on) and over stdio with --view, on one shared instance whose
 * clients each see their own view over one set of upstream processes. A tool outside a client's view
 * is unknown to it: absent from its list, search, manifest and instructions, never suggested, and
 * refused as an unknown name is. Trace events name the client's view. A config reload changes a view
 * for the clients on it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { alive, sharedInstances, cliPath, fixture, startHttp, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected, type HttpGateway } from '../helpers/gateway.js';

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object', properties: {} } });
const TOOLS = {
  files: [tool('read_text_file', 'Reads a text file.'), tool('write_file', 'Writes a file to disk.'), tool('delete_file', 'Deletes a file from disk.')],
  git: [tool('git_status', 'Shows the git working tree status.'), tool('git_delete_branch', 'Deletes a git branch.')],
  web: [tool('fetch', 'Fetches a web page by URL.'), tool('search_web', 'Searches the web.')],
};
const VIEWS = {
  coding: { servers: ['files', 'git'], exclude: ['*delete*'], exposure: { files__read_text_file: 'direct' } },
  chat: { servers: ['web'], exposure: { 'web__*': 'direct' } },
};

/** A config of three recorder upstreams (each start appended to its pid file) and an instructed one, with `views`. */
function setup(): { dir: string; path: string; write: (views: unknown) => void; starts: (server: string) => number } {
  const dir = tempDir();
  const servers = Object.fromEntries(
    Object.entries(TOOLS).map(([key, tools]) => {
      writeFileSync(join(dir, `${key}.json`), JSON.stringify(tools));
      return [key, { command: 'node', args: [fixture('recorder.mjs')], env: { RECORD_PIDS: join(dir, `${key}.pids`), TOOLS_FILE: join(dir, `${key}.json`) } }];
    }),
  );
  const notes = { command: 'node', args: [fixture('instructed.mjs')], env: { INSTRUCTIONS: 'The notes server keeps notes short.' } };
  const configOf = (views: unknown) => ({ mcpServers: { ...servers, notes }, views, share: { idleExitMs: 300 } });
  const path = writeConfig(configOf(VIEWS), dir);
  // Saved by rename, as editors do, so the watcher never reads a half-written file.
  const write = (views: unknown): void => {
    writeFileSync(`${path}.new`, JSON.stringify(configOf(views), null, 2));
    renameSync(`${path}.new`, path);
  };
  const starts = (server: string): number => (existsSync(join(dir, `${server}.pids`)) ? readFileSync(join(dir, `${server}.pids`), 'utf8').split('\n').filter(Boolean).length : 0);
  return { dir, path, write, starts };
}

const upstreamNames = (tools: { name: string }[]): string[] => tools.map((t) => t.name).filter((n) => n.includes('__')).sort();
const modernOptions = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

/** Every check a view's client must pass: what it lists, finds, is told, and may call. */
async function expectCodingView(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(upstreamNames(tools)).toEqual(['files__read_text_file']);
  const search = tools.find((t) => t.name === 'tool_search');
  expect(search?.description).toContain('files__write_file');
  expect(search?.description).not.toMatch(/web__|delete|notes__/);
  expect(client.getInstructions() ?? '').not.toContain('notes server');
  const found = async (query: string): Promise<string[]> => {
    const answer = JSON.parse(textOf(await client.callTool({ name: 'tool_search', arguments: { query } }))) as { tools: { name: string }[] };
    return answer.tools.map((t) => t.name);
  };
  expect(await found('write a file')).toContain('files__write_file');
  expect(await found('fetch a web page')).not.toContain('web__fetch');
  expect(await found('delete a branch')).toEqual([]);
  expect(textOf(await client.callTool({ name: 'files__read_text_file', arguments: {} }))).toMatch(/^read_text_file from \d+/);
  expect(textOf(await client.callTool({ name: 'git__git_status', arguments: {} }))).toMatch(/^git_status from \d+/);
  // Outside the view: answered as an unknown name is, word for word, with nothing of other views suggested.
  const outside = await client.callTool({ name: 'web__fetch', arguments: {} });
  const unknown = await client.callTool({ name: 'qqq__qqqqq', arguments: {} });
  expect(outside.isError).toBe(true);
  expect(textOf(outside).replace('web__fetch', 'NAME')).toBe(textOf(unknown).replace('qqq__qqqqq', 'NAME'));
  for (const near of ['web__fetc', 'files__delete_fil', 'git__git_delete_branc']) {
    expect(textOf(await client.callTool({ name: near, arguments: {} }))).not.toMatch(/web__fetch|delete_file|delete_branch/);
  }
}

async function expectChatView(client: Client): Promise<void> {
  expect(upstreamNames((await client.listTools()).tools)).toEqual(['web__fetch', 'web__search_web']);
  expect(textOf(await client.callTool({ name: 'web__fetch', arguments: {} }))).toMatch(/^fetch from \d+/);
  const outside = await client.callTool({ name: 'files__read_text_file', arguments: {} });
  expect(outside.isError).toBe(true);
  expect(textOf(outside)).toMatch(/^Unknown tool "files__read_text_file"\./);
}

describe('views over Streamable HTTP at /mcp/NAME', () => {
  const TOKEN = 'view-test-token';
  let gateway: HttpGateway;
  let env: ReturnType<typeof setup>;
  const clients: Client[] = [];
  const connect = async (path: string, era: 'legacy' | 'modern'): Promise<Client> => {
    const client = new Client({ name: `views-${era}`, version: '1.0.0' }, era === 'modern' ? modernOptions : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    env = setup();
    gateway = await startHttp(env.path, ['--token', TOKEN, '--trace', join(env.dir, 'trace.jsonl')]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gateway.stop();
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: each path has its own list, search, instructions and calls`, async () => {
      await expectCodingView(await connect('/coding', era));
      await expectChatView(await connect('/chat', era));
      const whole = await connect('', era);
      expect(upstreamNames((await whole.listTools()).tools)).toEqual([]);
      expect(whole.getInstructions()).toContain('notes server');
      // The whole shelf suggests what a view never does.
      expect(textOf(await whole.callTool({ name: 'web__fetc', arguments: {} }))).toContain('Did you mean: web__fetch');
    });
  }

  it('tags each trace event with the view of its client', () => {
    const events = readFileSync(join(env.dir, 'trace.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; name?: string; view?: string; origin?: string });
    const calls = (name: string) => events.filter((e) => e.event === 'tool_called' && e.name === name).map((e) => `${e.view} ${e.origin}`).sort();
    // Each era's coding and chat clients: the tool is called in one view and unknown in the other.
    expect(calls('files__read_text_file')).toEqual(['chat unknown', 'chat unknown', 'coding direct', 'coding direct']);
    expect(calls('web__fetch')).toEqual(['chat direct', 'chat direct', 'coding unknown', 'coding unknown']);
    expect(events.filter((e) => e.event === 'tool_called' && e.name === 'web__fetc').map((e) => e.view)).toContain(undefined);
  });

  it('answers an unknown view 404 with the name meant, only past the token check; a session stays on its path', async () => {
    const post = (path: string, headers: Record<string, string>, body: unknown, session?: string) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers, ...(session ? { 'mcp-session-id': session } : {}) },
        body: JSON.stringify(body),
      });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    expect((await post('/codng', {}, initialize)).status).toBe(401);
    const unknown = await post('/codng', auth, initialize);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe('Not found: no view "codng" in the config; did you mean "coding"? (its views: chat, coding)');
    const opened = await post('/coding', auth, initialize);
    const session = opened.headers.get('mcp-session-id');
    await opened.text();
    expect(session).toBeTruthy();
    expect((await post('/chat', auth, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session!)).status).toBe(404);
    expect((await post('', auth, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session!)).status).toBe(404);
  });

  it('a reload that changes a view changes what its clients list', async () => {
    const client = await connect('/chat', 'legacy');
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    expect(upstreamNames((await client.listTools()).tools)).toEqual(['web__fetch', 'web__search_web']);
    env.write({ ...VIEWS, chat: { servers: ['web', 'git'], exclude: ['web__search_web'], exposure: { 'web__*': 'direct', git__git_status: 'direct' } } });
    expect(await waitFor(() => changed > 0, 20_000)).toBe(true);
    expect(upstreamNames((await client.listTools()).tools)).toEqual(['git__git_status', 'web__fetch']);
    expect(textOf(await client.callTool({ name: 'web__search_web', arguments: {} }))).toMatch(/^Unknown tool/);
  });
});

describe('views over stdio with --view', () => {
  let env: ReturnType<typeof setup>;
  const open: Connected[] = [];
  const modern: Client[] = [];
  beforeAll(() => {
    env = setup();
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    await Promise.all(modern.map((c) => c.close().catch(() => undefined)));
    const running = sharedInstances().filter(alive);
    for (const pid of running) process.kill(pid, 'SIGTERM');
    await waitFor(() => !running.some(alive), 20_000);
  });

  it('clients of one shared instance each see their own view, over one set of upstream processes', async () => {
    const legacyCoding = await startStdio(env.path, ['--share', '--view', 'coding'], 'coding-client');
    open.push(legacyCoding);
    const modernChat = new Client({ name: 'chat-client', version: '1.0.0' }, modernOptions);
    await modernChat.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', env.path, '--share', '--view', 'chat'], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
    modern.push(modernChat);
    const modernCoding = new Client({ name: 'coding-modern', version: '1.0.0' }, modernOptions);
    await modernCoding.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', env.path, '--share', '--view', 'coding'], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
    modern.push(modernCoding);
    const legacyChat = await startStdio(env.path, ['--share', '--view', 'chat'], 'chat-legacy');
    open.push(legacyChat);
    await expectCodingView(legacyCoding.client);
    await expectChatView(modernChat);
    await expectCodingView(modernCoding);
    await expectChatView(legacyChat.client);
    expect(sharedInstances()).toHaveLength(1);
    for (const server of ['files', 'git', 'web']) expect(env.starts(server)).toBe(1);
  });

  it('a gateway of its own (--no-share) serves the view too, and a reload changes it', async () => {
    const own = await startStdio(env.path, ['--no-share', '--view', 'coding'], 'own-client');
    open.push(own);
    await expectCodingView(own.client);
    let changed = 0;
    own.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    env.write({ ...VIEWS, coding: { ...VIEWS.coding, servers: ['files', 'git', 'web'], exposure: { ...VIEWS.coding.exposure, web__fetch: 'direct' } } });
    expect(await waitFor(() => changed > 0, 20_000)).toBe(true);
    // The tools it found and called before are promoted into its list (docs/views.md: a view's own promotions).
    const listed = upstreamNames((await own.client.listTools()).tools);
    expect(listed).toContain('web__fetch');
    expect(listed).not.toContain('web__search_web');
    expect(textOf(await own.client.callTool({ name: 'web__fetch', arguments: {} }))).toMatch(/^fetch from \d+/);
  });

  it('refuses an unknown view, or --view with --http, before serving', () => {
    const run = (args: string[]) => spawnSync(process.execPath, [cliPath, '--config', env.path, ...args], { encoding: 'utf8', input: '' });
    const unknown = run(['--view', 'chta']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('toolshelf: --view: no view "chta" in the config; did you mean "chat"? (its views: chat, coding)');
    const http = run(['--view', 'chat', '--http', '0']);
    expect(http.status).toBe(2);
    expect(http.stderr).toContain('over HTTP a client picks a view with the path /mcp/chat');
  });
});
