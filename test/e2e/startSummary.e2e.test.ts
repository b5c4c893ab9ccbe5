/**
 * The start-up summary's sizes are what clients are sent, measured on the wire (each tools/list
 * result tapped as it arrives, before the SDK parses it): the legacy figure is what a legacy client
 * lists, the modern one the whole result a 2026-07-28 client receives (tools, cache hint,
 * `resultType`, `_meta`), and the all-direct figure what a client receives from the same upstreams
 * registered directly (one tools/list result each, summed). A real gateway over Streamable HTTP in
 * front of server-memory and server-everything, each era's SDK Client. Sizes: docs/operations.md.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { jsonBytes } from '../../src/schema/measure.js';
import { serverEntry, startHttp, tempDir, writeConfig, type HttpGateway } from '../helpers/gateway.js';

const memoryFile = join(tempDir(), 'memory.jsonl');
const upstreams = {
  memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: memoryFile } },
  everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
};

let gateway: HttpGateway;
const clients: Client[] = [];

beforeAll(async () => {
  const config = writeConfig({ mcpServers: { memory: upstreams.memory, everything: { ...upstreams.everything, tools: { echo: { exposure: 'direct' } } } } });
  gateway = await startHttp(config);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await gateway?.stop();
});

/** The byte counts of the summary line: [legacy, modern, all-direct]. */
function summaryBytes(): [number, number, number] {
  const line = gateway.stderr.find((l) => l.includes('first tools/list'));
  const match = /first tools\/list: ([\d,]+) bytes \(~[\d,]+ tokens; ([\d,]+) bytes for a 2026-07-28 client\) vs ([\d,]+) bytes all-direct/.exec(line ?? '');
  expect(match, line).not.toBeNull();
  const number = (text: string): number => Number(text.replace(/,/g, ''));
  return [number(match![1]!), number(match![2]!), number(match![3]!)];
}

/** Connects `client` over `transport` and lists tools once; the result exactly as it came off the wire. */
async function rawList(client: Client, transport: Transport): Promise<Record<string, unknown>> {
  clients.push(client);
  await client.connect(transport);
  const onmessage = transport.onmessage;
  let raw: Record<string, unknown> | undefined;
  transport.onmessage = (message, extra) => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (result && Array.isArray(result.tools)) raw = result;
    onmessage?.(message, extra);
  };
  await client.listTools();
  expect(raw).toBeDefined();
  return raw!;
}

it('the legacy figure is the tools/list result a legacy client receives', async () => {
  const raw = await rawList(new Client({ name: 'summary-legacy', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } }), new StreamableHTTPClientTransport(new URL(gateway.url)));
  expect((raw.tools as { name: string }[]).map((t) => t.name)).toContain('tool_search');
  expect(jsonBytes(raw)).toBe(summaryBytes()[0]);
});

it('the modern figure is the whole result a 2026-07-28 client receives, resultType and _meta included', async () => {
  const raw = await rawList(new Client({ name: 'summary-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }), new StreamableHTTPClientTransport(new URL(gateway.url)));
  expect(raw).toHaveProperty('resultType');
  expect(raw).toHaveProperty('_meta');
  const [legacy, modern] = summaryBytes();
  expect(jsonBytes(raw)).toBe(modern);
  expect(modern).not.toBe(legacy);
});

it('the all-direct figure is what a client receives from the same upstreams registered directly', async () => {
  let direct = 0;
  for (const server of Object.values(upstreams)) {
    // The capabilities toolshelf offers upstream: server-everything lists more tools for a client that can sample.
    const client = new Client({ name: 'summary-direct', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    const raw = await rawList(client, new StdioClientTransport({ command: server.command, args: server.args, env: { ...process.env, ...('env' in server ? server.env : {}) } as Record<string, string>, stderr: 'ignore' }));
    direct += jsonBytes(raw);
  }
  expect(summaryBytes()[2]).toBe(direct);
});
