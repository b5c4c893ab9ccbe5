/**
 * Admission and schemas on the wire through the built CLI over stdio, against fixture upstreams that
 * count the calls they receive: invalid arguments are answered with every violation by JSON path and
 * never reach the upstream, whatever the route (direct, call_tool, promoted); arguments only the
 * canonical schema describes are accepted; an uncompilable schema is forwarded with one warning; a
 * schema within budget reaches the client byte for byte. Source: docs/tools.md ("Calls", "Schemas on the wire").
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { alive, cliPath, descendants, fixture, startStdio, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

const COUNTER = fixture('counter.mjs');
const BIG = fixture('bigSchema.mjs');

function admissionConfig(): string {
  return writeConfig({
    mcpServers: {
      counter: { command: 'node', args: [COUNTER], tools: { set_mode: { exposure: 'direct' }, call_count: { exposure: 'direct' } } },
      big: { command: 'node', args: [BIG], tools: { plain: { exposure: 'direct' }, call_count: { exposure: 'direct' } } },
    },
  });
}

/** The number of tools/call requests an upstream has received, read through its `call_count` tool. */
async function callCount(client: Client, server: 'counter' | 'big'): Promise<number> {
  return Number(textOf(await client.callTool({ name: `${server}__call_count`, arguments: {} })));
}

/**
 * Runs `fn` and returns how many tools/call requests reached `server` meanwhile (the count read after
 * includes that read itself, hence the `- 1`).
 */
async function callsDuring(client: Client, server: 'counter' | 'big', fn: () => Promise<void>): Promise<number> {
  const before = await callCount(client, server);
  await fn();
  return (await callCount(client, server)) - before - 1;
}

/** A valid search_records call that sets rules compaction collapsed (columns.<name>.format.rule, rung 5). */
const DETAILED_ARGS = {
  query: 'slow requests',
  filter: { field: 'latency', op: 'gt', value: 250 },
  columns: { latency: { visible: true, width: 120, format: { style: 'mono', rule: { precision: 1, unit: 'ms' } } } },
};

describe('admission through the gateway (stdio)', () => {
  let gw: Connected;
  beforeAll(async () => {
    gw = await startStdio(admissionConfig());
  });
  afterAll(async () => {
    const tree = descendants(gw.pid);
    await gw.close();
    expect(await waitFor(() => !alive(gw.pid) && tree.every((p) => !alive(p)), 8000)).toBe(true);
  });

  it('wrong-typed, missing-required and out-of-enum arguments each get an isError naming the JSON path, and the upstream is not called', async () => {
    const results: { isError?: unknown; text: string }[] = [];
    const reached = await callsDuring(gw.client, 'counter', async () => {
      for (const args of [{ mode: 'eco', level: 'high' }, { level: 2 }, { mode: 'warp' }]) {
        const result = await gw.client.callTool({ name: 'counter__set_mode', arguments: args });
        results.push({ isError: result.isError, text: textOf(result) });
      }
    });
    expect(reached).toBe(0);
    expect(results.every((r) => r.isError === true)).toBe(true);
    expect(results.map((r) => r.text)).toEqual([
      'Invalid arguments for counter__set_mode:\n- /level: must be integer',
      'Invalid arguments for counter__set_mode:\n- (root): missing required property "mode"',
      'Invalid arguments for counter__set_mode:\n- /mode: must be one of "eco", "turbo"',
    ]);
  });

  it('every violation of one call is listed, one line each', async () => {
    const result = await gw.client.callTool({ name: 'counter__set_mode', arguments: { level: 1.5, speed: 3 } });
    expect(result.isError).toBe(true);
    const lines = textOf(result).split('\n').slice(1).sort();
    expect(lines).toEqual(['- (root): missing required property "mode"', '- (root): unexpected property "speed"', '- /level: must be integer']);
  });

  it('missing arguments count as {}: a required property is reported, a tool with none runs', async () => {
    const missing = await gw.client.callTool({ name: 'counter__set_mode' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('(root): missing required property "mode"');
    const before = await callCount(gw.client, 'counter');
    const none = await gw.client.callTool({ name: 'counter__call_count' });
    expect(none.isError).toBeFalsy();
    expect(Number(textOf(none))).toBe(before + 1);
  });

  it('a valid call still reaches the upstream with its arguments unchanged', async () => {
    const reached = await callsDuring(gw.client, 'counter', async () => {
      const result = await gw.client.callTool({ name: 'counter__set_mode', arguments: { mode: 'turbo', level: 3 } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe('mode=turbo');
    });
    expect(reached).toBe(1);
  });

  it('through call_tool, invalid arguments get the same violation list and the upstream is not called', async () => {
    const reached = await callsDuring(gw.client, 'counter', async () => {
      const result = await gw.client.callTool({ name: 'call_tool', arguments: { name: 'counter__set_mode', arguments: { mode: 'warp', level: 'x' } } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('- /mode: must be one of "eco", "turbo"');
      expect(textOf(result)).toContain('- /level: must be integer');
      const noArgs = await gw.client.callTool({ name: 'call_tool', arguments: { name: 'counter__set_mode' } });
      expect(textOf(noArgs)).toContain('(root): missing required property "mode"');
    });
    expect(reached).toBe(0);
  });

  it('the compacted schema is advertised, yet a promoted call is checked against the canonical one', async () => {
    await gw.client.callTool({ name: 'tool_search', arguments: { query: 'search records filters columns', limit: 1 } });
    const { tools } = await gw.client.listTools();
    const advertised = tools.find((t) => t.name === 'big__search_records');
    expect(advertised).toBeDefined();
    const projectedBytes = Buffer.byteLength(JSON.stringify(advertised?.inputSchema));
    expect(projectedBytes).toBeLessThanOrEqual(5000);
    // Rung 5 collapsed the rule object: the client no longer sees its bounds.
    expect(JSON.stringify(advertised?.inputSchema)).not.toContain('precision');

    const reached = await callsDuring(gw.client, 'big', async () => {
      const invalid = await gw.client.callTool({
        name: 'big__search_records',
        arguments: { query: 'x', columns: { latency: { format: { rule: { precision: 9, unit: 'h' } } } } },
      });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain('- /columns/latency/format/rule/precision: must be <= 6');
      expect(textOf(invalid)).toContain('- /columns/latency/format/rule/unit: must be one of "ms", "s", "B", "kB"');
    });
    expect(reached).toBe(0);
  });

  it('a valid call using what only the canonical schema describes is accepted and forwarded unchanged, by name and through call_tool', async () => {
    const byName = await gw.client.callTool({ name: 'big__search_records', arguments: DETAILED_ARGS });
    expect(byName.isError).toBeFalsy();
    expect(JSON.parse(textOf(byName))).toEqual({ tool: 'search_records', arguments: DETAILED_ARGS });
    const bridged = await gw.client.callTool({ name: 'call_tool', arguments: { name: 'big__search_records', arguments: DETAILED_ARGS } });
    expect(bridged.isError).toBeFalsy();
    expect(JSON.parse(textOf(bridged))).toEqual({ tool: 'search_records', arguments: DETAILED_ARGS });
  });

  it('an anyOf the projection kept is still enforced in full: a branch with a missing field is refused', async () => {
    const reached = await callsDuring(gw.client, 'big', async () => {
      const result = await gw.client.callTool({ name: 'big__search_records', arguments: { query: 'x', filter: { field: 'status', op: 'eq' } } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/\/filter/);
    });
    expect(reached).toBe(0);
  });

  it('a canonical schema ajv cannot compile is forwarded unvalidated, with one warning on stderr', async () => {
    const reached = await callsDuring(gw.client, 'big', async () => {
      for (const x of [5, 'anything']) {
        const result = await gw.client.callTool({ name: 'big__broken_ref', arguments: { x } });
        expect(result.isError).toBeFalsy();
        expect(JSON.parse(textOf(result))).toEqual({ tool: 'broken_ref', arguments: { x } });
      }
    });
    expect(reached).toBe(2);
    const warnings = (): string[] => gw.stderr.filter((line) => line.includes('big__broken_ref') && line.includes('cannot be compiled'));
    expect(await waitFor(() => warnings().length > 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(/^toolshelf: warn: /);
  });
});

/**
 * Speaks raw JSON-RPC over stdio to `args` (initialize, initialized, tools/list) and returns the raw
 * tools/list response line, so nothing between the wire and the test can re-order or re-encode it.
 */
async function rawToolsList(args: string[]): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  const lines = createInterface({ input: child.stdout });
  const send = (message: object): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    for await (const line of lines) {
      const message = JSON.parse(line) as { id?: number };
      if (message.id === 1) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list', params: {} });
      }
      if (message.id === 2) return line;
    }
    throw new Error('no tools/list answer');
  } finally {
    child.stdin.end();
    await exited;
  }
}

/** The raw JSON text of one tool's inputSchema in a tools/list response line. */
function schemaText(line: string, name: string): string {
  const tools = (JSON.parse(line) as { result: { tools: { name: string; inputSchema: unknown }[] } }).result.tools;
  return JSON.stringify(tools.find((t) => t.name === name)?.inputSchema);
}

describe('schemas on the wire (raw JSON-RPC)', () => {
  it('a schema within budget goes out byte-identical to the upstream’s: $schema, $defs, $ref, key order', async () => {
    const [upstream, gateway] = await Promise.all([rawToolsList([BIG]), rawToolsList([cliPath, '--config', admissionConfig(), '--no-share'])]);
    const canonical = schemaText(upstream, 'plain');
    expect(canonical).toMatch(/^\{"required":\["point"\],"\$schema":/);
    expect(upstream).toContain(canonical);
    expect(gateway).toContain(`"inputSchema":${canonical}`);
  });
});
