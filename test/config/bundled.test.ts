/**
 * The bundled servers.config.json as a user's machine expands it (the memory
 * server's knowledge graph went to a fixed file in /tmp, readable by every user of the machine, and
 * the demo server's `get-env` showed the model the whole shell environment the gateway was started from).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { childEnvironment } from '../../src/upstream/process.js';

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

  it("gives the demo server, whose get-env tool prints its environment to the model, none of the shell's secrets", () => {
    const loaded = loadConfig(bundled, { HOME: '/home/ada' });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const everything = loaded.value.mcpServers.everything;
    if (!everything || !('command' in everything)) throw new Error('the bundled config has no stdio everything server');
    const shell = { HOME: '/home/ada', PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_secret', AWS_SECRET_ACCESS_KEY: 'aws-secret', LANG: 'en_GB.UTF-8' };
    const env = childEnvironment(everything, shell);
    expect(Object.values(env).join('\n')).not.toMatch(/secret/);
    expect(env.HOME).toBe('/home/ada');
    expect(env.PATH).toBe('/usr/bin');
  });
});
