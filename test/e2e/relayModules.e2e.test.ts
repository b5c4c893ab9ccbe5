/**
 * The stdio relay a client runs to reach the shared instance only moves bytes, so it loads no more
 * than that needs: one module, dist/cli.js, into which the relay is bundled at build, and nothing from
 * node_modules (no MCP SDK, ajv, minisearch or gpt-tokenizer) nor the config's validation, which the
 * running instance did; counted by the modules it loads (test/fixtures/moduleList.mjs), while the
 * instance it relays to does load the SDK (its server package; the client package only with an
 * upstream). See docs/performance.md, "Memory".
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { alive, cliPath, repoRoot, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

describe('what the stdio relay loads', () => {
  const lists = join(tempDir(), 'modules');
  /** The relay that started the instance, and one that joined it. */
  let starterPid: number;
  let joinerPid: number;
  let instancePid: number;
  beforeAll(async () => {
    const env = { ...process.env, NODE_OPTIONS: `--import ${join(repoRoot, 'test', 'fixtures', 'moduleList.mjs')}`, MODULE_LIST: lists } as Record<string, string>;
    const config = writeConfig({ mcpServers: {} });
    const connect = async (): Promise<{ client: Client; pid: number }> => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config, '--share'], env, stderr: 'ignore' });
      const client = new Client({ name: 'relay-modules', version: '1.0.0' });
      await client.connect(transport);
      await client.listTools();
      return { client, pid: transport.pid as number };
    };
    const starter = await connect();
    const joiner = await connect();
    starterPid = starter.pid;
    joinerPid = joiner.pid;
    const shared = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
    const pidFile = readdirSync(shared).find((f) => f.endsWith('.pid'));
    instancePid = Number(readFileSync(join(shared, pidFile!), 'utf8').trim());
    await Promise.all([starter.client.close(), joiner.client.close()]);
    await waitFor(() => !alive(starterPid) && !alive(joinerPid), 10_000);
  }, 60_000);
  afterAll(async () => {
    if (alive(instancePid)) process.kill(instancePid, 'SIGTERM');
    await waitFor(() => !alive(instancePid), 10_000);
  });

  const loaded = (pid: number): string[] => {
    const file = `${lists}.${pid}`;
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  };

  const own = (urls: string[]): string[] => urls.filter((url) => url.startsWith('file:')).map((url) => url.slice(url.lastIndexOf('/dist/') + 1));

  it('a relay that joins a running instance loads dist/cli.js alone; the instance loads the SDK', () => {
    expect(own(loaded(joinerPid))).toEqual(['dist/cli.js']);
    // The instance's name is hashed without node:crypto (lib/sha256.ts), ~0.9 MiB less.
    expect(loaded(joinerPid)).not.toContain('node:crypto');
    expect(loaded(instancePid).some((url) => url.includes('/node_modules/@modelcontextprotocol/server/'))).toBe(true);
  });

  it('the instance with no upstreams loads no MCP client package: the upstream pool imports it with the first upstream', () => {
    const instance = loaded(instancePid);
    expect(instance.length).toBeGreaterThan(0);
    expect(instance.filter((url) => url.includes('/node_modules/@modelcontextprotocol/client/'))).toEqual([]);
    expect(own(instance)).not.toContain('dist/upstream/connection.js');
  });

  it('the relay that starts the instance validates the config first, with the validator compiled at build, and loads no SDK, minisearch or gpt-tokenizer', () => {
    const starter = loaded(starterPid);
    expect(own(starter)).toContain('dist/config/validate.js');
    const heavy = starter.filter((url) => /\/node_modules\/(@modelcontextprotocol|ajv|minisearch|gpt-tokenizer|zod)\//.test(url));
    expect(heavy.map((url) => url.slice(url.indexOf('/node_modules/')))).toEqual(['/node_modules/ajv/dist/runtime/ucs2length.js']);
  });
});
