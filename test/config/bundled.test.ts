/**
 * The bundled servers.config.json as a user's machine expands it (breaker/newcomer finding: the memory
 * server's knowledge graph went to a fixed file in /tmp, readable by every user of the machine).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';

const bundled = fileURLToPath(new URL('../../servers.config.json', import.meta.url));

function memoryFile(env: Record<string, string>): string | undefined {
  const loaded = loadConfig(bundled, env);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value.mcpServers.memory?.env?.MEMORY_FILE_PATH;
}

describe('the bundled servers.config.json', () => {
  it("keeps the memory server's knowledge graph in the user's home", () => {
    expect(memoryFile({ HOME: '/home/ada', TMPDIR: '/tmp' })).toBe('/home/ada/.toolshelf-memory.jsonl');
  });

  it('still loads without HOME: the temporary folder, then /tmp', () => {
    expect(memoryFile({ TMPDIR: '/var/tmp/ada' })).toBe('/var/tmp/ada/.toolshelf-memory.jsonl');
    expect(memoryFile({})).toBe('/tmp/.toolshelf-memory.jsonl');
  });
});
