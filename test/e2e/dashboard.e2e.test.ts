/**
 * The dashboard (docs/dashboard.md) through the real CLI: a gateway on --http with a token serves the
 * page beside /mcp; `toolshelf ui --url` mints the one-time sign-in link; a real headless Chromium
 * (Debian's `chromium`, driven by playwright-core; .ci/run installs it) loads the page, lists the
 * servers, runs a search in the playground and shows a call an SDK client made. Requests without the
 * session cookie or the CSRF token, from a foreign Origin or with a spent link are refused. For stdio
 * users, `toolshelf ui --config` asks the shared instance for its page. With TOOLSHELF_SCREENSHOTS set
 * to a folder, the browser test saves the pictures the docs show there.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium, type Browser } from 'playwright-core';
import { alive, cliPath, fixture, repoRoot, sandboxConfig, startHttp, startStdio, tempDir, waitFor, writeConfig, type HttpGateway } from '../helpers/gateway.js';
import { startAuthServer } from '../helpers/oauth.js';

const run = promisify(execFile);
const TOKEN = 'dashboard-test-token-0123456789';

/** Debian's chromium, or CHROMIUM_PATH. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => p !== undefined && existsSync(p));
if (!CHROMIUM) console.warn('dashboard.e2e: no Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run does): the browser tests skip');

/** Runs `toolshelf ui ARGS --no-open` and returns the link it prints. */
async function uiLink(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [cliPath, 'ui', ...args, '--no-open'], { env: { ...process.env, ...env } });
  return stdout.trim();
}

/** Spends a sign-in link without a browser: the session cookie it sets (name=value). */
async function signIn(link: string): Promise<string> {
  const response = await fetch(link, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  return cookie.split(';')[0]!;
}

describe('dashboard on an HTTP gateway with a token', () => {
  let gateway: HttpGateway;
  let origin: string;
  let client: Client;

  beforeAll(async () => {
    const { path } = sandboxConfig({ trace: { captureToolIo: true } });
    gateway = await startHttp(path, ['--token', TOKEN]);
    origin = new URL(gateway.url).origin;
    client = new Client({ name: 'dashboard-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await gateway?.stop();
  });

  it('refuses the page, the API and a login code to whoever lacks the session or the token', async () => {
    expect((await fetch(`${origin}/`)).status).toBe(401);
    expect((await fetch(`${origin}/ui/api/state`)).status).toBe(401);
    expect((await fetch(`${origin}/ui/api/events`)).status).toBe(401);
    expect((await fetch(`${origin}/ui/api/login-code`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${origin}/ui/api/login-code`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${origin}/ui/login?code=made-up`, { redirect: 'manual' })).status).toBe(403);
    // DNS rebinding: a foreign Host or Origin is refused before the dashboard sees the request.
    expect((await fetch(`${origin}/`, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('gives one session per one-time link, and wants the CSRF token on every search', async () => {
    const link = await uiLink(['--url', gateway.url], { TOOLSHELF_TOKEN: TOKEN });
    expect(link).toMatch(new RegExp(`^${origin}/ui/login\\?code=[A-Za-z0-9_-]{43}$`));
    const cookie = await signIn(link);
    // The link is spent.
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(403);
    const state = (await (await fetch(`${origin}/ui/api/state`, { headers: { cookie } })).json()) as { csrf: string; servers: { key: string }[] };
    expect(state.servers.map((s) => s.key)).toEqual(['files', 'everything']);
    const search = (headers: Record<string, string>) => fetch(`${origin}/ui/api/search`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: 'echo' }) });
    expect((await search({})).status).toBe(403);
    expect((await search({ 'x-toolshelf-csrf': 'wrong' })).status).toBe(403);
    const answer = (await (await search({ 'x-toolshelf-csrf': state.csrf })).json()) as { served: { name: string }[] };
    expect(answer.served[0]?.name).toBe('everything__echo');
    // A cookie another page made up is no session.
    expect((await fetch(`${origin}/ui/api/state`, { headers: { cookie: cookie.replace(/=.*/, '=forged') } })).status).toBe(401);
  });

  it('without the token, `toolshelf ui --url` says so and exits 1', async () => {
    await expect(run(process.execPath, [cliPath, 'ui', '--url', gateway.url, '--no-open'], { env: { ...process.env, TOOLSHELF_TOKEN: '' } })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('requires its token: set TOOLSHELF_TOKEN'),
    });
  });

  it('with a wrong token, `toolshelf ui --url` says the token was refused and exits 1', async () => {
    await expect(run(process.execPath, [cliPath, 'ui', '--url', gateway.url, '--no-open'], { env: { ...process.env, TOOLSHELF_TOKEN: 'wrong' } })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('refused the TOOLSHELF_TOKEN set here'),
    });
  });

  describe.skipIf(!CHROMIUM)('in a real browser', () => {
    let browser: Browser;
    const shots = process.env.TOOLSHELF_SCREENSHOTS ? resolve(process.env.TOOLSHELF_SCREENSHOTS) : tempDir('toolshelf-shots-');
    beforeAll(async () => {
      mkdirSync(shots, { recursive: true });
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('lists the servers, ranks a search in the playground and shows a call the client made', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
      await page.goto(await uiLink(['--url', gateway.url], { TOOLSHELF_TOKEN: TOKEN }));
      expect(new URL(page.url()).pathname).toBe('/');
      const servers = page.getByTestId('servers');
      await servers.waitFor();
      expect(await servers.locator('tbody th').allTextContents()).toEqual(['files', 'everything']);
      await page.screenshot({ path: join(shots, 'servers.png') });

      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByLabel('Query').fill('echo back a message');
      await page.getByRole('button', { name: 'Search', exact: true }).last().click();
      const served = page.getByTestId('served-results');
      await served.waitFor();
      expect(await served.locator('li code').first().textContent()).toBe('everything__echo');
      expect(await page.getByTestId('bm25-results').locator('li').count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(shots, 'search.png') });

      await client.listTools();
      await client.callTool({ name: 'files__list_directory', arguments: { path: '.' } });
      await client.callTool({ name: 'tool_search', arguments: { query: 'add two numbers' } });
      await page.getByRole('button', { name: 'Activity' }).click();
      const calls = page.getByTestId('calls');
      await calls.locator('code', { hasText: 'files__list_directory' }).waitFor();
      await page.getByTestId('searches').locator('td', { hasText: 'add two numbers' }).waitFor();
      expect(await calls.locator('tbody td').nth(1).textContent()).toBe('dashboard-e2e');
      await page.locator('svg.chart polyline').waitFor({ state: 'attached' });
      await page.screenshot({ path: join(shots, 'activity.png'), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    });

    it('is usable with the keyboard and on a narrow window', async () => {
      const page = await browser.newPage({ viewport: { width: 420, height: 800 } });
      await page.goto(await uiLink(['--url', gateway.url], { TOOLSHELF_TOKEN: TOKEN }));
      await page.getByTestId('servers').waitFor();
      // The nav's buttons are reached with Tab and pressed with Enter.
      const tools = page.getByRole('button', { name: 'Tools' });
      for (let i = 0; i < 10 && !(await tools.evaluate((el) => el === document.activeElement)); i += 1) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByTestId('tools').waitFor();
      expect(await tools.getAttribute('aria-current')).toBe('page');
      // Nothing but the tables' own scroll boxes is wider than the window.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      await page.screenshot({ path: join(shots, 'narrow.png') });
      await page.close();
    });
  });
});

describe('dashboard on an HTTP gateway without a token', () => {
  it('gives a session on the first page load, still wanting the CSRF token', async () => {
    const { path } = sandboxConfig();
    const gateway = await startHttp(path);
    try {
      const origin = new URL(gateway.url).origin;
      expect(await uiLink(['--url', gateway.url])).toBe(`${origin}/`);
      const page = await fetch(`${origin}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
      const state = (await (await fetch(`${origin}/ui/api/state`, { headers: { cookie } })).json()) as { csrf: string };
      expect(state.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const search = await fetch(`${origin}/ui/api/search`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{"query":"echo"}' });
      expect(search.status).toBe(403);
    } finally {
      await gateway.stop();
    }
  });
});

describe('toolshelf ui for stdio clients (the shared instance)', () => {
  const started: number[] = [];
  afterEach(async () => {
    const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
    const pids = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.pid')).map((f) => Number(readFileSync(join(dir, f), 'utf8').trim())) : [];
    for (const pid of [...pids, ...started.splice(0)].filter(alive)) process.kill(pid, 'SIGTERM');
    await waitFor(() => !pids.some(alive), 20_000);
  });

  it('starts the instance, serves its page on a loopback port while it runs, and ends the page with Ctrl-C', async () => {
    const dir = tempDir();
    const toolsFile = join(dir, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify([{ name: 'ping', description: 'Answers with the pid.', inputSchema: { type: 'object', properties: {} } }]));
    const path = writeConfig({ mcpServers: { rec: { command: 'node', args: [fixture('recorder.mjs')], env: { RECORD_PIDS: join(dir, 'pids.txt'), TOOLS_FILE: toolsFile } } }, share: { idleExitMs: 300 } }, dir);
    const ui = spawn(process.execPath, [cliPath, 'ui', '--config', path, '--no-open'], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(ui.pid!);
    const link = await new Promise<string>((resolveLink, reject) => {
      let text = '';
      ui.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\n')) resolveLink(text.trim());
      });
      ui.once('exit', (code) => reject(new Error(`toolshelf ui exited ${code}`)));
    });
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/login\?code=/);
    const origin = new URL(link).origin;
    const cookie = await signIn(link);
    const state = (await (await fetch(`${origin}/ui/api/state`, { headers: { cookie } })).json()) as { servers: { key: string }[] };
    expect(state.servers.map((s) => s.key)).toEqual(['rec']);
    // The page's port has no bearer token to mint links with: only the socket's owner can.
    expect((await fetch(`${origin}/ui/api/login-code`, { method: 'POST' })).status).toBe(401);
    // A stdio client keeps the instance up: the page must end with the command all the same.
    const client = await startStdio(path, ['--share']);
    try {
      const exited = new Promise<number | null>((r) => ui.once('exit', r));
      ui.kill('SIGINT');
      expect(await exited).toBe(0);
      // The port stops listening (the old cookie got 200 there until the instance ended).
      const refused = async (): Promise<boolean> => fetch(`${origin}/ui/api/state`, { headers: { cookie } }).then(() => false, () => true);
      let closed = await refused();
      for (let i = 0; i < 100 && !closed; i += 1) closed = await new Promise((r) => setTimeout(r, 100)).then(refused);
      expect(closed).toBe(true);
      expect((await client.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('the sign-in button of an OAuth upstream', () => {
  it('begins the browser sign-in of a server that waits for one, which then connects', async () => {
    const as = await startAuthServer();
    const dir = tempDir();
    const path = writeConfig({ mcpServers: { notes: { url: `${as.base}/mcp`, exposure: 'direct', auth: { signInTimeoutMs: 1500 } } } }, dir);
    // The gateway's own sign-in at start is left unfinished; the one the button begins is finished.
    const saved = process.env.BROWSER;
    process.env.BROWSER = `${process.execPath} ${join(repoRoot, 'test', 'fixtures', 'browserLater.mjs')}`;
    process.env.BROWSER_MARKER = join(dir, 'first-visit');
    let gateway: HttpGateway | undefined;
    try {
      gateway = await startHttp(path);
      const origin = new URL(gateway.url).origin;
      const cookie = (((await fetch(`${origin}/`)).headers.get('set-cookie')) ?? '').split(';')[0]!;
      const state = async () => (await (await fetch(`${origin}/ui/api/state`, { headers: { cookie } })).json()) as { csrf: string; servers: { key: string; status: string }[] };
      const statusOf = async () => (await state()).servers.find((s) => s.key === 'notes')?.status;
      const until = async (status: string) => {
        for (let i = 0; i < 200 && (await statusOf()) !== status; i += 1) await new Promise((r) => setTimeout(r, 100));
        return statusOf();
      };
      expect(await until('needs_sign_in')).toBe('needs_sign_in');
      // The start's own sign-in, left unfinished, has given up.
      expect(await waitFor(() => gateway!.stderr.some((l) => l.includes('gave up')), 20_000)).toBe(true);
      const { csrf } = await state();
      const press = () => fetch(`${origin}/ui/api/sign-in`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'x-toolshelf-csrf': csrf }, body: '{"server":"notes"}' });
      expect((await press()).status).toBe(202);
      expect(await until('ready')).toBe('ready');
      expect((await press()).status).toBe(409);
    } finally {
      if (saved === undefined) delete process.env.BROWSER;
      else process.env.BROWSER = saved;
      delete process.env.BROWSER_MARKER;
      await gateway?.stop();
      as.child.kill();
    }
  });
});

describe.skipIf(!CHROMIUM)('the dashboard narrowed to a view', () => {
  it('shows the tools, manifests, searches and calls of one view', async () => {
    const { path } = sandboxConfig({ views: { coding: { servers: ['files'] } } });
    const gateway = await startHttp(path);
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
    const clients: Client[] = [];
    try {
      const origin = new URL(gateway.url).origin;
      const connect = async (url: string): Promise<Client> => {
        const client = new Client({ name: 'view-e2e', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        clients.push(client);
        return client;
      };
      const coding = await connect(`${origin}/mcp/coding`);
      const everyone = await connect(gateway.url);
      await coding.callTool({ name: 'files__list_directory', arguments: { path: '.' } });
      await everyone.callTool({ name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message: 'hi' } } });

      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${origin}/`);
      await page.getByTestId('scope').selectOption('coding');
      await page.getByRole('button', { name: 'Tools' }).click();
      const names = await page.getByTestId('tools').locator('tbody th code').allTextContents();
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((n) => n.startsWith('files__'))).toBe(true);

      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByLabel('Query').fill('echo back a message');
      await page.getByRole('button', { name: 'Search', exact: true }).last().click();
      await page.getByRole('status').filter({ hasText: 'Ranker' }).waitFor();
      expect(await page.locator('[data-testid=served-results] code', { hasText: 'everything__' }).count()).toBe(0);

      await page.getByRole('button', { name: 'Activity' }).click();
      const calls = page.getByTestId('calls');
      await calls.locator('code', { hasText: 'files__list_directory' }).waitFor();
      expect(await calls.locator('code', { hasText: 'everything__echo' }).count()).toBe(0);
      await page.getByTestId('scope').selectOption('');
      await calls.locator('code', { hasText: 'everything__echo' }).waitFor();
      await page.close();

      const cookie = ((await fetch(`${origin}/`)).headers.get('set-cookie') ?? '').split(';')[0]!;
      const { csrf } = (await (await fetch(`${origin}/ui/api/state`, { headers: { cookie } })).json()) as { csrf: string };
      const unknown = await fetch(`${origin}/ui/api/search`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'x-toolshelf-csrf': csrf }, body: '{"query":"echo","view":"codng"}' });
      expect(unknown.status).toBe(400);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await browser.close();
      await gateway.stop();
    }
  });
});

describe.skipIf(!CHROMIUM)('review, reject and approve on the dashboard', () => {
  it('shows a flagged tool with its findings; Reject keeps it held; Approve makes it callable', async () => {
    const path = writeConfig({ mcpServers: { notes: { command: 'node', args: [fixture('injected.mjs')], protocol: 'legacy' } } });
    const gateway = await startHttp(path);
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
    try {
      const client = await gateway.connect();
      const call = () => client.callTool({ name: 'call_tool', arguments: { name: 'notes__sync_notes', arguments: {} } });
      const held = await call();
      expect(held.isError).toBe(true);
      expect(JSON.stringify(held.content)).toContain('toolshelf approve notes sync_notes');

      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${new URL(gateway.url).origin}/`);
      // The server's counts are of served tools, as its tool list: the held one is in neither.
      const state = (await page.evaluate(() => fetch('/ui/api/state').then((r) => r.json()))) as { servers: { key: string; direct: number; deferred: number }[]; tools: { name: string; server: string }[] };
      const notes = state.servers.find((s) => s.key === 'notes')!;
      expect(notes.direct + notes.deferred).toBe(state.tools.filter((t) => t.server === 'notes').length);
      expect(state.tools.map((t) => t.name)).not.toContain('notes__sync_notes');
      await page.getByRole('button', { name: /^Review/ }).click();
      const review = page.getByTestId('review');
      await review.waitFor();
      const item = review.locator('> li', { hasText: 'sync_notes' });
      expect(await item.textContent()).toContain('flagged by the scanner');
      expect(await item.locator('li', { hasText: 'found tag at $.description' }).count()).toBe(1);
      await page.screenshot({ path: join(process.env.TOOLSHELF_SCREENSHOTS ? resolve(process.env.TOOLSHELF_SCREENSHOTS) : tempDir('toolshelf-shots-'), 'review.png') });
      // Rejected: it stays held, marked, and no longer counts as waiting; the call is still refused.
      await item.getByRole('button', { name: 'Reject sync_notes' }).click();
      await page.getByRole('status').filter({ hasText: 'Rejected: sync_notes of notes' }).waitFor();
      await item.locator('.chip', { hasText: 'rejected' }).waitFor();
      expect((await call()).isError).toBe(true);
      expect(await page.getByRole('button', { name: /^Review/ }).textContent()).toBe('Review 1');
      await item.getByRole('button', { name: 'Approve sync_notes' }).click();
      await page.getByRole('status').filter({ hasText: 'Approved: sync_notes of notes' }).waitFor();

      let answer = await call();
      for (let i = 0; i < 100 && answer.isError; i += 1) answer = (await new Promise((r) => setTimeout(r, 100)), await call());
      expect(answer.isError).not.toBe(true);
      expect(answer.content).toEqual([{ type: 'text', text: 'sync_notes ok' }]);
      // The page's next poll drops it; the server's flagged instructions stay held.
      await item.waitFor({ state: 'detached' });
      expect(await review.locator('> li', { hasText: 'instructions flagged by the scanner' }).count()).toBe(1);
      await page.close();
    } finally {
      await browser.close();
      await gateway.stop();
    }
  });
});
