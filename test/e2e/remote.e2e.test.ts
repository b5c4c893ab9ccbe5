/**
 * Remote upstreams: Streamable HTTP, SSE by fallback, and headers with ${VAR} interpolation.
 * Source: docs/robustness.md, docs/configuration.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serverEntry, startStdio, textOf, writeConfig, type Connected } from '../helpers/gateway.js';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** Starts a child and waits until `ready` matches its output. */
async function startServer(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
  return { child, output };
}

describe('remote upstreams', () => {
  const children: ChildProcess[] = [];
  let gw: Connected;
  beforeAll(async () => {
    const httpPort = await freePort();
    const ssePort = await freePort();
    const streamable = await startServer([serverEntry('everything'), 'streamableHttp'], { PORT: String(httpPort) }, /listening on port/i);
    const sse = await startServer([serverEntry('everything'), 'sse'], { PORT: String(ssePort) }, /running on port/i);
    const auth = await startServer([fixture('authHttp.mjs')], { AUTH_TOKEN: 'team-token' }, /listening \d+/);
    children.push(streamable.child, sse.child, auth.child);
    const authPort = /listening (\d+)/.exec(auth.output)?.[1];
    const path = writeConfig({
      mcpServers: {
        http: { url: `http://127.0.0.1:${httpPort}/mcp` },
        legacy: { url: `http://127.0.0.1:${ssePort}/sse` },
        auth: { url: `http://127.0.0.1:${authPort}/mcp`, headers: { Authorization: 'Bearer ${TOOLSHELF_TEST_TOKEN}', 'X-Team': 'blue' }, exposure: 'direct' },
      },
    });
    process.env.TOOLSHELF_TEST_TOKEN = 'team-token';
    gw = await startStdio(path);
  });
  afterAll(async () => {
    await gw?.close();
    for (const child of children) child.kill('SIGTERM');
  });

  it('connects over Streamable HTTP and over SSE (fallback from Streamable HTTP), and forwards calls', async () => {
    const search = (await gw.client.listTools()).tools.find((t) => t.name === 'tool_search')?.description ?? '';
    expect(search).toContain('http__echo');
    expect(search).toContain('legacy__echo');
    for (const name of ['http__echo', 'legacy__echo']) {
      const result = await gw.client.callTool({ name, arguments: { message: `via ${name}` } });
      expect(textOf(result)).toContain(`via ${name}`);
    }
  });

  it('sends the configured headers, with ${VAR} expanded from the environment', async () => {
    const result = await gw.client.callTool({ name: 'auth__whoami', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({ authorization: 'Bearer team-token', 'x-team': 'blue' });
  });
});
