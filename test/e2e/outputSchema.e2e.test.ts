/**
 * A result that breaks the outputSchema toolshelf advertised still reaches the client (badOutput.mjs):
 * the SDK Client of either era, over Streamable HTTP and stdio, gets an `isError` with the upstream's
 * content and a note naming the mismatch by JSON path, instead of throwing (-32602 "Structured content
 * does not match", -32600 "did not return structured content"); a result that matches, and an error,
 * pass untouched; the gateway logs the mismatch once per tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cliPath, fixture, startHttp, writeConfig, type HttpGateway } from '../helpers/gateway.js';

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const texts = (result: unknown): string[] => ((result as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '');

describe('results that break their own outputSchema, both eras, HTTP and stdio', () => {
  let gateway: HttpGateway;
  const clients: [string, Client][] = [];
  beforeAll(async () => {
    const config = writeConfig({ mcpServers: { bad: { command: 'node', args: [fixture('badOutput.mjs')], exposure: 'direct' } } });
    gateway = await startHttp(config);
    for (const [label, options, transport] of [
      ['legacy HTTP', {}, () => new StreamableHTTPClientTransport(new URL(gateway.url))],
      ['modern HTTP', MODERN, () => new StreamableHTTPClientTransport(new URL(gateway.url))],
      ['legacy stdio', {}, () => new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config], env: { ...process.env } as Record<string, string>, stderr: 'ignore' })],
      ['modern stdio', MODERN, () => new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config], env: { ...process.env } as Record<string, string>, stderr: 'ignore' })],
    ] as const) {
      const client = new Client({ name: `output-${label}`, version: '1.0.0' }, options);
      await client.connect(transport());
      clients.push([label, client]);
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map(([, c]) => c.close()));
    await gateway.stop();
  });

  it('a mismatching structuredContent: the content and a note naming /n, as an isError, never a thrown error', async () => {
    for (const [label, client] of clients) {
      await client.listTools();
      const result = await client.callTool({ name: 'bad__broken', arguments: {} });
      expect({ label, isError: result.isError, texts: texts(result), structured: result.structuredContent }).toEqual({
        label,
        isError: true,
        texts: ['BAD-TEXT fallback', "[toolshelf: structuredContent does not match the tool's outputSchema (/n must be integer), so it was left out. The content above is the tool's whole answer.]"],
        structured: undefined,
      });
    }
  });

  it('a result without the structuredContent its outputSchema asks for: the content and a note, as an isError', async () => {
    for (const [label, client] of clients) {
      const result = await client.callTool({ name: 'bad__missing', arguments: {} });
      expect({ label, isError: result.isError, texts: texts(result) }).toEqual({
        label,
        isError: true,
        texts: ['NO-STRUCTURE', "[toolshelf: the tool returned no structuredContent, which its outputSchema asks for. The content above is the tool's whole answer.]"],
      });
    }
  });

  it('a matching result and an error result pass untouched; the mismatch is logged once per tool', async () => {
    for (const [label, client] of clients) {
      const fine = await client.callTool({ name: 'bad__fine', arguments: {} });
      expect({ label, fine: [fine.isError, fine.structuredContent, texts(fine)] }).toEqual({ label, fine: [undefined, { n: 3 }, ['3']] });
      const failed = await client.callTool({ name: 'bad__failed', arguments: {} });
      expect({ label, failed: [failed.isError, texts(failed)] }).toEqual({ label, failed: [true, ['it failed']] });
    }
    // Two clients over HTTP each called bad__broken: one warning.
    expect(gateway.stderr.filter((line) => line.includes('bad__broken: structuredContent does not match'))).toHaveLength(1);
  });
});
