/**
 * `toolshelf search` through the built CLI on real upstreams (server-everything, server-filesystem):
 * what it prints, its `--json` output against a live gateway's tool_search structuredContent, the
 * limit clamp, usage errors, exit codes, and that every upstream process it started is gone after.
 * Source: docs/cli.md (`search`); docs/tools.md (tool_search answer and limit), docs/robustness.md (nothing left running).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, cliPath, descendants, serverEntry, startStdio, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Every descendant process seen while the command ran. */
  readonly seen: ReadonlySet<number>;
}

/** Runs `node dist/cli.js search …`, polling its process tree until it exits. */
async function runCli(args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [cliPath, 'search', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const seen = new Set<number>();
  const poll = setInterval(() => descendants(child.pid as number).forEach((pid) => seen.add(pid)), 10);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(poll);
  return { code, stdout, stderr, seen };
}

/** Asserts that every process the command started has ended. */
async function expectNothingLeft(run: CliRun): Promise<void> {
  expect(await waitFor(() => [...run.seen].every((pid) => !alive(pid)), 5000)).toBe(true);
}

function sandboxedConfig(discovery: Record<string, unknown> = {}): string {
  const dir = tempDir();
  const sandbox = join(dir, 'sandbox');
  mkdirSync(sandbox);
  writeFileSync(join(sandbox, 'notes.txt'), 'notes\n');
  return writeConfig(
    {
      mcpServers: {
        files: { command: 'node', args: [serverEntry('filesystem'), sandbox], tools: { 'move_*': { exposure: 'hidden' } } },
        everything: { command: 'node', args: [serverEntry('everything'), 'stdio'], tools: { echo: { exposure: 'direct' } } },
      },
      discovery,
    },
    dir,
  );
}

describe('toolshelf search', () => {
  let config: string;
  beforeAll(() => {
    config = sandboxedConfig();
  });

  it('prints the matches with required-parameter signatures and descriptions, exits 0, and leaves no process', async () => {
    const run = await runCli(['read the text contents of a file', '--limit', '3', '--config', config]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('3 matches for "read the text contents of a file" (BM25; 2 strong)');
    // The strong match with its description, the others with their one-line summary.
    // `, …`: it has optional parameters too (head, tail), so `name()` is left to a tool with none.
    expect(run.stdout).toContain('1. files__read_text_file(path: string, …)\n   Read the complete contents of a file');
    expect(lines.filter((line) => /^\d\. /.test(line))).toHaveLength(3);
    expect(lines.filter((line) => line.startsWith('   (summary only) '))).toHaveLength(1);
    expect(lines.at(-2)).toMatch(/^Tools with a summary are callable too; search an exact name for its parameters\.$/);
    expect(run.stderr).toBe('');
    expect(run.seen.size).toBeGreaterThanOrEqual(2);
    await expectNothingLeft(run);
  });

  it('takes the query from several words, and never returns a direct or hidden tool', async () => {
    const [run, moves] = await Promise.all([
      runCli(['echo', 'a', 'message', '--config', config, '--json']),
      runCli(['move or rename a file', '--config', config, '--json']),
    ]);
    expect(run.code).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).not.toContain('everything__echo');
    expect(moves.stdout).not.toMatch(/move_file/);
    await expectNothingLeft(run);
    await expectNothingLeft(moves);
  });

  it('says when a direct tool matches the query, instead of leaving it out silently', async () => {
    const [text, json, hidden] = await Promise.all([
      runCli(['echo', 'a', 'message', '--config', config]),
      runCli(['echo', 'a', 'message', '--config', config, '--json']),
      runCli(['move or rename a file', '--config', config]),
    ]);
    const note = "also matching, already in the client's tool list as direct (tool_search leaves direct tools out): everything__echo";
    expect(text.stdout).toContain(note);
    expect(json.stderr).toContain(`toolshelf: ${note}`);
    expect(() => JSON.parse(json.stdout)).not.toThrow();
    expect(hidden.stdout).not.toMatch(/move_file|also matching/); // a hidden tool is never named
  });

  it('prints the no-match note and exits 0 when nothing matches; --json prints {"tools":[], "note"}', async () => {
    const [run, json] = await Promise.all([runCli(['zqxjv', '--config', config]), runCli(['zqxjv', '--config', config, '--json'])]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('0 matches (BM25)\nNo tool matches "zqxjv". Rephrase with the action and the object (e.g. "read file", "create issue"), or use a name from the index in this tool\'s description.\n');
    expect(JSON.parse(json.stdout)).toEqual({ tools: [], note: run.stdout.split('\n')[1] });
    await expectNothingLeft(run);
    await expectNothingLeft(json);
  });

  it('clamps --limit like tool_search (1..maxLimit) and says so on stderr', async () => {
    const [high, low, byDefault] = await Promise.all([
      runCli(['file', '--limit', '100', '--config', config, '--json']),
      runCli(['file', '--limit', '0', '--config', config, '--json']),
      runCli(['file', '--config', config, '--json']),
    ]);
    expect(high.code).toBe(0);
    expect((JSON.parse(high.stdout) as { tools: unknown[] }).tools.length).toBeLessThanOrEqual(20);
    expect((JSON.parse(high.stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(5);
    expect(high.stderr).toContain('--limit 100 clamped to 20');
    expect((JSON.parse(low.stdout) as { tools: unknown[] }).tools).toHaveLength(1);
    expect((JSON.parse(byDefault.stdout) as { tools: unknown[] }).tools).toHaveLength(5);
    for (const run of [high, low, byDefault]) await expectNothingLeft(run);
  });

  it('takes the limit default and clamp from discovery.defaultLimit / maxLimit', async () => {
    const custom = sandboxedConfig({ defaultLimit: 2, maxLimit: 3 });
    const [byDefault, high] = await Promise.all([runCli(['file', '--config', custom, '--json']), runCli(['file', '--limit', '9', '--config', custom, '--json'])]);
    expect((JSON.parse(byDefault.stdout) as { tools: unknown[] }).tools).toHaveLength(2);
    expect((JSON.parse(high.stdout) as { tools: unknown[] }).tools).toHaveLength(3);
    for (const run of [byDefault, high]) await expectNothingLeft(run);
  });

  it('exits 2 with the usage on a missing query, a non-integer limit or an unknown flag, starting nothing', async () => {
    for (const args of [['--config', config], ['file', '--limit', 'x', '--config', config], ['file', '--frobnicate', '--config', config]]) {
      const run = await runCli(args);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('Usage: toolshelf search "QUERY"');
      expect(run.seen.size).toBe(0);
    }
  });

  it('exits 2 naming each problem of a bad config', async () => {
    const bad = writeConfig({ mcpServers: { broken: { command: 42 } } });
    const run = await runCli(['file', '--config', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('/mcpServers/broken/command');
    expect(run.seen.size).toBe(0);
  });

  it('a SIGTERM during start-up exits 143 and ends every upstream already started', async () => {
    const child = spawn(process.execPath, [cliPath, 'search', 'file', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    const seen = new Set<number>();
    const started = await waitFor(() => {
      descendants(child.pid as number).forEach((pid) => seen.add(pid));
      return seen.size >= 1;
    }, 10_000);
    expect(started).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await waitFor(() => [...seen].every((pid) => !alive(pid)), 5000)).toBe(true);
  });

  it('warns when discovery is disabled: clients get no tool_search', async () => {
    const run = await runCli(['file', '--config', sandboxedConfig({ enabled: false })]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('discovery.enabled is false');
    await expectNothingLeft(run);
  });
});

describe('toolshelf search --json equals what tool_search returns to a client', () => {
  let config: string;
  let gateway: Awaited<ReturnType<typeof startStdio>>;
  beforeAll(async () => {
    config = sandboxedConfig();
    gateway = await startStdio(config);
  });
  afterAll(() => gateway.close());

  for (const [query, limit] of [['read the text contents of a file', 3], ['add two numbers', 5], ['zqxjv', 5], ['files__write_file', 1]] as const) {
    it(`"${query}" limit ${limit}`, async () => {
      const run = await runCli([query, '--limit', String(limit), '--config', config, '--json']);
      const answer = await gateway.client.callTool({ name: 'tool_search', arguments: { query, limit } });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(answer.structuredContent);
      await expectNothingLeft(run);
    });
  }
});
