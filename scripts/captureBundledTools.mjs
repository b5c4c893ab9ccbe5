// Captures the tools/list of the bundled config's npm servers (node_modules) into
// test/fixtures/catalogs/bundled.json, `{ "<server key>": Tool[] }`, for pure tests that need the
// real schemas without starting processes (deprecation ranking, nested manifest params).
// Run: `node scripts/captureBundledTools.mjs` after updating those packages.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'toolshelf-capture-'));
const servers = {
  files: ['server-filesystem', scratch],
  memory: ['server-memory'],
  everything: ['server-everything', 'stdio'],
  thinking: ['server-sequential-thinking'],
};
const captured = {};
try {
  for (const [key, [pkg, ...args]] of Object.entries(servers)) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js'), ...args],
      stderr: 'ignore',
      env: { ...process.env, MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
    });
    const client = new Client({ name: 'toolshelf-capture', version: '1.0.0' });
    await client.connect(transport);
    captured[key] = (await client.listTools()).tools;
    await client.close();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
writeFileSync(join(root, 'test', 'fixtures', 'catalogs', 'bundled.json'), `${JSON.stringify(captured, null, 1)}\n`);
console.error(Object.entries(captured).map(([key, tools]) => `${key}: ${tools.length} tools`).join(', '));
