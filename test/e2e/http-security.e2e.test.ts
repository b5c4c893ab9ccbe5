/**
 * Streamable HTTP security through the built CLI: loopback bind by default, Host and Origin checks
 * against DNS rebinding, the bearer token (flag and env), the body limit, malformed bodies, unknown
 * sessions, and DELETE ending a session with its promotion state. Idle closing is covered at unit
 * level (test/gateway/fronts/http.test.ts). Source: docs/http.md; docs/robustness.md; MCP spec, Transports ›
 * Streamable HTTP (security warning, session management).
 */
import { readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { descendants, serverEntry, waitFor, writeConfig } from '../helpers/gateway.js';
import { initializeRequest, openRawHttp, rawHttp, spawnHttp, type SpawnedHttp } from '../gateway/wire.js';

const MiB = 1024 * 1024;
const emptyConfig = (): string => writeConfig({ mcpServers: {} });
const everythingConfig = (): string => writeConfig({ mcpServers: { everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] } } });
const initBody = JSON.stringify(initializeRequest());

/** Local addresses (hex `ADDR:PORT` as in /proc/net/tcp) listening on `port`. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const rows = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) => readFileSync(f, 'utf8').trim().split('\n').slice(1));
  return rows.map((row) => row.trim().split(/\s+/)).filter((c) => c[1]?.endsWith(`:${hexPort}`) && c[3] === '0A').map((c) => c[1] as string);
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'security-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('HTTP front, no token', () => {
  let gateway: SpawnedHttp;
  let host: string;
  beforeAll(async () => {
    gateway = await spawnHttp(everythingConfig(), ['--http', '0']);
    host = new URL(gateway.url).host;
  });
  afterAll(async () => {
    const pid = gateway.child.pid as number;
    await gateway.stop();
    expect(await waitFor(() => descendants(pid).length === 0)).toBe(true);
  });

  it('--http PORT binds to 127.0.0.1 only', () => {
    const url = new URL(gateway.url);
    expect(url.hostname).toBe('127.0.0.1');
    expect(listeners(Number(url.port))).toEqual([`0100007F:${Number(url.port).toString(16).toUpperCase().padStart(4, '0')}`]);
  });

  it('on loopback without a token, no warning about serving beyond loopback', () => {
    expect(gateway.stderr.join('\n')).not.toMatch(/beyond loopback|other machines/);
  });

  it('a Host header that is not loopback is refused with 403 (DNS rebinding)', async () => {
    const answer = await rawHttp(gateway.url, { headers: { host: `evil.example:${new URL(gateway.url).port}` }, body: initBody });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.message).toMatch(/Host/);
  });

  it('host names compare case-insensitively, a trailing dot included (RFC 4343): LOCALHOST and localhost. are served', async () => {
    const port = new URL(gateway.url).port;
    for (const name of [`LOCALHOST:${port}`, `localhost.:${port}`, `LocalHost`]) {
      const answer = await rawHttp(gateway.url, { headers: { host: name }, body: initBody });
      expect(answer.status, name).toBe(200);
    }
    const evil = await rawHttp(gateway.url, { headers: { host: `LOCALHOST.evil.example:${port}` }, body: initBody });
    expect(evil.status).toBe(403);
  });

  it('a foreign Origin is refused with 403; a localhost Origin is served', async () => {
    const evil = await rawHttp(gateway.url, { headers: { origin: 'http://evil.example' }, body: initBody });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.message).toMatch(/Origin/);
    const local = await rawHttp(gateway.url, { headers: { host, origin: `http://localhost:${new URL(gateway.url).port}` }, body: initBody });
    expect(local.status).toBe(200);
    expect(local.headers['mcp-session-id']).toBeTruthy();
  });

  it('a body over 4 MiB is refused with 413, by Content-Length or while streaming', async () => {
    const big = JSON.stringify({ ...initializeRequest(), pad: 'x'.repeat(5 * MiB) });
    const declared = await rawHttp(gateway.url, { body: big });
    expect(declared.status).toBe(413);
    const chunked = await rawHttp(gateway.url, { body: big, chunked: true });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.code).toBe(-32600);
  });

  it('a body just under the limit is served (oversized arguments reach admission, not a crash)', async () => {
    const session = await openRawHttp(gateway.url);
    const message = 'y'.repeat(3 * MiB);
    const answer = await session.request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message } } } });
    expect(answer.result?.isError).toBeFalsy();
    expect(JSON.stringify(answer.result)).toContain(message);
    expect(await session.remove()).toBe(200);
  });

  it('a body that is not JSON gets 400 with a -32700 parse error', async () => {
    const answer = await rawHttp(gateway.url, { body: '{"jsonrpc":"2.0",' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.any(String) }, id: null });
  });

  it('an unknown session id gets 404 (MCP spec, session management)', async () => {
    const answer = await rawHttp(gateway.url, { headers: { 'mcp-session-id': 'no-such-session' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).error.code).toBe(-32001);
  });

  it('DELETE ends the session and its promotions: the old id gets 404, a new session starts unpromoted', async () => {
    const first = await connect(gateway.url);
    const found = await first.client.callTool({ name: 'tool_search', arguments: { query: 'echo back a message', limit: 1 } });
    const promoted = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(promoted).toEqual(['everything__echo']);
    expect((await first.client.listTools()).tools.map((t) => t.name)).toContain('everything__echo');
    const oldId = first.transport.sessionId as string;
    await first.transport.terminateSession();
    await first.client.close();
    const stale = await rawHttp(gateway.url, { headers: { 'mcp-session-id': oldId }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(stale.status).toBe(404);
    const second = await connect(gateway.url);
    expect((await second.client.listTools()).tools.map((t) => t.name)).not.toContain('everything__echo');
    await second.client.close();
  });
});

describe('bound to every interface (--http 0.0.0.0:PORT)', () => {
  const token = 's3cret-token-for-tests';
  const auth = { authorization: `Bearer ${token}` };
  // This machine's own names as another machine would put them in Host: its addresses and host name.
  const ownAddresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && !/^fe80:/i.test(a.address))
    .map((a) => (a!.family === 'IPv6' ? `[${a!.address}]` : a!.address));
  let gateway: SpawnedHttp;
  let port: string;
  beforeAll(async () => {
    gateway = await spawnHttp(emptyConfig(), ['--http', '0.0.0.0:0'], { TOOLSHELF_TOKEN: token });
    port = new URL(gateway.url).port;
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('listens on 0.0.0.0 and prints a URL a client can use: the loopback one', async () => {
    expect(gateway.url).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(listeners(Number(port))).toEqual([`00000000:${Number(port).toString(16).toUpperCase().padStart(4, '0')}`]);
    const { client } = await connect(gateway.url, auth);
    expect(await client.listTools()).toEqual({ tools: [] });
    await client.close();
  });

  it("a Host naming this machine's own address or host name is served; any other Host still gets 403", async () => {
    for (const name of [...ownAddresses, hostname(), 'localhost']) {
      const answer = await rawHttp(gateway.url, { headers: { ...auth, host: `${name}:${port}` }, body: initBody });
      expect(answer.status, name).toBe(200);
    }
    for (const name of ['evil.example', `${hostname()}.evil.example`, '203.0.113.9']) {
      const answer = await rawHttp(gateway.url, { headers: { ...auth, host: `${name}:${port}` }, body: initBody });
      expect(answer.status, name).toBe(403);
    }
  });

  it("the Origin check takes the same names: this machine's address is served, a foreign Origin gets 403", async () => {
    for (const name of [...ownAddresses, hostname()]) {
      const origin = `http://${name}:${port}`;
      const answer = await rawHttp(gateway.url, { headers: { ...auth, host: `${name}:${port}`, origin }, body: initBody });
      expect(answer.status, origin).toBe(200);
    }
    const evil = await rawHttp(gateway.url, { headers: { ...auth, origin: 'http://evil.example' }, body: initBody });
    expect(evil.status).toBe(403);
  });

  it('says at start which URLs other machines use; with a token, no warning', async () => {
    expect(await waitFor(() => gateway.stderr.some((l) => l.includes('listening on every interface')))).toBe(true);
    const text = gateway.stderr.join('\n');
    for (const address of ownAddresses.filter((a) => !a.startsWith('['))) expect(text).toContain(`http://${address}:${port}/mcp`);
    expect(text).not.toMatch(/no token/);
  });

  it('without a token, warns at start that anyone who can reach the address can use every upstream', async () => {
    const open = await spawnHttp(emptyConfig(), ['--http', '0.0.0.0:0'], { TOOLSHELF_TOKEN: '' });
    try {
      expect(await waitFor(() => open.stderr.some((l) => l.includes('no token')))).toBe(true);
      const line = open.stderr.find((l) => l.includes('no token'));
      expect(line).toMatch(/^toolshelf: warn: serving 0\.0\.0\.0:\d+ beyond loopback with no token: anyone who can reach that address can call every upstream's tools\. Set TOOLSHELF_TOKEN/);
    } finally {
      await open.stop();
    }
  });
});

describe('bearer token', () => {
  const token = 's3cret-token-for-tests';
  const cases: [string, string[], Record<string, string>][] = [
    ['--token', ['--http', '127.0.0.1:0', '--token', token], {}],
    ['TOOLSHELF_TOKEN', ['--http', '127.0.0.1:0'], { TOOLSHELF_TOKEN: token }],
  ];
  for (const [label, args, env] of cases) {
    it(`with ${label}: a missing or wrong token gets 401, the right one is served`, async () => {
      const gateway = await spawnHttp(emptyConfig(), args, env);
      try {
        const missing = await rawHttp(gateway.url, { body: initBody });
        expect(missing.status).toBe(401);
        // RFC 6750 §3: the 401 names the scheme.
        expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);
        expect((await rawHttp(gateway.url, { headers: { authorization: 'Bearer wrong' }, body: initBody })).status).toBe(401);
        expect((await rawHttp(gateway.url, { headers: { authorization: token }, body: initBody })).status).toBe(401);
        const { client } = await connect(gateway.url, { authorization: `Bearer ${token}` });
        expect(await client.listTools()).toEqual({ tools: [] });
        await client.close();
      } finally {
        await gateway.stop();
      }
    });
  }

  it("never reaches an upstream: server-everything's get-env, open to the model, shows neither TOOLSHELF_TOKEN nor, by default, the gateway's other variables (inheritEnv: true passes them)", async () => {
    const everything = { command: 'node', args: [serverEntry('everything'), 'stdio'], tools: { 'get-env': { exposure: 'direct' } } };
    const config = writeConfig({ mcpServers: { everything: { ...everything, env: { GIVEN_KEY: 'given-value' } }, inherits: { ...everything, inheritEnv: true } } });
    const gateway = await spawnHttp(config, ['--http', '127.0.0.1:0'], { TOOLSHELF_TOKEN: token, MY_API_KEY: 'passed-on' });
    try {
      const { client } = await connect(gateway.url, { authorization: `Bearer ${token}` });
      // Credential-named values the upstream was given reach it, and are masked in what it answers (docs/security.md, "Results").
      const safe = JSON.stringify((await client.callTool({ name: 'everything__get-env', arguments: {} })).content);
      expect(safe).toContain('GIVEN_KEY');
      expect(safe).toContain('PATH');
      expect(safe).not.toContain('MY_API_KEY');
      const whole = JSON.stringify((await client.callTool({ name: 'inherits__get-env', arguments: {} })).content);
      expect(whole).toContain('MY_API_KEY');
      for (const text of [safe, whole]) {
        expect(text).not.toContain('given-value');
        expect(text).not.toContain('passed-on');
        expect(text).not.toContain(token);
        expect(text).not.toContain('TOOLSHELF_');
      }
      await client.close();
    } finally {
      await gateway.stop();
    }
  });
});
