/**
 * A bad config is refused before anything starts: non-zero exit and every problem by JSON path;
 * `${VAR}` works in every string, validated after expansion.
 * Source: docs/configuration.md, "Syntax and errors".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, fixture, tempDir, writeConfig } from '../helpers/gateway.js';
import { startHttpFixture } from '../upstream/e2eHelpers.js';

function run(configPath: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cliPath, '--config', configPath, '--no-share'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TOOLSHELF_STATE_DIR: process.env.TOOLSHELF_STATE_DIR ?? '', ...env }, timeout: 20_000, input: '' });
}

/** Writes raw JSON text (keeps keys such as "__proto__" as written) as a config file; returns its path. */
function writeText(text: string): string {
  const path = join(tempDir(), 'servers.config.json');
  writeFileSync(path, text);
  return path;
}

/** `toolshelf inspect --json` without blocking the event loop (an HTTP fixture may be serving). */
function inspect(configPath: string, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, 'inspect', '--json', '--config', configPath], {
      env: { PATH: process.env.PATH ?? '', TOOLSHELF_STATE_DIR: process.env.TOOLSHELF_STATE_DIR ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

type Inspected = { servers: { key: string; status: string; direct: number }[] };

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
    const result = spawnSync(process.execPath, [cliPath, '--config', path, '--no-share'], { encoding: 'utf8', input: '', timeout: 20_000 });
    expect(result.stderr).not.toMatch(/problem/);
  });
});

describe('${VAR} in fields the schema checks', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((child) => child.kill('SIGTERM')));
  const text = '{"mcpServers":{"a":{"url":"${BREAKER_URL}","exposure":"${BREAKER_EXPO}"}}}';

  it('accepts "url": "${BREAKER_URL}" and "exposure": "${BREAKER_EXPO}" when both are set, and uses them', async () => {
    const remote = await startHttpFixture(fixture('httpSessions.mjs'));
    children.push(remote.child);
    const result = await inspect(writeText(text), { BREAKER_URL: remote.url, BREAKER_EXPO: 'direct' });
    expect(result.stderr).not.toMatch(/problem/);
    expect(result.status).toBe(0);
    expect((JSON.parse(result.stdout) as Inspected).servers).toMatchObject([{ key: 'a', status: 'ready', direct: 2 }]);
  });

  it('names each missing variable once, without the schema complaints at the same paths', async () => {
    const result = await inspect(writeText(text));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('has 2 problem(s)');
    expect(result.stderr).toContain('/mcpServers/a/exposure: environment variable ${BREAKER_EXPO} is not set');
    expect(result.stderr).toContain('/mcpServers/a/url: environment variable ${BREAKER_URL} is not set');
  });

  it('refuses command "${X:-}" at load (exit 2) instead of failing at spawn', async () => {
    const result = await inspect(writeText('{"mcpServers":{"a":{"command":"${X:-}"}}}'));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('/mcpServers/a/command: must NOT have fewer than 1 characters (expanded from "${X:-}")');
    expect(result.stderr).not.toMatch(/cannot be empty/);
  });
});

describe('server keys that name object internals', () => {
  it('refuses a "__proto__" server (exit 2) instead of starting with 0 upstreams', async () => {
    const result = await inspect(writeText(`{"mcpServers":{"__proto__":{"command":"node","args":[${JSON.stringify(fixture('counter.mjs'))}]}}}`));
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('/mcpServers/__proto__: is a reserved name');
  });

  it('starts a server keyed "toString" with a "toString" tool rule like any other', async () => {
    const result = await inspect(writeText(`{"mcpServers":{"toString":{"command":"node","args":[${JSON.stringify(fixture('counter.mjs'))}],"tools":{"toString":{"exposure":"hidden"},"call_count":{"exposure":"direct"}}}}}`));
    expect(result.status).toBe(0);
    expect((JSON.parse(result.stdout) as Inspected).servers).toMatchObject([{ key: 'toString', status: 'ready', direct: 1 }]);
  });
});

describe('mistyped commands', () => {
  it('names the command a mistyped word is close to, exit 2; a word close to none is still a stray argument', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', input: '', timeout: 20_000 });
    const typo = run('inpsect');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe('toolshelf: unknown command "inpsect"; did you mean "inspect"? (toolshelf --help lists the commands)\n');
    expect(run('serach', 'a query').stderr).toContain('did you mean "search"?');
    const stray = run('banana');
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain("Unexpected argument 'banana'");
  });
});
