/**
 * Every tool a client receives is one it accepts, through the built CLI with the real
 * SDK Client over stdio and Streamable HTTP, in front of a fixture upstream whose declarations each sink
 * `Client.listTools()` when passed on as is (test/fixtures/servers/hostileSchemas.mjs): the first list,
 * tool_search results, the re-list after promotion, calls by name and through call_tool (structuredContent
 * still arrives where the outputSchema had to go), one warning per dropped tool however often the
 * upstream re-lists, and `toolshelf inspect`. Source: docs/tools.md; MCP 2025-11-25 `Tool`.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ToolSchema } from '@modelcontextprotocol/core';
import { cliPath, fixture, textOf, writeConfig } from '../helpers/gateway.js';
import { nextListChanged, overEachTransport } from '../helpers/transports.js';

const DIRECT = ['bad_fields', 'empty_schema', 'no_type', 'output_no_type', 'output_uncompilable', 'relist', 'top_any_of', 'true_schema'];
const DEFERRED = ['boolean_properties', 'nullable_object', 'output_array', 'string_required', 'top_all_of', 'top_one_of'];
const UNSERVABLE = ['scalar_any_of', 'string_input'];

const configPath = (): string =>
  writeConfig({
    mcpServers: {
      hostile: { command: 'node', args: [fixture('hostileSchemas.mjs')], tools: Object.fromEntries(DIRECT.map((t) => [t, { exposure: 'direct' }])) },
    },
  });

overEachTransport(configPath, (gateway) => {
  it('listTools() succeeds: direct tools normalised to type object, bridge tools after them, the unservable ones absent', async () => {
    const { client } = gateway();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...DIRECT.map((t) => `hostile__${t}`), 'tool_search', 'call_tool']);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('hostile__top_any_of')?.inputSchema).toMatchObject({ type: 'object', anyOf: [{ required: ['id'] }, { required: ['slug'] }] });
    expect(byName.get('hostile__output_uncompilable')).not.toHaveProperty('outputSchema');
    expect(byName.get('hostile__output_no_type')?.outputSchema).toEqual({ type: 'object', properties: { count: { type: 'number' } }, required: ['count'] });
    expect(byName.get('hostile__bad_fields')).not.toHaveProperty('annotations');
    const manifest = byName.get('tool_search')?.description ?? '';
    for (const t of DEFERRED) expect(manifest).toContain(`hostile__${t}`);
    for (const t of UNSERVABLE) expect(manifest).not.toContain(t);
  });

  it('tool_search results carry valid inputSchemas; after list_changed the re-list with the promoted tools succeeds', async () => {
    const { client } = gateway();
    const changed = nextListChanged(client);
    // An exact-name search makes that tool the one strong match: full schema, promoted.
    for (const t of DEFERRED) {
      const found = await client.callTool({ name: 'tool_search', arguments: { query: `hostile__${t}` } });
      const [first] = (found.structuredContent as { tools: { name: string; parameters?: unknown }[] }).tools;
      expect(first?.name).toBe(`hostile__${t}`);
      // The answer leaves out the top-level `"type": "object"` every inputSchema has (docs/search.md, "Answers"); with it back, it is one.
      expect(first?.parameters, t).not.toHaveProperty('type');
      expect(ToolSchema.shape.inputSchema.safeParse({ type: 'object', ...(first?.parameters as object) }).success, t).toBe(true);
      // MCP 2025-11-25 also wants each property schema an object (the SDK v2 neutral schema takes any JSON value).
      for (const p of Object.values((first?.parameters as { properties?: object }).properties ?? {})) expect(p, t).toBeTypeOf('object');
    }
    await changed;
    const { tools } = await client.listTools();
    expect(tools.slice(DIRECT.length + 2).map((t) => t.name).sort()).toEqual(DEFERRED.map((t) => `hostile__${t}`));
    expect(tools.find((t) => t.name === 'hostile__output_array')).not.toHaveProperty('outputSchema');
  });

  it('calls by name and through call_tool answer, structuredContent included; admission still uses the canonical schema', async () => {
    const { client } = gateway();
    const array = await client.callTool({ name: 'hostile__output_array', arguments: {} });
    expect(array.structuredContent).toEqual({ items: ['a'] });
    const counted = await client.callTool({ name: 'hostile__output_no_type', arguments: {} });
    expect(counted.structuredContent).toEqual({ count: 1 });
    const bridged = await client.callTool({ name: 'call_tool', arguments: { name: 'hostile__output_uncompilable', arguments: { v: 'x' } } });
    expect(bridged.structuredContent).toEqual({ tool: 'output_uncompilable', args: { v: 'x' } });
    const oneOf = await client.callTool({ name: 'call_tool', arguments: { name: 'hostile__top_one_of', arguments: { city: 'Oslo' } } });
    expect(textOf(oneOf)).toBe('top_one_of {"city":"Oslo"}');
    const missing = await client.callTool({ name: 'hostile__no_type', arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('query');
    const unservable = await client.callTool({ name: 'call_tool', arguments: { name: 'hostile__string_input', arguments: {} } });
    expect(unservable.isError).toBe(true);
  });

  it('each dropped tool is warned about once, naming it, however often the upstream re-lists', async () => {
    const { client, stderr } = gateway();
    for (let round = 0; round < 2; round++) {
      const changed = nextListChanged(client);
      await client.callTool({ name: 'hostile__relist', arguments: {} });
      await changed;
      expect((await client.listTools()).tools.length).toBeGreaterThan(DIRECT.length);
    }
    for (const t of UNSERVABLE) expect(stderr.filter((line) => line.includes(`dropped tool ${t}:`)), t).toHaveLength(1);
    expect(stderr.filter((line) => line.includes('tool output_uncompilable: outputSchema does not compile'))).toHaveLength(1);
    expect(stderr.filter((line) => line.includes('tool bad_fields: "annotations"'))).toHaveLength(1);
  });
});

describe('toolshelf inspect', () => {
  it('lists every servable tool, leaves out the two with no wire form and says why, exit 0', async () => {
    const child = spawn(process.execPath, [cliPath, 'inspect', '--config', configPath(), '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { servers: { tools: { name: string }[] }[] };
    expect(report.servers[0]?.tools.map((t) => t.name).sort()).toEqual([...DIRECT, ...DEFERRED].map((t) => `hostile__${t}`).sort());
    for (const t of UNSERVABLE) expect(stderr).toContain(`dropped tool ${t}: its inputSchema accepts no JSON object`);
  }, 30_000);
});
