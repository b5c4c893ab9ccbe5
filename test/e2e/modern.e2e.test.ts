/**
 * Modern (2026-07-28) clients, through the built CLI over stdio and Streamable HTTP (the same /mcp
 * endpoint legacy sessions use), with the real v2 SDK Client in `auto` mode or pinned, against real
 * upstreams: server/discover, a tools/list that is byte-identical before and after searches and calls
 * (with ttlMs/cacheScope), call_tool and real-name calls, input_required for an upstream's sampling and
 * elicitation, subscriptions/listen after an upstream list change, Mcp-Method/Mcp-Name checks,
 * progress and cancellation. Source: docs/tools.md, docs/protocol-eras.md; MCP spec 2026-07-28.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cliPath, fixture, serverEntry, startHttp, textOf, writeConfig, tempDir, type HttpGateway } from '../helpers/gateway.js';

const config = (): string =>
  writeConfig({
    mcpServers: {
      everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
      memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: join(tempDir(), 'memory.jsonl') } },
      asker: { command: 'node', args: [fixture('asker.mjs')] },
      progress: { command: 'node', args: [fixture('progress.mjs')] },
      counter: { command: 'node', args: [fixture('counter.mjs')], tools: { grow: { exposure: 'direct' } } },
    },
  });

type Mode = { mode: 'auto' } | { mode: { pin: '2026-07-28' } };

/** A v2 Client that answers sampling and elicitation and records tools list_changed from its listen stream. */
function modernClient(negotiation: Mode): { client: Client; toolsChanged: number[] } {
  const toolsChanged: number[] = [];
  const client = new Client(
    { name: 'modern-e2e', version: '1.0.0' },
    {
      versionNegotiation: negotiation,
      capabilities: { sampling: {}, elicitation: {} },
      listChanged: { tools: { autoRefresh: false, onChanged: () => void toolsChanged.push(Date.now()) } },
    },
  );
  client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'a summary' } }));
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { ok: true } }));
  return { client, toolsChanged };
}

/** The raw JSON-RPC body of a modern request, envelope included. */
function modernBody(id: number, method: string, params: Record<string, unknown> = {}, clientName = 'raw-e2e'): string {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } });
}

async function rawPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', ...headers },
    body,
  });
  const text = await response.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { status: response.status, json: JSON.parse(data) as Record<string, unknown> };
}

const eras = ['stdio', 'http'] as const;

describe.each(eras)('modern client over %s', (transport) => {
  let gateway: HttpGateway | undefined;
  let client: Client;
  let toolsChanged: number[];
  beforeAll(async () => {
    const path = config();
    ({ client, toolsChanged } = modernClient({ mode: 'auto' }));
    if (transport === 'http') {
      gateway = await startHttp(path);
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    } else {
      // The SDK passes only a few safe variables by default; the test's state folder and TOOLSHELF_SHARE=0 must reach the gateway.
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', path], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
    }
  }, 60_000);
  afterAll(async () => {
    await client.close();
    await gateway?.stop();
  });

  it('server/discover: modern era, toolshelf capabilities and instructions', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()?.name).toBe('toolshelf');
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(client.getInstructions()).toMatch(/tool_search.*call_tool/);
  });

  it('tools/list is direct tools, tool_search, call_tool; unchanged by searches and calls; found tools run by call_tool and by name', async () => {
    const before = await client.listTools();
    expect(before.tools.map((t) => t.name)).toEqual(['counter__grow', 'tool_search', 'call_tool']);
    const search = before.tools.find((t) => t.name === 'tool_search');
    expect(search?.description).toMatch(/^Search the tools listed below.*Run one with call_tool, or by its name\./);
    expect(search?.description).toContain('everything__echo');
    expect(before.tools.find((t) => t.name === 'call_tool')?.description).toMatch(/never changes.*by its own name works too/);

    const found = await client.callTool({ name: 'tool_search', arguments: { query: 'echo a message back' } });
    expect(textOf(found)).toContain('everything__echo');
    expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message: 'via bridge' } } }))).toBe('Echo: via bridge');
    expect(textOf(await client.callTool({ name: 'everything__echo', arguments: { message: 'by name' } }))).toBe('Echo: by name');
    await client.callTool({ name: 'memory__read_graph', arguments: {} });
    const after = await client.listTools();
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
  });

  it("an upstream's sampling and elicitation reach the client as input_required and the answers go back upstream", async () => {
    const sampled = await client.callTool({ name: 'call_tool', arguments: { name: 'asker__summarize' } });
    expect(textOf(sampled)).toBe('model said: a summary');
    const confirmed = await client.callTool({ name: 'asker__confirm', arguments: {} });
    expect(textOf(confirmed)).toBe('user said: accept {"ok":true}');
    // server-everything's own trigger tools, the same way.
    const everythingSampled = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 20 } });
    expect(JSON.stringify(everythingSampled.content)).toContain('a summary');
    const everythingElicited = await client.callTool({ name: 'call_tool', arguments: { name: 'everything__trigger-elicitation-request' } });
    expect(JSON.stringify(everythingElicited.content)).toContain('\\"action\\": \\"accept\\"');
  });

  it('progress reaches the client; cancelling a call cancels it upstream', async () => {
    // What reaches the client on the wire, before its SDK: the SDK client runs notification handlers a
    // microtask late but drops a request's progress handler as soon as its response is read, so a last
    // progress read in the same chunk as the response never reaches `onprogress` (a busy machine makes
    // that likely). toolshelf's own upstream transport works around the same thing (stdioTransport.ts).
    const onWire: number[] = [];
    const wire = client.transport!;
    const deliver = wire.onmessage;
    wire.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress') onWire.push(Number(message.params?.progress));
      deliver?.call(wire, message, extra);
    };
    const seen: number[] = [];
    try {
      const ticks = await client.callTool({ name: 'call_tool', arguments: { name: 'progress__ticks', arguments: { count: 3, everyMs: 200 } } }, { onprogress: (p) => void seen.push(p.progress) });
      expect(textOf(ticks)).toBe('ticked 3 times');
    } finally {
      wire.onmessage = deliver;
    }
    expect(onWire).toEqual([1, 2, 3]);
    // The fixture writes tick 3 with the result, so the SDK client never hands it on; tick 2, 200 ms
    // earlier, can still reach the client in the same chunk on a loaded machine (seen in a full-suite
    // run with 50 ms ticks), so only tick 1 is sure to reach onprogress.
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(onWire.slice(0, seen.length));

    const abort = new AbortController();
    const hung = client.callTool({ name: 'progress__hang', arguments: {} }, { signal: abort.signal });
    await waitFor(async () => JSON.parse(textOf(await client.callTool({ name: 'progress__cancellations', arguments: {} }))).hangs.length === 1);
    abort.abort();
    await expect(hung).rejects.toThrow();
    await waitFor(async () => JSON.parse(textOf(await client.callTool({ name: 'progress__cancellations', arguments: {} }))).cancelled.length === 1);
  });

  it("an upstream's own tools/list change reaches the client on its subscriptions/listen stream", async () => {
    const before = await client.listTools();
    await client.callTool({ name: 'counter__grow', arguments: {} });
    await waitFor(() => toolsChanged.length > 0);
    const after = await client.listTools();
    expect(JSON.stringify(after)).not.toBe(JSON.stringify(before));
    expect(after.tools.find((t) => t.name === 'tool_search')?.description).toContain('counter__extra_tool');
  });
});

describe('modern client over HTTP, pinned, and the raw wire', () => {
  let gateway: HttpGateway;
  beforeAll(async () => {
    gateway = await startHttp(config());
  }, 60_000);
  afterAll(() => gateway.stop());

  it('a client pinned to 2026-07-28 is served next to a legacy session on the same endpoint', async () => {
    const { client } = modernClient({ mode: { pin: '2026-07-28' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const legacy = await gateway.connect('legacy-e2e');
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message: 'pinned' } } }))).toBe('Echo: pinned');
      expect((await legacy.listTools()).tools.map((t) => t.name)).toContain('tool_search');
    } finally {
      await client.close();
    }
  });

  it('tools/list carries ttlMs and cacheScope, and its bytes do not change after a search and a call', async () => {
    const list = (): Promise<{ status: number; json: Record<string, unknown> }> => rawPost(gateway.url, modernBody(1, 'tools/list'), { 'mcp-method': 'tools/list' });
    const first = await list();
    expect(first.status).toBe(200);
    const result = first.json.result as Record<string, unknown>;
    expect(result.ttlMs).toBe(60_000);
    expect(result.cacheScope).toBe('private');
    const search = await rawPost(gateway.url, modernBody(2, 'tools/call', { name: 'tool_search', arguments: { query: 'add two numbers' } }), { 'mcp-method': 'tools/call', 'mcp-name': 'tool_search' });
    expect(search.status).toBe(200);
    await rawPost(gateway.url, modernBody(3, 'tools/call', { name: 'everything__get-sum', arguments: { a: 1, b: 2 } }), { 'mcp-method': 'tools/call', 'mcp-name': 'everything__get-sum' });
    expect(JSON.stringify((await list()).json)).toBe(JSON.stringify(first.json));
  });

  it("the discovery mode follows each request's own clientInfo: Codex (searches tools itself) gets every tool, others the shelf", async () => {
    const names = async (client: string): Promise<string[]> => {
      const { json } = await rawPost(gateway.url, modernBody(6, 'tools/list', {}, client), { 'mcp-method': 'tools/list' });
      return ((json.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    };
    const codex = await names('codex-mcp-client');
    expect(codex).toContain('everything__echo');
    expect(codex).not.toContain('tool_search');
    expect(await names('some-modern-host')).toEqual(['counter__grow', 'tool_search', 'call_tool']);
    expect(await names('codex-mcp-client')).toEqual(codex);
  });

  it('Mcp-Method and Mcp-Name that disagree with the body are refused with 400 and -32020', async () => {
    const method = await rawPost(gateway.url, modernBody(4, 'tools/list'), { 'mcp-method': 'prompts/list' });
    expect(method.status).toBe(400);
    expect((method.json.error as { code: number }).code).toBe(-32020);
    const name = await rawPost(gateway.url, modernBody(5, 'tools/call', { name: 'tool_search', arguments: { query: 'x' } }), { 'mcp-method': 'tools/call', 'mcp-name': 'call_tool' });
    expect(name.status).toBe(400);
    expect((name.json.error as { code: number }).code).toBe(-32020);
  });

  it('arguments nested too deeply to serialise get the isError a legacy client gets, not -32603', async () => {
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const body = modernBody(7, 'tools/call', { name: 'everything__echo', arguments: { message: 'placeholder' } }).replace('{"message":"placeholder"}', deep);
    const { status, json } = await rawPost(gateway.url, body, { 'mcp-method': 'tools/call', 'mcp-name': 'everything__echo' });
    expect(status).toBe(200);
    const result = json.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Invalid arguments for everything__echo|could not be sent/);
  });
});

describe('modern requests pass the same HTTP checks as legacy ones', () => {
  let gateway: HttpGateway;
  const token = 'modern-s3cret';
  beforeAll(async () => {
    gateway = await startHttp(writeConfig({ mcpServers: { everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] } } }), ['--token', token]);
  }, 60_000);
  afterAll(() => gateway.stop());

  it('no or a wrong bearer token gets 401, a foreign Host 403; the right token is served', async () => {
    const body = modernBody(7, 'tools/list');
    expect((await rawPost(gateway.url, body, { 'mcp-method': 'tools/list' })).status).toBe(401);
    expect((await rawPost(gateway.url, body, { 'mcp-method': 'tools/list', authorization: 'Bearer wrong' })).status).toBe(401);
    const served = await rawPost(gateway.url, body, { 'mcp-method': 'tools/list', authorization: `Bearer ${token}` });
    expect(served.status).toBe(200);
    expect((served.json.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    const foreign = await new Promise<{ status: number }>((resolve, reject) => {
      const url = new URL(gateway.url);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        },
      );
      req.once('error', reject);
      req.end(body);
    });
    expect(foreign.status).toBe(403);
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('open subscriptions/listen streams are capped like legacy sessions', () => {
  let gateway: HttpGateway;
  const previous = process.env.TOOLSHELF_MAX_SESSIONS;
  beforeAll(async () => {
    process.env.TOOLSHELF_MAX_SESSIONS = '2';
    try {
      gateway = await startHttp(writeConfig({ mcpServers: { counter: { command: 'node', args: [fixture('counter.mjs')] } } }));
    } finally {
      if (previous === undefined) delete process.env.TOOLSHELF_MAX_SESSIONS;
      else process.env.TOOLSHELF_MAX_SESSIONS = previous;
    }
  });
  afterAll(async () => void (await gateway?.stop()));

  /**
   * Opens a listen stream; resolves with its status once the headers come, and how to close it. The
   * Response is kept: undici cancels the body of an unreferenced, unread Response when it is garbage
   * collected, which closed streams mid-test under load.
   */
  async function listen(id: number): Promise<{ status: number; body: string; response: Response; close(): void }> {
    const abort = new AbortController();
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      body: modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      signal: abort.signal,
    });
    const body = response.status === 503 ? await response.text() : '';
    return { status: response.status, body, response, close: () => abort.abort() };
  }

  it('a listen past TOOLSHELF_MAX_SESSIONS gets 503 with its id; closing one makes room', async () => {
    const first = await listen(1);
    const second = await listen(2);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await listen(3);
    expect(third.status).toBe(503);
    expect(JSON.parse(third.body)).toMatchObject({ id: 3, error: { code: -32000, message: expect.stringContaining('Too many subscriptions/listen streams open (2)') } });
    first.close();
    let fourth = await listen(4);
    for (let tries = 0; fourth.status === 503 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      fourth = await listen(4);
    }
    expect(fourth.status).toBe(200);
    second.close();
    fourth.close();
  });
});
