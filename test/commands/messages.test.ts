/**
 * `inspect` and `search` say what is wrong when nothing can be reported: exit 1 when no upstream
 * connected, naming each upstream with its cause (a remote one by host and the cause under "fetch
 * failed"; a failing `npx` by npm's error, not its log path); both take --log-level. The exact inputs
 * that printed "0 matches" / "0% smaller" with exit 0, or a bare "fetch failed". Source: docs/robustness.md.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { alive, cliPath, descendants, serverEntry, waitFor, writeConfig } from '../helpers/gateway.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seen: readonly number[];
}

/** Runs `dist/cli.js …args`, sampling its process tree while it runs. */
async function cli(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const seen = new Set<number>();
  const sampler = setInterval(() => descendants(child.pid as number).forEach((p) => seen.add(p)), 20);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearInterval(sampler);
  return { code, stdout, stderr, seen: [...seen] };
}

/** A 127.0.0.1 port that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('no upstream connected', () => {
  it('search exits 1 naming each upstream and its cause, instead of "0 matches" and exit 0', async () => {
    const port = await closedPort();
    const config = writeConfig({ mcpServers: { gone: { command: 'toolshelf-no-such-command' }, remote: { url: `http://127.0.0.1:${port}/mcp`, transport: 'streamable-http' } } });
    const run = await cli(['search', 'read a file', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('toolshelf: error: no upstream connected (0 of 2), so there is nothing to report:');
    expect(run.stderr).toContain('  gone: command "toolshelf-no-such-command" was not found (ENOENT)');
    // The host and the cause under fetch's bare "fetch failed" (whichever request failed first: the era probe).
    expect(run.stderr).toMatch(new RegExp(`\\n  remote: 127\\.0\\.0\\.1:${port}: (?:[^\\n]*: )?fetch failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\n`));
    expect(await waitFor(() => run.seen.every((p) => !alive(p)), 5000)).toBe(true);
  });

  it('a refused remote in the default transport mode is reported with the Streamable HTTP failure, not the SSE fallback\'s', async () => {
    const port = await closedPort();
    const config = writeConfig({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } } });
    const run = await cli(['inspect', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`\\n  remote: 127\\.0\\.0\\.1:${port}: (?:[^\\n]*: )?fetch failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\n`));
    expect(run.stderr).not.toContain('SSE error');
  });

  it('inspect exits 1 and prints no report ("0% smaller") when nothing connected', async () => {
    const config = writeConfig({ mcpServers: { gone: { command: 'toolshelf-no-such-command' } } });
    const run = await cli(['inspect', '--json', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('toolshelf: no upstream connected (0 of 1), so there is nothing to report:\n  gone: command "toolshelf-no-such-command" was not found (ENOENT)');
  });

  it('an npx upstream that npm cannot install is quoted by npm\'s error, not "A complete log of this run…"', async () => {
    const config = writeConfig({ mcpServers: { missing: { command: 'npx', args: ['--offline', '-y', '@modelcontextprotocol/server-toolshelf-nope'] } } });
    const run = await cli(['inspect', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/missing: .*\(stderr: npm error code ENOTCACHED: request to https:\/\/registry\.npmjs\.org\/@modelcontextprotocol%2fserver-toolshelf-nope failed/);
    expect(run.stderr).not.toContain('A complete log of this run');
  });

  it('one upstream connected is enough: search runs and exits 0', async () => {
    const config = writeConfig({ mcpServers: { gone: { command: 'toolshelf-no-such-command' }, everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] } } });
    const run = await cli(['search', 'echo', '--config', config]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('everything__echo');
  });
});

describe('--log-level for inspect and search', () => {
  const config = (): string => writeConfig({ mcpServers: { gone: { command: 'toolshelf-no-such-command' } } });

  it('debug shows the start attempts that warn (the default) hides; a one-shot command retries nothing', async () => {
    const quiet = await cli(['search', 'x', '--config', config()]);
    const loud = await cli(['search', 'x', '--config', config(), '--log-level', 'debug']);
    expect(quiet.stderr).not.toContain('trying the next transport');
    expect(loud.stderr).toContain('debug: upstream "gone": command "toolshelf-no-such-command" was not found (ENOENT); trying the next transport');
    expect(loud.stderr).not.toContain('will be retried');
    const inspected = await cli(['inspect', '--config', config(), '--log-level', 'error']);
    expect(inspected.stderr).toContain('error: upstream "gone" failed to start');
  });

  it('an unknown level exits 2 naming the levels', async () => {
    for (const command of ['search', 'inspect']) {
      const run = await cli([command, ...(command === 'search' ? ['x'] : []), '--config', config(), '--log-level', 'loud']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--log-level must be debug, info, warn or error, got "loud"');
      expect(run.seen).toHaveLength(0);
    }
  });
});
