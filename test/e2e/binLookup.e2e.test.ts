/**
 * A misspelt bare command is answered with the closest program on the PATH the upstream gets.
 * A config outside any project names a server by the bin toolshelf installed beside itself
 * (`mcp-server-memory`, a dependency), with no node_modules/.bin on PATH: the upstream still starts,
 * found beside toolshelf's own package (the lookup used to look only beside the config).
 */
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, tempDir, writeConfig } from '../helpers/gateway.js';

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('bare upstream commands', () => {
  it('finds a bin installed beside toolshelf for a config in a folder with no node_modules', async () => {
    const dir = tempDir('toolshelf-binlookup-');
    const config = writeConfig({ mcpServers: { memory: { command: 'mcp-server-memory', env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, exposure: 'direct' } } }, dir);
    const PATH = (process.env.PATH ?? '').split(delimiter).filter((folder) => !folder.includes('node_modules')).join(delimiter);
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config], env: { ...process.env, PATH } as Record<string, string>, stderr: 'pipe' });
    client = new Client({ name: 'bin-lookup', version: '1.0.0' });
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('memory__read_graph');
  });

  it('suggests the closest program on the upstream\'s PATH for a misspelt command', () => {
    const dir = tempDir('toolshelf-binlookup-');
    const config = writeConfig({ mcpServers: { memory: { command: 'mcp-server-memroy' } } }, dir);
    const PATH = (process.env.PATH ?? '').split(delimiter).filter((folder) => !folder.includes('node_modules')).join(delimiter);
    const run = spawnSync(process.execPath, [cliPath, 'inspect', '--config', config], { env: { ...process.env, PATH, TOOLSHELF_STATE_DIR: join(dir, 'state') }, encoding: 'utf8' });
    expect(run.stderr).toContain('command "mcp-server-memroy" was not found (ENOENT); did you mean "mcp-server-memory"?');
    expect(run.status).not.toBe(0);
  });
});
