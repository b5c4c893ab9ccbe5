/**
 * `toolshelf inspect` through the built CLI on fixture upstreams: the numbers in `--json` (per tool,
 * per server, totals), the plain-text tables, the exit code, and that no upstream outlives it.
 * Source: docs/cli.md, docs/tools.md, docs/robustness.md.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { alive, cliPath, descendants, fixture, waitFor, writeConfig } from '../helpers/gateway.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Every process below the CLI seen while it ran. */
  readonly seen: readonly number[];
}

/** Runs `dist/cli.js inspect ...args`, sampling its process tree while it runs. */
async function inspect(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [cliPath, 'inspect', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const seen = new Set<number>();
  const sampler = setInterval(() => descendants(child.pid as number).forEach((p) => seen.add(p)), 20);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearInterval(sampler);
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), seen: [...seen] };
}

function fixtureConfig(): string {
  return writeConfig({
    mcpServers: {
      counter: { command: 'node', args: [fixture('counter.mjs')], tools: { set_mode: { exposure: 'direct' }, fail: { exposure: 'hidden' } } },
      big: { command: 'node', args: [fixture('bigSchema.mjs')] },
    },
  });
}

/** The subset of the `--json` report these tests read. */
interface Report {
  servers: {
    key: string;
    status: string;
    direct: number;
    deferred: number;
    hidden: number;
    canonicalBytes: number;
    projectedBytes: number;
    maxRung: number;
    tokens: number;
    tools: { name: string; exposure: string; canonicalBytes: number; projectedBytes: number; rung: number; tokens: number; withinBudget: boolean }[];
  }[];
  totals: {
    direct: number;
    deferred: number;
    hidden: number;
    allDirect: { bytes: number; tokens: number };
    configured: { bytes: number; tokens: number };
    savedPercent: number;
  };
  overBudget: unknown[];
  manifest: { text: string; bytes: number; tokens: number } | null;
  manifests: { clients: string[]; text: string; bytes: number }[];
}

describe('toolshelf inspect', () => {
  it('--json reports every tool with canonical and projected bytes, the rung, tokens and the totals; exits 0 and leaves no process', async () => {
    const run = await inspect(['--config', fixtureConfig(), '--json']);
    expect(run.code).toBe(0);
    expect(run.seen.length).toBeGreaterThanOrEqual(2);
    expect(await waitFor(() => run.seen.every((p) => !alive(p)), 5000)).toBe(true);
    const report = JSON.parse(run.stdout) as Report;

    const [counter, big] = report.servers;
    expect(counter).toMatchObject({ key: 'counter', status: 'ready', direct: 1, deferred: 4, hidden: 1, maxRung: 0 });
    expect(counter?.tools.find((t) => t.name === 'counter__set_mode')).toMatchObject({ exposure: 'direct', rung: 0, withinBudget: true });
    expect(counter?.tools.some((t) => t.name === 'counter__fail')).toBe(false);

    const search = big?.tools.find((t) => t.name === 'big__search_records');
    expect(search?.rung).toBeGreaterThan(0);
    expect(search?.canonicalBytes).toBeGreaterThan(5000);
    expect(search?.projectedBytes).toBeLessThanOrEqual(5000);
    expect(search?.tokens).toBe(Math.ceil((search?.projectedBytes ?? 0) / 4));
    const plain = big?.tools.find((t) => t.name === 'big__plain');
    expect(plain?.projectedBytes).toBe(plain?.canonicalBytes);
    expect(big).toMatchObject({ key: 'big', direct: 0, deferred: 4, hidden: 0, maxRung: search?.rung });
    for (const server of report.servers) {
      expect(server.canonicalBytes).toBe(server.tools.reduce((sum, t) => sum + t.canonicalBytes, 0));
      expect(server.projectedBytes).toBe(server.tools.reduce((sum, t) => sum + t.projectedBytes, 0));
    }

    const { totals } = report;
    expect(totals).toMatchObject({ direct: 1, deferred: 8, hidden: 1 });
    expect(totals.allDirect.bytes).toBeGreaterThan(counter!.canonicalBytes + big!.canonicalBytes);
    expect(totals.configured.bytes).toBeLessThan(totals.allDirect.bytes);
    expect(totals.allDirect.tokens).toBe(Math.ceil(totals.allDirect.bytes / 4));
    expect(totals.savedPercent).toBeCloseTo((1 - totals.configured.bytes / totals.allDirect.bytes) * 100, 1);
    expect(report.overBudget).toEqual([]);
    expect(report.manifest?.text).toContain('big__search_records');
    expect(report.manifest?.text).not.toContain('counter__fail');
  });

  it('prints a table per server, the totals and the manifest as text', async () => {
    const run = await inspect(['--config', fixtureConfig()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^## counter$/m);
    expect(run.stdout).toMatch(/^## big$/m);
    expect(run.stdout).toMatch(/^\| big__search_records \| deferred \| 10,654 \| [\d,]+ \| [1-6] \| [\d,]+ \| kept \|$/m);
    expect(run.stdout).toMatch(/^\| all direct \(the upstreams registered directly\) \| [\d,]+ \| [\d,]+ \|$/m);
    expect(run.stdout).toMatch(/^## Manifest: the tool_search description each kind of client receives$/m);
    expect(run.stdout).toMatch(/^### 2025-era client, unnamed or not known to honour list_changed \(offered call_tool\): [\d,]+ bytes/m);
    expect(run.stdout).toMatch(/^### .*2026-07-28 client: [\d,]+ bytes/m);
    expect(run.stdout).toMatch(/^- rung: the last step of schema compaction/m);
    expect(run.stdout).toMatch(/^- description: kept as the upstream gave it, clipped \(cut to the description budget\)/m);
    expect(run.stderr).not.toMatch(/^toolshelf: upstreams:/m);
  });

  it('lists the tools whose top-level surface cannot fit the budget', async () => {
    const path = writeConfig({
      mcpServers: { big: { command: 'node', args: [fixture('bigSchema.mjs')], schemas: { compaction: { maxSchemaBytes: 100 } } } },
    });
    const run = await inspect(['--config', path, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report & { overBudget: { name: string; projectedBytes: number }[] };
    expect(report.overBudget.map((o) => o.name)).toEqual(['big__plain', 'big__search_records']);
    expect(report.overBudget.every((o) => o.projectedBytes > 100)).toBe(true);
  });

  it('a signal during start-up ends inspect and every upstream it started', async () => {
    const hang = writeConfig({ mcpServers: { hang: { command: 'node', args: ['-e', 'setInterval(() => {}, 1000)'] } } });
    const child = spawn(process.execPath, [cliPath, 'inspect', '--config', hang], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(await waitFor(() => descendants(child.pid as number).length > 0, 10_000)).toBe(true);
    const tree = descendants(child.pid as number);
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(await waitFor(() => tree.every((p) => !alive(p)), 5000)).toBe(true);
  });

  it("waits for an upstream that starts after the serving gateway's start-up wait, rather than ending it (a first `npx -y` download was killed every time)", async () => {
    const path = writeConfig({ mcpServers: { slow: { command: 'node', args: [fixture('slowInit.mjs')], env: { INIT_DELAY_MS: '1500' } } } });
    const run = await inspect(['--config', path, '--json'], { TOOLSHELF_STARTUP_WAIT_MS: '100' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.servers.map((server) => [server.key, server.status, server.tools.map((t) => t.name)])).toEqual([['slow', 'ready', ['slow__late_tool']]]);
  });

  it('an upstream that does not start in time is reported with the start timeout named, so it can be raised', async () => {
    const path = writeConfig({ mcpServers: { hang: { command: 'node', args: ['-e', 'setInterval(() => {}, 1000)'], startTimeoutMs: 500 } } });
    const run = await inspect(['--config', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/hang: .*did not finish starting within 0\.5 s \(startTimeoutMs\)/);
  });

  it('exits 3 when an upstream failed to start, with the report printed and no word of retries', async () => {
    const path = writeConfig({
      mcpServers: { counter: { command: 'node', args: [fixture('counter.mjs')] }, gone: { command: 'node', args: [fixture('dies.mjs')] } },
    });
    const run = await inspect(['--config', path, '--json']);
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.servers.map((server) => [server.key, server.status])).toEqual([
      ['counter', 'ready'],
      ['gone', 'failed'],
    ]);
    expect(run.stderr).toMatch(/upstream "gone" failed to start/);
    expect(run.stderr).not.toMatch(/retried/);
  });

  it('shows the tool_search description exactly as each kind of client receives it', async () => {
    const path = fixtureConfig();
    const run = await inspect(['--config', path, '--json']);
    const report = JSON.parse(run.stdout) as Report;
    // A gateway of its own per client, through the real CLI over stdio.
    const received = async (client: Client): Promise<string | undefined> => {
      try {
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', path, '--no-share'], stderr: 'ignore' }));
        return (await client.listTools()).tools.find((tool) => tool.name === 'tool_search')?.description;
      } finally {
        await client.close();
      }
    };
    const unnamed = report.manifests.find((m) => m.clients.some((c) => c.startsWith('2025-era client, unnamed')));
    const modern = report.manifests.find((m) => m.clients.includes('2026-07-28 client'));
    expect(await received(new Client({ name: 'some-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } }))).toBe(unnamed?.text);
    expect(await received(new Client({ name: 'some-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }))).toBe(modern?.text);
    expect(report.manifest?.text).toBe(unnamed?.text);
    expect(unnamed?.text).not.toBe(modern?.text);
  });

  it('a bad config exits 2 with the problem on stderr and nothing on stdout', async () => {
    const run = await inspect(['--config', writeConfig({ mcpServers: { x: { command: 42 } } }), '--json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/\/mcpServers\/x/);
  });
});
