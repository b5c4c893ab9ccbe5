/**
 * Clean exit: after the client disconnects, or on SIGTERM / SIGINT, no process the gateway started is
 * alive, including servers behind `npx` and a shell. Source: docs/robustness.md.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { alive, descendants, fixture, repoRoot, serverEntry, startHttp, startStdio, waitFor, writeConfig } from '../helpers/gateway.js';

function treeConfig(): string {
  return writeConfig({
    mcpServers: {
      viaNpx: { command: 'npx', args: ['--no-install', 'mcp-server-memory'], cwd: repoRoot, env: { MEMORY_FILE_PATH: '/tmp/toolshelf-test-npx.jsonl' } },
      viaShell: { command: 'sh', args: ['-c', `node ${serverEntry('sequential-thinking')}`] },
      plain: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
    },
  });
}

/** The node processes running MCP servers below `pid`. */
function serverProcesses(pid: number): number[] {
  return descendants(pid);
}

describe('no process is left behind', () => {
  it('after a stdio client disconnects (npx, sh -c, node upstreams)', async () => {
    const gw = await startStdio(treeConfig());
    const { tools } = await gw.client.listTools();
    expect(tools.find((t) => t.name === 'tool_search')?.description).toContain('viaNpx__read_graph');
    const tree = serverProcesses(gw.pid);
    expect(tree.length).toBeGreaterThanOrEqual(4);
    await gw.close();
    expect(await waitFor(() => !alive(gw.pid), 8000)).toBe(true);
    expect(await waitFor(() => tree.every((p) => !alive(p)), 8000)).toBe(true);
  });

  it('when stdin ends without a client close', async () => {
    const child = spawn(process.execPath, [`${repoRoot}dist/cli.js`, '--config', treeConfig(), '--no-share'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.resume();
    child.stdout.resume();
    expect(await waitFor(() => descendants(child.pid as number).length >= 4, 15_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    const tree = descendants(child.pid as number);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(await waitFor(() => tree.every((p) => !alive(p)), 8000)).toBe(true);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal} in HTTP mode`, async () => {
      const gw = await startHttp(treeConfig());
      const tree = descendants(gw.child.pid as number);
      expect(tree.length).toBeGreaterThanOrEqual(4);
      const exited = new Promise<number | null>((r) => gw.child.once('exit', (code) => r(code)));
      gw.child.kill(signal);
      expect(await exited).toBe(0);
      expect(await waitFor(() => tree.every((p) => !alive(p)), 8000)).toBe(true);
    });
  }
});

describe('after SIGKILL of the gateway', () => {
  it('the watchdog ends every upstream tree: npx → sh → node, sh -c wrappers, servers that ignore stdin closing and SIGTERM', async () => {
    const config = writeConfig({
      mcpServers: {
        viaNpx: { command: 'npx', args: ['--no-install', 'mcp-server-memory'], cwd: repoRoot, env: { MEMORY_FILE_PATH: '/tmp/toolshelf-test-npx.jsonl' } },
        // `; true` keeps the shell itself running as the parent (dash would otherwise exec the last command).
        viaShell: { command: 'sh', args: ['-c', `node ${fixture('stubborn.mjs')} --child; true`] },
        stubborn: { command: process.execPath, args: [fixture('stubborn.mjs')] },
      },
    });
    const child = spawn(process.execPath, [`${repoRoot}dist/cli.js`, '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    expect(await waitFor(() => stderr.includes('upstreams: 3/3 connected'), 20_000)).toBe(true);
    const tree = descendants(child.pid as number);
    // npx, its node, the shell, two stubborn servers and the grandchild, and the watchdog.
    expect(tree.length).toBeGreaterThanOrEqual(6);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // Generous: the watchdog's grace before SIGKILL is 2 s; polling, not a wall-clock assert.
    const gone = await waitFor(() => tree.every((p) => !alive(p)), 20_000);
    const left = tree.filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(gone, `still alive: ${left.join(', ')}`).toBe(true);
  });
});

describe('a busy HTTP port', () => {
  it('is refused with a clear message, exit 1, and the upstreams already started are ended', async () => {
    const first = await startHttp(treeConfig());
    const port = new URL(first.url).port;
    try {
      const child = spawn(process.execPath, [`${repoRoot}dist/cli.js`, '--config', treeConfig(), '--http', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.resume();
      const seen = new Set<number>();
      const poll = setInterval(() => descendants(child.pid as number).forEach((p) => seen.add(p)), 50);
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      clearInterval(poll);
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(await waitFor(() => [...seen].every((p) => !alive(p)), 8000)).toBe(true);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });
});
