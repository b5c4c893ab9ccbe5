/**
 * A stdio client that stops reading its stdout (the gateway's output piles up behind a full pipe)
 * still ends the gateway the usual ways, closing stdin or SIGTERM (MCP spec, Lifecycle › Shutdown ›
 * stdio), with its upstreams: the exit waited for a flush of that output that never came, so the
 * gateway lived on until killed; a client of a shared instance likewise kept its relay alive, the
 * relay waiting for the instance's last output. A raw client over real pipes, as an SDK Client
 * cannot be told to stop reading; rude.mjs floods 100,000 progress notifications (~8 MB) into a call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, cliPath, descendants, fixture, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

const started: ChildProcess[] = [];
/** Shared instances started through a relay: ended here, as they outlive their clients by design. */
const instances: number[] = [];
afterEach(async () => {
  for (const pid of instances.splice(0)) {
    const upstreams = descendants(pid);
    process.kill(pid, 'SIGTERM');
    expect(await waitFor(() => [pid, ...upstreams].every((p) => !alive(p)), 20_000)).toBe(true);
  }
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child.stdout?.destroy();
  }
});

/** Bytes process `pid` has read and written through syscalls (Linux /proc/<pid>/io: rchar, wchar). */
function ioOf(pid: number): { read: number; written: number } {
  const fields = Object.fromEntries(readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n').map((line) => line.split(': ')));
  return { read: Number(fields.rchar), written: Number(fields.wchar) };
}

/** Bytes of the flood that must sit unwritten in the gateway (read from the upstream, not written to stdout) before the client ends it. */
const PENDING_BYTES = 2_000_000;

/**
 * A gateway whose client sent a flooding call and reads nothing; resolves once the gateway holds
 * {@link PENDING_BYTES} more than it wrote since the call (read, as counted by the kernel, minus written).
 */
async function stalledGateway(share = false): Promise<{ child: ChildProcess; upstreams: number[]; exited: Promise<unknown>; instance?: number }> {
  const config = writeConfig({ mcpServers: { rude: { command: 'node', args: [fixture('rude.mjs')], exposure: 'direct', timeoutMs: 60_000 } } });
  const env = { ...process.env, TOOLSHELF_STATE_DIR: join(tempDir(), 'state') };
  const child = spawn(process.execPath, [cliPath, '--config', config, share ? '--share' : '--no-share'], { stdio: ['pipe', 'pipe', 'pipe'], env });
  started.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdout!.pause();
  child.stdin!.on('error', () => undefined);
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stalled', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'rude__progressflood', arguments: { count: 100_000 }, _meta: { progressToken: 'flood' } } },
  ];
  // Served once the summary (or, shared, the relay's note) is on stderr; from then on the gateway's
  // own reads are the flood. Shared, the gateway is the instance, which writes to the relay's socket.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin!.write(`${JSON.stringify(lines[0])}\n`);
  expect(await waitFor(() => (share ? /shared instance \(pid \d+/.test(stderr) : stderr.includes('first tools/list')), 60_000)).toBe(true);
  const instance = share ? Number(/shared instance \(pid (\d+)/.exec(stderr)![1]) : undefined;
  if (instance !== undefined) instances.push(instance);
  const gateway = instance ?? child.pid!;
  const before = ioOf(gateway);
  child.stdin!.write(lines.slice(1).map((line) => `${JSON.stringify(line)}\n`).join(''));
  const pending = (): number => {
    const now = ioOf(gateway);
    return now.read - before.read - (now.written - before.written);
  };
  expect(await waitFor(() => pending() >= PENDING_BYTES, 60_000)).toBe(true);
  const upstreams = descendants(gateway);
  expect(upstreams.length).toBeGreaterThan(0);
  return { child, upstreams, exited, ...(instance !== undefined ? { instance } : {}) };
}

describe('a stdio client that stopped reading', () => {
  it.each([
    ['SIGTERM', (child: ChildProcess) => child.kill('SIGTERM')],
    ['closing stdin', (child: ChildProcess) => child.stdin!.end()],
  ])('%s ends the gateway and its upstreams though its output is not read', async (_how, end) => {
    const { child, upstreams, exited } = await stalledGateway();
    end(child);
    const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 30_000).unref())]);
    expect(gone).toBe(true);
    expect(await waitFor(() => upstreams.every((pid) => !alive(pid)), 10_000)).toBe(true);
  }, 120_000);

  it('closing stdin ends the relay to a shared instance though its output is not read', async () => {
    const { child, exited, instance } = await stalledGateway(true);
    child.stdin!.end();
    const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 30_000).unref())]);
    expect(gone).toBe(true);
    // The instance serves on for other clients (it ends after its idle time, or here in afterEach).
    expect(alive(instance!)).toBe(true);
  }, 120_000);
});
