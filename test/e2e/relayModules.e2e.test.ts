/**
 * The stdio relay a client runs to reach the shared instance only moves bytes, so it loads no more
 * than that needs: none of the MCP SDK, ajv (but the runtime helper of the config validator compiled
 * at build), minisearch or gpt-tokenizer, counted by the modules it loads (test/fixtures/moduleList.mjs),
 * while the instance it relays to does load the SDK. See docs/performance.md, "Memory".
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { alive, cliPath, repoRoot, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

describe('what the stdio relay loads', () => {
  const lists = join(tempDir(), 'modules');
  let relayPid: number;
  let instancePid: number;
  beforeAll(async () => {
    const env = { ...process.env, NODE_OPTIONS: `--import ${join(repoRoot, 'test', 'fixtures', 'moduleList.mjs')}`, MODULE_LIST: lists } as Record<string, string>;
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', writeConfig({ mcpServers: {} }), '--share'], env, stderr: 'ignore' });
    const client = new Client({ name: 'relay-modules', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    relayPid = transport.pid as number;
    const shared = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
    const pidFile = readdirSync(shared).find((f) => f.endsWith('.pid'));
    instancePid = Number(readFileSync(join(shared, pidFile!), 'utf8').trim());
    await client.close();
    await waitFor(() => !alive(relayPid), 10_000);
  }, 60_000);
  afterAll(async () => {
    if (alive(instancePid)) process.kill(instancePid, 'SIGTERM');
    await waitFor(() => !alive(instancePid), 10_000);
  });

  const loaded = (pid: number): string[] => {
    const file = `${lists}.${pid}`;
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  };

  it('the relay loads none of the SDK, ajv, minisearch or gpt-tokenizer; the instance loads the SDK', () => {
    const relay = loaded(relayPid);
    expect(relay.length).toBeGreaterThan(10);
    const heavy = relay.filter((url) => /\/node_modules\/(@modelcontextprotocol|ajv|minisearch|gpt-tokenizer|zod)\//.test(url));
    expect(heavy.map((url) => url.slice(url.indexOf('/node_modules/')))).toEqual(['/node_modules/ajv/dist/runtime/ucs2length.js']);
    expect(loaded(instancePid).some((url) => url.includes('/node_modules/@modelcontextprotocol/server/'))).toBe(true);
  });
});
