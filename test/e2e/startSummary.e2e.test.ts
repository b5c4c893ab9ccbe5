/**
 * The start-up summary's tools/list sizes are what clients of each era are sent: the legacy figure
 * is the `tools` a legacy client lists, the modern one the tools plus cache hint a 2026-07-28 client
 * lists (it reported the legacy list only; newcomer3). A real gateway over Streamable HTTP in front
 * of server-memory and server-everything, each era's SDK Client.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { jsonBytes } from '../../src/schema/measure.js';
import { serverEntry, startHttp, tempDir, writeConfig, type HttpGateway } from '../helpers/gateway.js';

let gateway: HttpGateway;
let modern: Client | undefined;

beforeAll(async () => {
  const config = writeConfig({
    mcpServers: {
      memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: join(tempDir(), 'memory.jsonl') } },
      everything: { command: 'node', args: [serverEntry('everything'), 'stdio'], tools: { echo: { exposure: 'direct' } } },
    },
  });
  gateway = await startHttp(config);
}, 60_000);

afterAll(async () => {
  await modern?.close();
  await gateway?.stop();
});

/** The byte counts of the summary line: [legacy, modern]. */
function summaryBytes(): [number, number] {
  const line = gateway.stderr.find((l) => l.includes('first tools/list'));
  const match = /first tools\/list: ([\d,]+) bytes \(~[\d,]+ tokens; ([\d,]+) bytes for a 2026-07-28 client\)/.exec(line ?? '');
  expect(match, line).not.toBeNull();
  return [Number(match![1]!.replace(/,/g, '')), Number(match![2]!.replace(/,/g, ''))];
}

it('the legacy figure is the tools a legacy client lists', async () => {
  const client = await gateway.connect();
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('tool_search');
  expect(jsonBytes({ tools })).toBe(summaryBytes()[0]);
});

it('the modern figure is the tools and cache hint a 2026-07-28 client lists, and differs from the legacy one', async () => {
  modern = new Client({ name: 'summary-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  const result = await modern.listTools();
  expect(result.tools.find((t) => t.name === 'call_tool')?.description).toContain('never changes');
  const [legacy, modernBytes] = summaryBytes();
  expect(jsonBytes({ tools: result.tools, ttlMs: result.ttlMs, cacheScope: result.cacheScope })).toBe(modernBytes);
  expect(modernBytes).not.toBe(legacy);
});
