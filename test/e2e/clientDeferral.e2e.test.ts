/**
 * Clients that search tools themselves, through the built CLI over stdio and Streamable
 * HTTP on the real server-filesystem, with SDK clients named as the real clients name themselves in
 * `clientInfo.name`: the `_meta` keys (`anthropic/alwaysLoad`, `anthropic/searchHint`), the list
 * contents and the bytes of the first tools/list in each discovery mode, and the config keys that
 * switch them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { serverEntry, startHttp, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected, type HttpGateway } from '../helpers/gateway.js';

const ALWAYS_LOAD = 'anthropic/alwaysLoad';
const SEARCH_HINT = 'anthropic/searchHint';

/** server-filesystem on a sandbox: one direct tool, two hidden, the rest deferred; read_text_file has keywords. */
function deferralConfig(discovery: Record<string, unknown> = {}): { path: string; dir: string } {
  const dir = tempDir();
  const path = writeConfig(
    {
      mcpServers: {
        files: {
          command: 'node',
          args: [serverEntry('filesystem'), dir],
          tools: {
            list_directory: { exposure: 'direct' },
            read_file: { exposure: 'hidden' },
            'move_*': { exposure: 'hidden' },
            read_text_file: { keywords: ['open', 'cat', 'show contents'] },
          },
        },
      },
      discovery,
    },
    dir,
  );
  writeFileSync(join(dir, 'hello.txt'), 'Hello from the sandbox!\n');
  return { path, dir };
}

/** The tools/list result exactly as it arrived (tapped before the SDK parses it), and its UTF-8 byte length. */
async function firstList(client: Client): Promise<{ tools: Tool[]; bytes: number; text: string }> {
  const transport = client.transport;
  if (!transport) throw new Error('client not connected');
  const previous = transport.onmessage;
  let raw: unknown;
  transport.onmessage = (message, extra) => {
    const result = (message as { result?: { tools?: unknown } }).result;
    if (result?.tools) raw = result;
    previous?.(message, extra);
  };
  try {
    await client.listTools();
  } finally {
    transport.onmessage = previous;
  }
  const text = JSON.stringify(raw);
  return { tools: (raw as { tools: Tool[] }).tools, bytes: Buffer.byteLength(text, 'utf8'), text };
}

const names = (tools: Tool[]) => tools.map((t) => t.name);
const meta = (tools: Tool[], name: string) => tools.find((t) => t.name === name)?._meta;

/** Deferred tools of the fixture as toolshelf names them, sorted (every filesystem tool but the direct and hidden ones). */
function expectedDeferred(all: string[]): string[] {
  return all.filter((n) => !['files__list_directory', 'files__read_file', 'files__move_file'].includes(n)).sort();
}

/** What every `client`-mode list must hold. */
function expectClientMode(tools: Tool[]): void {
  expect(tools[0]?.name).toBe('files__list_directory');
  const rest = names(tools).slice(1);
  expect(rest).toEqual([...rest].sort());
  expect(rest.length).toBeGreaterThan(8);
  expect(rest).toContain('files__read_text_file');
  expect(names(tools)).not.toContain('tool_search');
  expect(names(tools)).not.toContain('call_tool');
  expect(names(tools)).not.toContain('files__read_file');
  expect(names(tools)).not.toContain('files__move_file');
  expect(meta(tools, 'files__list_directory')).toEqual({ [ALWAYS_LOAD]: true });
  expect(meta(tools, 'files__read_text_file')).toEqual({ [SEARCH_HINT]: 'cat, open, show contents' });
  expect(meta(tools, 'files__write_file')).toBeUndefined();
  expect(tools.find((t) => t.name === 'files__write_file')?.inputSchema.properties).toHaveProperty('content');
}

/** What every `own`-mode first list must hold: direct, tool_search (with the manifest), call_tool per the client table. */
function expectOwnMode(tools: Tool[], callTool: boolean): void {
  expect(names(tools)).toEqual(['files__list_directory', 'tool_search', ...(callTool ? ['call_tool'] : [])]);
  for (const tool of tools) expect(tool._meta).toEqual({ [ALWAYS_LOAD]: true });
  expect(tools[1]?.description).toContain('files__read_text_file');
}

function countListChanged(client: Client): () => number {
  let count = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void (count += 1));
  return () => count;
}

describe('over Streamable HTTP: one gateway, a session per client name', () => {
  let gateway: HttpGateway;
  let sandbox: string;
  const firsts = new Map<string, Awaited<ReturnType<typeof firstList>>>();
  const clients = new Map<string, Client>();
  const NAMES = ['claude-code', 'codex-mcp-client', 'github-copilot-developer', 'Visual Studio Code', 'claude-ai', 'cursor-vscode', 'some-new-client'];

  beforeAll(async () => {
    const config = deferralConfig();
    sandbox = config.dir;
    gateway = await startHttp(config.path);
    for (const name of NAMES) {
      const client = await gateway.connect(name);
      clients.set(name, client);
      firsts.set(name, await firstList(client));
    }
  });
  afterAll(async () => {
    expect(await gateway.stop()).toBe(0);
  });

  it('Codex gets client mode: every deferred tool listed with its searchHint, no tool_search, no call_tool', () => {
    expectClientMode(firsts.get('codex-mcp-client')?.tools ?? []);
  });

  it('Copilot CLI, Claude Desktop, Cursor and unknown clients get own mode with call_tool; Claude Code and VS Code without it', () => {
    for (const name of ['github-copilot-developer', 'claude-ai', 'cursor-vscode', 'some-new-client']) expectOwnMode(firsts.get(name)?.tools ?? [], true);
    for (const name of ['claude-code', 'Visual Studio Code']) expectOwnMode(firsts.get(name)?.tools ?? [], false);
  });

  it('first tools/list bytes: identical for every client of one mode and bridge set, and client mode costs several times own mode', () => {
    const own = firsts.get('github-copilot-developer')?.bytes ?? 0;
    for (const name of ['claude-ai', 'cursor-vscode', 'some-new-client']) expect(firsts.get(name)?.bytes).toBe(own);
    expect(firsts.get('Visual Studio Code')?.bytes).toBeLessThan(own);
    // Claude Code's manifest is fitted to its 2,048-character description limit (docs/tools.md).
    expect(firsts.get('claude-code')?.bytes).toBeLessThanOrEqual(firsts.get('Visual Studio Code')?.bytes ?? 0);
    const client = firsts.get('codex-mcp-client')?.bytes ?? 0;
    // Own mode's manifest marks read-only and destructive tools and call_tool carries its annotations
    // (docs/security.md "Risky calls"), so client mode now costs just under twice as much.
    expect(client).toBeGreaterThan(own * 1.9);
    // The whole list is what each mode promises, nothing else: the byte count is that of exactly these tools.
    const tools = firsts.get('codex-mcp-client')?.tools ?? [];
    expect(client).toBe(Buffer.byteLength(JSON.stringify({ tools }), 'utf8'));
    expect(names(tools).slice(1)).toEqual(expectedDeferred(names(tools)));
  });

  it('client mode: a deferred tool runs by its name, no list_changed follows, and the list stays byte-identical', async () => {
    const client = clients.get('codex-mcp-client') as Client;
    const changes = countListChanged(client);
    const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(sandbox, 'hello.txt') } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toBe('Hello from the sandbox!\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(changes()).toBe(0);
    expect((await firstList(client)).text).toBe(firsts.get('codex-mcp-client')?.text);
  });

  it('client mode: tool_search and call_tool are unknown names, and the answer does not point to tool_search', async () => {
    const client = clients.get('codex-mcp-client') as Client;
    for (const name of ['tool_search', 'call_tool']) {
      const result = await client.callTool({ name, arguments: { query: 'read a file', name: 'files__read_text_file' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(new RegExp(`^Unknown tool "${name}"`));
      expect(textOf(result).replace(/^Unknown tool "\w+"\./, '')).not.toContain('tool_search');
    }
    const hidden = await client.callTool({ name: 'files__read_file', arguments: { path: join(sandbox, 'hello.txt') } });
    expect(textOf(hidden)).toMatch(/^Unknown tool "files__read_file"/);
  });

  it('own mode: a tool found by tool_search is promoted with alwaysLoad and its keywords as searchHint', async () => {
    const client = clients.get('github-copilot-developer') as Client;
    const changes = countListChanged(client);
    const found = await client.callTool({ name: 'tool_search', arguments: { query: 'files__read_text_file', limit: 1 } });
    expect((found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['files__read_text_file']);
    expect(await waitFor(() => changes() === 1)).toBe(true);
    const { tools } = await firstList(client);
    expect(names(tools)).toEqual(['files__list_directory', 'tool_search', 'call_tool', 'files__read_text_file']);
    expect(meta(tools, 'files__read_text_file')).toEqual({ [ALWAYS_LOAD]: true, [SEARCH_HINT]: 'cat, open, show contents' });
  });
});

describe('over stdio: one gateway per client, bytes as traced', () => {
  const gateways: Connected[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  async function start(clientName: string, discovery: Record<string, unknown> = {}) {
    const { path, dir } = deferralConfig(discovery);
    const trace = join(dir, 'trace.jsonl');
    const gw = await startStdio(path, ['--trace', trace], clientName);
    gateways.push(gw);
    const first = await firstList(gw.client);
    /** The first trace event named `event`, once it is written. */
    const traced = async (event = 'tools_advertised'): Promise<Record<string, unknown>> => {
      await waitFor(() => readFileSync(trace, 'utf8').includes(`"${event}"`));
      const events = readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      return events.find((e) => e.event === event) ?? {};
    };
    return { gw, first, traced, dir };
  }

  it('codex-mcp-client: client mode; the traced schemaBytes are the bytes the client received; a call is traced as origin direct', async () => {
    const { gw, first, traced, dir } = await start('codex-mcp-client');
    expectClientMode(first.tools);
    expect((await traced()).schemaBytes).toBe(first.bytes);
    const read = await gw.client.callTool({ name: 'files__read_text_file', arguments: { path: join(dir, 'hello.txt') } });
    expect(textOf(read)).toBe('Hello from the sandbox!\n');
    // Listed from the start, so its trace origin is "direct" (docs/cli.md), not "catalog" (called by name from the manifest).
    expect(await traced('tool_called')).toMatchObject({ name: 'files__read_text_file', origin: 'direct', isError: false });
  });

  it('github-copilot-developer: own mode; the traced schemaBytes are the bytes the client received', async () => {
    const { first, traced } = await start('github-copilot-developer');
    expectOwnMode(first.tools, true);
    expect((await traced()).schemaBytes).toBe(first.bytes);
  });

  it('discovery.mode "own" and alwaysLoad false: Codex gets tool_search and call_tool, and no _meta at all', async () => {
    const { first } = await start('codex-mcp-client', { mode: 'own', alwaysLoad: false });
    expect(names(first.tools)).toEqual(['files__list_directory', 'tool_search', 'call_tool']);
    expect(first.tools.every((t) => t._meta === undefined)).toBe(true);
  });

  it('discovery.mode "client": Claude Code gets client mode too, and a deferred tool runs by name', async () => {
    const { gw, first } = await start('claude-code', { mode: 'client' });
    expectClientMode(first.tools);
    const result = await gw.client.callTool({ name: 'files__list_allowed_directories', arguments: {} });
    expect(result.isError).toBeFalsy();
  });
});
