/**
 * An HTTP gateway started by npm (`npx toolshelf --http`, `npm start`) stops, with its upstreams, when
 * the npm process that launched it is gone: npm does not pass a SIGTERM on to the command it runs, so
 * the gateway used to outlive it. npm is stood in for by a shell with `npm_command`
 * set, killed with SIGKILL so it cannot pass anything on.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alive, cliPath, descendants, fixture, waitFor, writeConfig } from '../helpers/gateway.js';

describe('a gateway launched by npm', () => {
  it('stops with its upstreams once its launcher has ended', async () => {
    const config = writeConfig({ mcpServers: { counter: { command: process.execPath, args: [fixture('counter.mjs')] } } });
    const launcher = spawn('/bin/sh', ['-c', `"${process.execPath}" "${cliPath}" --config "${config}" --http 127.0.0.1:0 & wait`], {
      env: { ...process.env, npm_command: 'exec' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      launcher.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (stderr.includes('serving Streamable HTTP at')) resolve();
      });
      launcher.once('exit', () => reject(new Error(`launcher exited: ${stderr}`)));
    });
    const tree = descendants(launcher.pid!).filter((pid) => pid !== launcher.pid);
    const gateway = tree.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(cliPath));
    expect(gateway).toBeDefined();
    expect(tree.length).toBeGreaterThanOrEqual(2); // the gateway and its upstream at least
    launcher.kill('SIGKILL');
    try {
      expect(await waitFor(() => !alive(gateway!), 30_000)).toBe(true);
      expect(await waitFor(() => tree.every((pid) => !alive(pid)), 30_000)).toBe(true);
      expect(stderr).toContain('the npm process that started toolshelf has ended; stopping');
    } finally {
      // Whatever the outcome, nothing this test started outlives it.
      for (const pid of tree) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
