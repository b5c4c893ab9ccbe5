/**
 * A bad config is refused before anything starts: non-zero exit and every problem by JSON path.
 * Source: issue #2 item 2, DESIGN §12.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath, tempDir, writeConfig } from '../helpers/gateway.js';

function run(configPath: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cliPath, '--config', configPath], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000, input: '' });
}

describe('a bad config file', () => {
  it('exits 2 and lists every problem by JSON path', () => {
    const path = writeConfig({
      mcpServers: {
        files: { command: 'npx', args: 'not-an-array', exposure: 'sometimes' },
        both: { command: 'x', url: 'http://127.0.0.1:1/mcp' },
        neither: { env: { A: 'b' } },
        remote: { url: 'ftp://example', args: ['x'] },
        tokens: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${TOOLSHELF_TEST_MISSING_TOKEN}' } },
      },
      discovery: { maxLimit: 0, extra: true },
      naming: { separator: '.' },
      colour: 'blue',
    });
    const result = run(path);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    const err = result.stderr;
    for (const expected of [
      '/mcpServers/files/args: must be array',
      '/mcpServers/files/exposure: must be one of "direct", "deferred", "hidden"',
      '/mcpServers/both: has both "command" and "url"; give one',
      '/mcpServers/neither: needs "command" (stdio) or "url" (remote)',
      '/mcpServers/remote/url: must match pattern',
      '/mcpServers/remote/args: does not apply to a remote server',
      '/mcpServers/tokens/headers/Authorization: environment variable ${TOOLSHELF_TEST_MISSING_TOKEN} is not set',
      '/discovery/maxLimit: must be >= 1',
      '/discovery/extra: is not a known key',
      '/naming/separator: must match pattern',
      '/colour: is not a known key',
    ]) {
      expect(err).toContain(expected);
    }
  });

  it('reports unreadable files and JSON syntax errors at /', () => {
    const dir = tempDir();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "mcpServers": { ');
    expect(run(broken).stderr).toMatch(/\/: not valid JSON/);
    const missing = run(join(dir, 'nope.json'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/\/: cannot read/);
  });

  it('expands ${VAR} and ${VAR:-default} from the environment', () => {
    const path = writeConfig({ mcpServers: { a: { command: '${TOOLSHELF_TEST_CMD:-node}', args: ['-e', ''] } }, discovery: { enabled: true } });
    const result = spawnSync(process.execPath, [cliPath, '--config', path], { encoding: 'utf8', input: '', timeout: 20_000 });
    expect(result.stderr).not.toMatch(/problem/);
  });
});
