/**
 * A shared instance's client that stops reading its stdout cannot grow the instance without bound:
 * past MAX_PENDING_OUTPUT_BYTES unread, its answers become a short error (docs/robustness.md), and the
 * instance goes on serving its other clients. A raw client over real pipes (an SDK Client cannot be
 * told to stop reading) sends 16 calls answering 8 MiB each, 128 MiB in all (60 such calls grew an
 * instance from 88 MB to 1.3 GB); the bytes that waited for it are counted when it reads at last.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { MAX_PENDING_OUTPUT_BYTES, MAX_STDIO_RESULT_BYTES } from '../../src/gateway/fronts/stdio.js';
import { alive, cliPath, fixture, sharedInstances, startStdio, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

const CALLS = 16;
const MIB_PER_ANSWER = 8;

let deaf: ChildProcess | undefined;
let other: Connected | undefined;
afterAll(async () => {
  await other?.close().catch(() => undefined);
  if (deaf && deaf.exitCode === null) deaf.kill('SIGKILL');
  const running = sharedInstances().filter(alive);
  for (const pid of running) process.kill(pid, 'SIGTERM');
  await waitFor(() => !running.some(alive), 20_000);
});

/** Bytes process `pid` has read through syscalls (Linux /proc/<pid>/io rchar). */
const bytesRead = (pid: number): number => Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

it('answers a client that stopped reading with errors past the limit, and serves the other client meanwhile', async () => {
  const config = writeConfig({
    mcpServers: {
      big: { command: 'node', args: [fixture('bigResult.mjs')], exposure: 'direct' },
      counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
    },
    share: { idleExitMs: 60_000 },
  });
  other = await startStdio(config, ['--share'], 'other');
  expect(textOf(await other.client.callTool({ name: 'counter__call_count', arguments: {} }))).toMatch(/\d/);
  const [instance] = sharedInstances();

  deaf = spawn(process.execPath, [cliPath, '--config', config, '--share'], { stdio: ['pipe', 'pipe', 'ignore'] });
  deaf.stdout!.pause();
  deaf.stdin!.on('error', () => undefined);
  const send = (message: object): boolean => deaf!.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const before = bytesRead(instance!);
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'deaf', version: '1' } } });
  send({ method: 'notifications/initialized' });
  for (let id = 1; id <= CALLS; id += 1) send({ id, method: 'tools/call', params: { name: 'big__big', arguments: { mb: MIB_PER_ANSWER } } });

  // Every answer has reached the instance from its upstream; the other client is still served after.
  expect(await waitFor(() => bytesRead(instance!) - before >= CALLS * MIB_PER_ANSWER * 1024 * 1024, 120_000)).toBe(true);
  expect(textOf(await other.client.callTool({ name: 'counter__call_count', arguments: {} }))).toMatch(/\d/);

  // What waited for the deaf client, read now: every call answered, far less than 128 MiB.
  let waited = 0;
  let partial = '';
  const answers: { id: number; result?: unknown; error?: { message: string } }[] = [];
  deaf.stdout!.on('data', (chunk: Buffer) => {
    waited += chunk.length;
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    answers.push(...lines.map((line) => JSON.parse(line)));
  });
  deaf.stdout!.resume();
  expect(await waitFor(() => answers.filter((m) => m.id >= 1).length === CALLS, 60_000)).toBe(true);
  expect(waited).toBeLessThan(MAX_PENDING_OUTPUT_BYTES + 2 * MAX_STDIO_RESULT_BYTES);
  const refused = answers.filter((m) => m.error);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused[0]!.error!.message).toBe('Not sent: over 40 MiB of earlier output wait unread for this client; read it, then retry');

  // Once it reads, it is served whole again.
  send({ id: 99, method: 'tools/call', params: { name: 'big__big', arguments: { mb: 1 } } });
  expect(await waitFor(() => answers.some((m) => m.id === 99 && m.result !== undefined), 30_000)).toBe(true);
}, 240_000);
