/**
 * OAuth sign-in for remote upstreams, end to end: a local authorization server + protected MCP
 * server (test/fixtures/servers/oauthServer.mjs), the browser played by test/fixtures/browser.mjs
 * through BROWSER, the built CLI, and the gateway driven by the SDK Client. Source: docs/sign-in.md.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, fixture, repoRoot, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';
import { startAuthServer, type AuthServer } from '../helpers/oauth.js';

const browser = `${process.execPath} ${join(repoRoot, 'test', 'fixtures', 'browser.mjs')}`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `env` over the test process's environment. */
function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Everything every process printed in this file, for the secrets check. */
const printed: string[] = [];

/** A state folder, config and env for one scenario against `server`. */
function scenario(server: AuthServer, extraServers: Record<string, unknown> = {}) {
  const state = tempDir('toolshelf-oauth-');
  const config = writeConfig({ mcpServers: { notes: { url: `${server.base}/mcp`, exposure: 'direct' }, ...extraServers } });
  const env = { TOOLSHELF_STATE_DIR: state, BROWSER: browser };
  const run = async (...args: string[]): Promise<Run> => {
    const result = await cli([...args, '--config', config], env);
    printed.push(result.stdout, result.stderr);
    return result;
  };
  const serve = async (args: string[] = []): Promise<Connected> => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const gw = await startStdio(config, args);
      gateways.push(gw);
      return gw;
    } finally {
      for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
      Object.assign(process.env, saved);
    }
  };
  const record = (): { current?: string; issuers: Record<string, { client?: { client_id: string }; tokens?: { access_token: string } }> } => {
    const folder = join(state, 'credentials');
    const file = readdirSync(folder).find((f) => f.endsWith('.json'));
    return file ? JSON.parse(readFileSync(join(folder, file), 'utf8')) : { issuers: {} };
  };
  return { state, config, env, run, serve, record };
}

const gateways: Connected[] = [];

/** Calls `name` until it answers without isError (the upstream reconnecting after sign-in), up to 5 s. */
async function callWhenBack(gw: Connected, name: string): Promise<unknown> {
  for (let i = 0; ; i += 1) {
    const result = await gw.client.callTool({ name, arguments: {} });
    if (!result.isError || i >= 50) return result;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const servers: AuthServer[] = [];

// Each test runs several CLI processes and a gateway: a loaded machine needs the wide limit.
describe('OAuth upstreams', { timeout: 180_000 }, () => {
  let as: AuthServer;
  let shortLived: AuthServer;
  beforeAll(async () => {
    [as, shortLived] = await Promise.all([startAuthServer(), startAuthServer({ ACCESS_TTL_S: '4' })]);
    servers.push(as, shortLived);
  });
  afterAll(async () => {
    for (const gw of gateways) printed.push(gw.stderr.join('\n'));
    await Promise.all(gateways.map((gw) => gw.close().catch(() => undefined)));
    for (const s of servers) s.child.kill('SIGTERM');
  });

  it('auth login signs in through the browser with PKCE; credentials are stored 0600; status and logout say so', async () => {
    const s = scenario(as);
    const login = await s.run('auth', 'login', 'notes');
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Signed in to "notes"');
    expect(login.stderr).toMatch(/Open this URL in a browser to sign in:\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    const folder = join(s.state, 'credentials');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(folder)) expect(statSync(join(folder, file)).mode & 0o777).toBe(0o600);
    const status = await s.run('auth', 'status');
    expect(status.stdout).toMatch(/notes\s+signed in\s+expires in (59|60) min, refreshed when needed; issuer http:\/\/127\.0\.0\.1/);
    const logout = await s.run('auth', 'logout', 'notes');
    expect(logout.stdout).toContain('Signed out of "notes"');
    expect((await s.run('auth', 'status')).stdout).toMatch(/notes\s+not signed in/);
    expect((await s.run('auth', 'logout', 'notes')).stdout).toContain('No credentials were stored for "notes"');
  });

  it('serves a signed-in server: listed and called through the gateway; a 401 refreshes the token with the resource parameter', async () => {
    const s = scenario(as);
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const gw = await s.serve();
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('notes__read_note');
    expect(textOf(await gw.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
    await as.admin('expire-access');
    const refreshesBefore = (await as.admin('log')).tokenRequests.filter((r) => r.grant_type === 'refresh_token').length;
    const after = await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    expect(textOf(after)).toBe('read_note ok');
    const refreshes = (await as.admin('log')).tokenRequests.filter((r) => r.grant_type === 'refresh_token');
    expect(refreshes.length).toBe(refreshesBefore + 1);
    expect(refreshes.at(-1)).toMatchObject({ resource: `${as.base}/mcp`, outcome: 'ok' });
  });

  it('refreshes a token before it expires, with the resource parameter, so no request is refused', async () => {
    const s = scenario(shortLived);
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const gw = await s.serve();
    expect(textOf(await gw.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
    const refused = (await shortLived.admin('log')).unauthorized;
    // 4 s tokens are refreshed in their last 2 s: wait into that window, not past expiry.
    await new Promise((r) => setTimeout(r, 2500));
    expect(textOf(await gw.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
    const log = await shortLived.admin('log');
    expect(log.tokenRequests.filter((r) => r.grant_type === 'refresh_token').at(-1)).toMatchObject({ resource: `${shortLived.base}/mcp`, outcome: 'ok' });
    expect(log.unauthorized).toBe(refused);
  });

  it('a revoked refresh token puts the server in "needs sign-in": isError naming it and the command, no retry loop, others keep serving; login brings it back', async () => {
    const s = scenario(as, { counter: { command: process.execPath, args: [fixture('counter.mjs')], exposure: 'direct' } });
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const gw = await s.serve();
    expect(textOf(await gw.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
    await as.admin('revoke-refresh');
    await as.admin('expire-access');
    const first = await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toContain('"notes"');
    expect(textOf(first)).toContain('toolshelf auth login notes');
    const requests = (await as.admin('log')).tokenRequests.length;
    const second = await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    expect(second.isError).toBe(true);
    expect((await as.admin('log')).tokenRequests.length).toBe(requests);
    const counterTool = (await gw.client.listTools()).tools.find((t) => t.name.startsWith('counter__'))!;
    expect((await gw.client.callTool({ name: counterTool.name, arguments: {} })).isError).not.toBe(true);
    expect((await s.run('auth', 'status')).stdout).toMatch(/notes\s+needs sign-in/);
    // Its tools stayed listed meanwhile (the last known list), so the list does not change: no list_changed is due.
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    expect(await waitFor(() => gw.stderr.some((l) => l.includes('"notes" is signed in')), 10_000)).toBe(true);
    expect(textOf(await callWhenBack(gw, 'notes__read_note'))).toBe('read_note ok');
  });

  it('after a restart, a server that needs sign-in still shows its last known tools, which answer isError; its sign-in does not hold up the others', async () => {
    const s = scenario(as, { counter: { command: process.execPath, args: [fixture('counter.mjs')], exposure: 'direct' } });
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const first = await s.serve();
    expect(textOf(await first.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
    await first.close();
    await as.admin('revoke-refresh');
    await as.admin('expire-access');
    // A browser that never comes back: the gateway's own sign-in stays pending.
    s.env.BROWSER = `${process.execPath} -e 0`;
    const gw = await s.serve();
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('notes__read_note');
    const refused = await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('toolshelf auth login notes');
    const counterTool = names.find((n) => n.startsWith('counter__'))!;
    expect((await gw.client.callTool({ name: counterTool, arguments: {} })).isError).not.toBe(true);
  });

  it('the gateway signs in by itself when serve meets a server that needs it, then lists its tools with list_changed', async () => {
    const s = scenario(as);
    const gw = await s.serve();
    let changed = false;
    gw.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed = true));
    const has = async (): Promise<boolean> => (await gw.client.listTools()).tools.some((t) => t.name === 'notes__read_note');
    for (let i = 0; i < 100 && !(await has()); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(await has()).toBe(true);
    expect(changed).toBe(true);
    expect(textOf(await gw.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
  });

  it('invalid_client on refresh drops the registration; the next sign-in registers again and works', async () => {
    const s = scenario(as);
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const firstClient = Object.values(s.record().issuers)[0]!.client!.client_id;
    const gw = await s.serve();
    await as.admin('forget-clients');
    await as.admin('expire-access');
    const refused = await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('toolshelf auth login notes');
    expect((await as.admin('log')).tokenRequests.at(-1)).toMatchObject({ grant_type: 'refresh_token', client_id: firstClient, outcome: 'invalid_client' });
    expect(Object.values(s.record().issuers)[0]!.client).toBeUndefined();
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const secondClient = Object.values(s.record().issuers)[0]!.client!.client_id;
    expect(secondClient).not.toBe(firstClient);
    expect((await as.admin('log')).clients).toContain(secondClient);
    expect(await waitFor(() => gw.stderr.some((l) => l.includes('"notes" is signed in')), 10_000)).toBe(true);
    expect(textOf(await callWhenBack(gw, 'notes__read_note'))).toBe('read_note ok');
  });

  it('a 403 insufficient_scope is stepped up once: the gateway signs in for the wider scope and the call goes through', async () => {
    const s = scenario(as);
    const opened = join(s.state, 'browser.log');
    const env = { ...s.env, BROWSER_LOG: opened };
    expect((await cli(['auth', 'login', 'notes', '--config', s.config], env)).code).toBe(0);
    Object.assign(s.env, env);
    const gw = await s.serve();
    const result = await gw.client.callTool({ name: 'notes__write_note', arguments: {} });
    expect(textOf(result)).toBe('write_note ok');
    const urls = readFileSync(opened, 'utf8').trim().split('\n').map((u) => new URL(u));
    expect(urls).toHaveLength(2);
    expect(urls[0]!.searchParams.get('scope')).toBe('notes:read');
    expect(urls[1]!.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['notes:read', 'notes:write']));
  });

  it('signs in again when the callback port of the stored registration is taken (a free port, a new registration)', async () => {
    const s = scenario(as);
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    const stored = Object.values(s.record().issuers)[0] as { redirectUris: string[]; client: { client_id: string } };
    const port = Number(new URL(stored.redirectUris[0]!).port);
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', () => r()));
    try {
      expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    } finally {
      squatter.close();
    }
    const again = Object.values(s.record().issuers)[0] as { redirectUris: string[]; client: { client_id: string } };
    expect(Number(new URL(again.redirectUris[0]!).port)).not.toBe(port);
    expect(again.client.client_id).not.toBe(stored.client.client_id);
  });

  it('a sign-in nobody finishes gives up after signInTimeoutMs with a clear message', async () => {
    const state = tempDir('toolshelf-oauth-');
    const config = writeConfig({ mcpServers: { notes: { url: `${as.base}/mcp`, auth: { signInTimeoutMs: 1500 } } } });
    // A "browser" that opens nothing: the user never comes back.
    const run = await cli(['auth', 'login', 'notes', '--config', config], { TOOLSHELF_STATE_DIR: state, BROWSER: `${process.execPath} -e 0` });
    printed.push(run.stdout, run.stderr);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('sign-in to "notes" failed: no answer reached the sign-in callback within 2 s; gave up. Run `toolshelf auth login notes` to try again');
    expect(run.stderr).toMatch(/Open this URL in a browser to sign in:\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  });

  it('two processes signing in at once each finish their own flow; the stored registration and tokens belong together', async () => {
    const s = scenario(as);
    const before = (await as.admin('log')).tokenRequests.length;
    const [a, b] = await Promise.all([s.run('auth', 'login', 'notes'), s.run('auth', 'login', 'notes')]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const exchanges = (await as.admin('log')).tokenRequests.slice(before).filter((r) => r.grant_type === 'authorization_code');
    expect(exchanges.map((r) => r.outcome)).toEqual(['ok', 'ok']);
    const gw = await s.serve();
    await as.admin('expire-access');
    // The refresh authenticates as the stored client: it works only if tokens and registration are a pair.
    expect(textOf(await gw.client.callTool({ name: 'notes__read_note', arguments: {} }))).toBe('read_note ok');
  });

  it('no token, code or registration secret ever appears in any output, log, trace or inspect', async () => {
    const s = scenario(as);
    expect((await s.run('auth', 'login', 'notes')).code).toBe(0);
    printed.push((await s.run('inspect')).stdout, (await s.run('auth', 'status', '--json')).stdout);
    const trace = join(s.state, 'trace.jsonl');
    const gw = await s.serve(['--log-level', 'debug', '--trace', trace]);
    await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    await as.admin('expire-access');
    await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    await as.admin('revoke-refresh');
    await as.admin('expire-access');
    await gw.client.callTool({ name: 'notes__read_note', arguments: {} });
    printed.push(readFileSync(trace, 'utf8'), ...gateways.map((g) => g.stderr.join('\n')));
    const secrets = (await as.admin('log')).issued;
    expect(secrets.length).toBeGreaterThan(10);
    const everything = printed.join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    for (const secret of secrets) expect(everything.includes(secret), `a secret leaked: ${secret.slice(0, 6)}…`).toBe(false);
  });
});
