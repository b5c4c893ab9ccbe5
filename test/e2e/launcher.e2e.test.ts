/**
 * An HTTP gateway started by npm (`npx toolshelf --http`, `npm start`) stops, with its upstreams, when
 * the npm process that launched it is gone: npm does not pass a SIGTERM on to the command it runs, so
 * the gateway used to outlive it. npm is stood in for by a shell with `npm_command` set, killed with
 * SIGKILL so it cannot pass anything on.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, cliPath, descendants, fixture, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

/** The pid of a descendant of `root` whose command line holds `text`, if any. */
function descendantRunning(root: number, text: string): number | undefined {
  return descendants(root).find((pid) => {
    try {
      return pid !== root && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
    } catch {
      return false;
    }
  });
}

/**
 * Starts the gateway under a stand-in npm with an upstream that answers `initialize` only once a gate
 * file exists, kills that launcher when `killWhen` says, and checks that the gateway and its upstream end.
 */
async function launcherKilled(killWhen: 'serving' | 'starting'): Promise<void> {
  const dir = tempDir();
  const gate = join(dir, 'gate');
  const config = writeConfig({ mcpServers: { slow: { command: process.execPath, args: [fixture('slowInit.mjs')], env: { INIT_GATE_FILE: gate } } } }, dir);
  if (killWhen === 'serving') writeFileSync(gate, '');
  const launcher = spawn('/bin/sh', ['-c', `"${process.execPath}" "${cliPath}" --config "${config}" --http 127.0.0.1:0 & wait`], {
    env: { ...process.env, npm_command: 'exec' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  launcher.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  let [gateway, upstream]: (number | undefined)[] = [];
  try {
    const ready = killWhen === 'serving' ? () => stderr.includes('serving Streamable HTTP at') : () => true;
    expect(
      await waitFor(() => {
        gateway ??= descendantRunning(launcher.pid!, cliPath);
        upstream ??= gateway === undefined ? undefined : descendantRunning(gateway, 'slowInit.mjs');
        return upstream !== undefined && ready();
      }, 30_000),
    ).toBe(true);
    launcher.kill('SIGKILL');
    writeFileSync(gate, '');
    expect(await waitFor(() => stderr.includes('serving Streamable HTTP at'), 30_000)).toBe(true);
    expect(await waitFor(() => !alive(gateway!) && !alive(upstream!), 30_000)).toBe(true);
    expect(stderr).toContain('the npm process that started toolshelf has ended; stopping');
  } finally {
    // Whatever the outcome, nothing this test started outlives it.
    launcher.kill('SIGKILL');
    for (const pid of [gateway, upstream]) if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

describe('a gateway launched by npm', () => {
  // Each wait in launcherKilled is bounded (30 s, three of them): the test's own timeout is longer, so its
  // `finally` always runs and nothing it started outlives it.
  it('stops with its upstreams once its launcher has ended', async () => {
    await launcherKilled('serving');
  }, 120_000);

  it('stops even when its launcher ended while it was still starting', async () => {
    // Killed while the gateway waits for its upstream, long before it serves. The launcher was read only
    // once serving: on a loaded machine a kill landing before that left the gateway running for good.
    await launcherKilled('starting');
  }, 120_000);
});
