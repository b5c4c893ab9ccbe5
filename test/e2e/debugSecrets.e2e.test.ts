/**
 * Credentials in a remote upstream's URL never reach the log, at debug level too: each failed
 * transport's debug line quoted fetch's message, which holds the URL whole ('Request cannot be
 * constructed from a URL that includes credentials: http://u:…@…'), while the start failure already
 * left it out (docs/architecture.md, "Trust model": credentials never in logs). A user and password
 * in the URL are now refused with the config, by path, without quoting them; a token in the query
 * still reaches the transports. A real gateway over stdio; the URL points at 127.0.0.1 and fails
 * before any connection.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { expect, it } from 'vitest';
import { cliPath, fixture, tempDir, waitFor, writeConfig } from '../helpers/gateway.js';

it('a user and password in a remote URL are refused with the config, by path, never quoted', async () => {
  const config = writeConfig({ mcpServers: { remote: { url: 'http://user:${REMOTE_PASSWORD}@127.0.0.1:9/mcp' } } });
  const env = { ...process.env, REMOTE_PASSWORD: 'pw-7f3a9c', TOOLSHELF_STATE_DIR: join(tempDir(), 'state') };
  const refused = await promisify(execFile)(process.execPath, [cliPath, '--config', config, '--no-share'], { env }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(refused?.code).toBe(2);
  expect(refused?.stderr).toContain('/mcpServers/remote/url');
  expect(refused?.stderr).not.toContain('pw-7f3a9c');
});

it('debug lines and the trace name a remote upstream by host and port, never its URL credentials', async () => {
  const dir = tempDir();
  const config = writeConfig({
    mcpServers: {
      ok: { command: 'node', args: [fixture('counter.mjs')] },
      remote: { url: 'http://127.0.0.1:9/mcp?token=${REMOTE_PASSWORD}' },
    },
  });
  const trace = join(dir, 'trace.jsonl');
  const env = { ...process.env, REMOTE_PASSWORD: 'pw-7f3a9c', TOOLSHELF_STATE_DIR: join(dir, 'state') };
  const child = spawn(process.execPath, [cliPath, '--config', config, '--no-share', '--log-level', 'debug', '--trace', trace], { stdio: ['pipe', 'ignore', 'pipe'], env });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  try {
    expect(await waitFor(() => stderr.includes('first tools/list'), 60_000)).toBe(true);
    child.stdin!.end();
    await exited;
    // Each transport tried said why it failed, at debug level, by host.
    expect(stderr).toMatch(/debug: upstream "remote": 127\.0\.0\.1:9: .*; trying the next transport/);
    expect(stderr).toMatch(/upstream "remote" failed to start: 127\.0\.0\.1:9: /);
    expect(stderr).not.toContain('pw-7f3a9c');
    expect(readFileSync(trace, 'utf8')).not.toContain('pw-7f3a9c');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}, 120_000);
