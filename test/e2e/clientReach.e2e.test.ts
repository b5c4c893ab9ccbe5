/**
 * Client reach, scripted: each kind of client reaches a deferred tool that tool_search found in at
 * most 2 calls after the search, doing only what that kind of client does — a legacy client that
 * re-lists on list_changed (clientInfo `claude-code`; VS Code alike) calls the promoted tool by its
 * name; a legacy client that ignores list_changed (`Cursor`; Claude Desktop alike) keeps its first list
 * and has call_tool in it; a modern client (v2 SDK Client in `auto` mode) has an unchanging list with
 * call_tool, and may also call by the real name the manifest gives. The scripted model calls a found
 * tool by name when its client's current list has it, else through call_tool.
 * Source: docs/protocol-eras.md; docs/tools.md, docs/protocol-eras.md.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { serverEntry, startHttp, startStdio, textOf, writeConfig, tempDir, type Connected, type HttpGateway } from '../helpers/gateway.js';

/** What the scripted model sees of its client: the tools in its current list, and how to call. */
interface Seat {
  readonly client: Client;
  /** The client's current tool list, as the client keeps it. */
  tools(): readonly Tool[];
}

/**
 * Searches, then calls the first found tool with `args` the way the model would with this client's
 * list; counts the tools/call requests after the search.
 */
async function reach(seat: Seat, query: string, args: Record<string, unknown>): Promise<{ calls: number; text: string; found: string }> {
  const search = await seat.client.callTool({ name: 'tool_search', arguments: { query } });
  const found = (JSON.parse(textOf(search)) as { tools: { name: string }[] }).tools[0]?.name ?? '';
  let calls = 0;
  const names = (): string[] => seat.tools().map((t) => t.name);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    calls += 1;
    const result = names().includes(found)
      ? await seat.client.callTool({ name: found, arguments: args })
      : await seat.client.callTool({ name: 'call_tool', arguments: { name: found, arguments: args } });
    if (!result.isError) return { calls, text: textOf(result), found };
    // A client whose re-list has not landed yet: the model tries again with what it now sees.
    await new Promise((r) => setTimeout(r, 200));
  }
  return { calls, text: '', found };
}

const config = (): string =>
  writeConfig({
    mcpServers: {
      everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
      memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: join(tempDir(), 'memory.jsonl') } },
    },
  });

describe('client reach: a found deferred tool in at most 2 calls after the search', () => {
  let gateway: HttpGateway;
  const stdio: Connected[] = [];
  beforeAll(async () => {
    gateway = await startHttp(config());
  }, 60_000);
  afterAll(async () => {
    await Promise.all(stdio.map((c) => c.close()));
    await gateway.stop();
  });

  it('legacy that re-lists on list_changed (claude-code): promoted tool called by name', async () => {
    const gw = await startStdio(config(), [], 'claude-code');
    stdio.push(gw);
    let tools = (await gw.client.listTools()).tools;
    expect(tools.map((t) => t.name)).not.toContain('call_tool');
    gw.client.setNotificationHandler('notifications/tools/list_changed', async () => {
      tools = (await gw.client.listTools()).tools;
    });
    const outcome = await reach({ client: gw.client, tools: () => tools }, 'add two numbers', { a: 20, b: 22 });
    expect(outcome.found).toBe('everything__get-sum');
    expect(outcome.text).toMatch(/42/);
    expect(outcome.calls).toBeLessThanOrEqual(2);
    expect(tools.map((t) => t.name)).toContain('everything__get-sum');
  });

  it('legacy that ignores list_changed (Cursor): call_tool from its first list', async () => {
    const client = await gateway.connect('Cursor');
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name)).toContain('call_tool');
    const outcome = await reach({ client, tools: () => tools }, 'create entities in the knowledge graph', { entities: [{ name: 'toolshelf', entityType: 'project', observations: ['reach'] }] });
    expect(outcome.found).toBe('memory__create_entities');
    expect(outcome.text).toContain('toolshelf');
    expect(outcome.calls).toBe(1);
  });

  it('modern (auto): call_tool or the real name, over a list that never changes', async () => {
    const client = new Client({ name: 'any-modern-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    try {
      const first = await client.listTools();
      const viaBridge = await reach({ client, tools: () => first.tools }, 'add two numbers', { a: 1, b: 1 });
      expect(viaBridge.text).toMatch(/2/);
      expect(viaBridge.calls).toBe(1);
      const listed = (await client.listTools()).tools;
      expect(JSON.stringify(listed)).toBe(JSON.stringify(first.tools));
      // The manifest names the tool: the model may call it by that name with no search at all.
      const byName = await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 2 } });
      expect(textOf(byName)).toMatch(/4/);
    } finally {
      await client.close();
    }
  });
});
