/**
 * A gateway whose client leaves while an upstream is still starting (served after the start-up wait)
 * ends without the later 'upstreams now' line: the shutdown ends that start, so the line said
 * 'upstreams now: 0/2 connected (slow: closed, ok: closed)', every upstream down, as the gateway
 * exited. Real stdio pipes, slowInit.mjs held by a
 * gate file that is never written, so the start cannot end before the client leaves.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { alive, cliPath, descendants, fixture, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

it('closing stdin while an upstream starts ends the gateway and every upstream without an "upstreams now" line', async () => {
  const dir = tempDir();
  const config = writeConfig({
    mcpServers: {
      slow: { command: 'node', args: [fixture('slowInit.mjs')], env: { INIT_GATE_FILE: join(dir, 'never-written') } },
      ok: { command: 'node', args: [fixture('counter.mjs')] },
    },
  });
  const env = { ...process.env, TOOLSHELF_STARTUP_WAIT_MS: '100', TOOLSHELF_STATE_DIR: join(dir, 'state') };
  const child = spawn(process.execPath, [cliPath, '--config', config, '--no-share'], { stdio: ['pipe', 'ignore', 'pipe'], env });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  try {
    expect(await waitFor(() => stderr.includes('first tools/list'), 60_000)).toBe(true);
    expect(stderr).toMatch(/upstreams: [01]\/2 connected \(slow: starting, ok: /);
    const upstreams = descendants(child.pid!);
    child.stdin!.end();
    await exited;
    expect(await waitFor(() => upstreams.every((pid) => !alive(pid)), 10_000)).toBe(true);
    expect(stderr).not.toContain('upstreams now');
    expect(stderr).not.toMatch(/Unhandled|TypeError|error:/i);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}, 120_000);
