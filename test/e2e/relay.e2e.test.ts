/**
 * An upstream's sampling and elicitation requests reach the client that made the call, and its
 * answers go back to the upstream; a client without the capability gets an isError, never a hang.
 * Source: docs/tools.md (the rest of MCP passed through); MCP spec, Client features.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { cliPath, fixture, startStdio, textOf, writeConfig } from '../helpers/gateway.js';

describe('sampling and elicitation relayed to the client', () => {
  const configPath = (): string => writeConfig({ mcpServers: { asker: { command: 'node', args: [fixture('asker.mjs')], exposure: 'direct' } } });
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'capable-client', version: '1' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler('sampling/createMessage', (request) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `summary of ${JSON.stringify(request.params.messages[0]?.content)}`.slice(0, 60) },
    }));
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { ok: true } }));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', configPath(), '--no-share'], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
  });
  afterAll(() => client.close());

  it('sampling/createMessage from the upstream is answered by the client', async () => {
    const result = await client.callTool({ name: 'asker__summarize', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^model said: summary of/);
  });

  it('elicitation/create from the upstream is answered by the client', async () => {
    const result = await client.callTool({ name: 'asker__confirm', arguments: {} });
    expect(textOf(result)).toBe('user said: accept {"ok":true}');
  });

  it('a client without the capability gets an isError result, not a hang', async () => {
    const plain = await startStdio(configPath());
    try {
      const result = await plain.client.callTool({ name: 'asker__summarize', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/sampling/);
    } finally {
      await plain.close();
    }
  });
});
