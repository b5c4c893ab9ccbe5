/**
 * Upstreams of either protocol era behind one gateway, through the built CLI
 * with a real SDK Client: a modern-only upstream (the v2 `modernOnly.mjs` fixture, 2025 handshake
 * refused) beside the bundled 2025-only npm servers. The era of each is negotiated on the first start
 * and cached in the catalogue cache record; the second start sends no `server/discover` (counted by
 * the fixture). Read from the record files under `<state>/catalog/`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { cliPath, fixture, serverEntry, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

const open: Connected[] = [];
const servers: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
  for (const child of servers.splice(0)) child.kill();
});

/** Starts the modern-only fixture over Streamable HTTP (`createMcpHandler`, legacy refused); resolves to its URL. */
async function modernHttp(discoverLog: string): Promise<string> {
  const child = spawn(process.execPath, [fixture('modernOnly.mjs'), '--http'], { env: { ...process.env, DISCOVER_LOG: discoverLog }, stdio: ['ignore', 'pipe', 'inherit'] });
  servers.push(child);
  const port = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.once('exit', () => reject(new Error(`modernOnly --http exited: ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening (\d+)/.exec(output);
      if (found) resolve(found[1]!);
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

/** The config: the stdio modern-only fixture, logging each probe, and the four bundled legacy servers, all direct. */
function mixedConfig(extraServers: Record<string, unknown> = {}) {
  const dir = tempDir();
  const discoverLog = join(dir, 'discover.log');
  const path = writeConfig(
    {
      mcpServers: {
        modern: { command: 'node', args: [fixture('modernOnly.mjs')], env: { DISCOVER_LOG: discoverLog }, exposure: 'direct' },
        everything: { command: 'node', args: [serverEntry('everything'), 'stdio'], exposure: 'direct' },
        files: { command: 'node', args: [serverEntry('filesystem'), dir], exposure: 'direct' },
        memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, exposure: 'direct' },
        thinking: { command: 'node', args: [serverEntry('sequential-thinking')], exposure: 'direct' },
        ...extraServers,
      },
    },
    dir,
  );
  const probes = (): number => (existsSync(discoverLog) ? readFileSync(discoverLog, 'utf8').split('\n').filter(Boolean).length : 0);
  return { path, dir, probes };
}

/** Era verdicts in the catalogue cache records, by server key. */
function verdicts(): Record<string, string | undefined> {
  const folder = join(process.env.TOOLSHELF_STATE_DIR!, 'catalog');
  const out: Record<string, string | undefined> = {};
  for (const name of readdirSync(folder).filter((f) => f.startsWith('upstream-') && f.endsWith('.json'))) {
    const record = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { server: string; era?: string };
    out[record.server] = record.era;
  }
  return out;
}

async function start(path: string): Promise<Connected> {
  const gateway = await startStdio(path, ['--no-share']);
  open.push(gateway);
  return gateway;
}

const names = async (g: Connected): Promise<string[]> => (await g.client.listTools()).tools.map((t) => t.name);

describe('upstreams of both eras', () => {
  it('lists and calls a modern-only and the legacy-only upstreams, and caches each verdict so the second start sends no probe', async () => {
    const { path, probes } = mixedConfig();
    const first = await start(path);
    const listed = await names(first);
    expect(listed).toEqual(expect.arrayContaining(['modern__echo', 'everything__echo', 'files__list_directory', 'memory__read_graph', 'thinking__sequentialthinking']));
    const echoed = await first.client.callTool({ name: 'modern__echo', arguments: { text: 'hi' } });
    expect(textOf(echoed)).toBe('modern echo: hi');
    // The modern upstream names itself in its result's _meta; the client talks to toolshelf.
    expect(JSON.stringify(echoed._meta ?? {})).not.toContain('modern-only');
    expect(textOf(await first.client.callTool({ name: 'everything__echo', arguments: { message: 'old' } }))).toContain('old');
    expect(textOf(await first.client.callTool({ name: 'memory__read_graph', arguments: {} }))).toContain('entities');
    expect(probes()).toBe(1);
    expect(verdicts()).toEqual({ modern: 'modern', everything: 'legacy', files: 'legacy', memory: 'legacy', thinking: 'legacy' });
    await first.close();

    const second = await start(path);
    expect(textOf(await second.client.callTool({ name: 'modern__echo', arguments: { text: 'again' } }))).toBe('modern echo: again');
    expect(textOf(await second.client.callTool({ name: 'everything__echo', arguments: { message: 'old again' } }))).toContain('old again');
    expect(probes()).toBe(1); // the cached modern verdict: connected with `prior`, no server/discover
  });

  it('speaks the 2025 handshake to a server set to protocol "legacy" without probing, and pins a "modern" one', async () => {
    const { path, probes } = mixedConfig();
    const config = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> };
    config.mcpServers.modern!.protocol = 'modern';
    config.mcpServers.everything!.protocol = 'legacy';
    writeFileSync(path, JSON.stringify(config));
    const gateway = await start(path);
    expect(textOf(await gateway.client.callTool({ name: 'modern__echo', arguments: { text: 'pinned' } }))).toBe('modern echo: pinned');
    expect(textOf(await gateway.client.callTool({ name: 'everything__echo', arguments: { message: 'fixed' } }))).toContain('fixed');
    expect(probes()).toBe(1); // the pin is one probe that must find 2026-07-28
    expect(verdicts()).toMatchObject({ modern: 'modern', everything: 'legacy' });
  });

  it.each(['exit', 'silent'])('takes a stdio server that mishandles the probe (%s) as legacy, once', async (onProbe) => {
    const dir = tempDir();
    const pids = join(dir, 'pids.txt');
    const discoverLog = join(dir, 'discover.log');
    const path = writeConfig(
      { mcpServers: { shy: { command: 'node', args: [fixture('probeShy.mjs')], env: { ON_PROBE: onProbe, RECORD_PIDS: pids, DISCOVER_LOG: discoverLog }, exposure: 'direct', startTimeoutMs: 8_000 } } },
      dir,
    );
    const count = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
    const first = await start(path);
    expect(textOf(await first.client.callTool({ name: 'shy__shy', arguments: {} }))).toBe('still legacy');
    expect(count(discoverLog)).toBe(1);
    expect(count(pids)).toBe(onProbe === 'exit' ? 2 : 1); // an exit on the probe costs one more spawn
    expect(verdicts()).toEqual({ shy: 'legacy' });
    await first.close();

    const second = await start(path);
    expect(textOf(await second.client.callTool({ name: 'shy__shy', arguments: {} }))).toBe('still legacy');
    expect(count(discoverLog)).toBe(1); // the cached legacy verdict: no probe, one spawn
    expect(count(pids)).toBe(onProbe === 'exit' ? 3 : 2);
  });

  it('negotiates and caches the era of a modern-only Streamable HTTP upstream beside a legacy stdio one', async () => {
    const dir = tempDir();
    const discoverLog = join(dir, 'discover.log');
    const url = await modernHttp(discoverLog);
    const path = writeConfig(
      { mcpServers: { web: { url, exposure: 'direct' }, everything: { command: 'node', args: [serverEntry('everything'), 'stdio'], exposure: 'direct' } } },
      dir,
    );
    const probes = (): number => (existsSync(discoverLog) ? readFileSync(discoverLog, 'utf8').split('\n').filter(Boolean).length : 0);
    const first = await start(path);
    expect(textOf(await first.client.callTool({ name: 'web__echo', arguments: { text: 'over http' } }))).toBe('modern echo: over http');
    expect(textOf(await first.client.callTool({ name: 'everything__echo', arguments: { message: 'stdio' } }))).toContain('stdio');
    expect(probes()).toBe(1);
    expect(verdicts()).toEqual({ web: 'modern', everything: 'legacy' });
    await first.close();

    const second = await start(path);
    expect(textOf(await second.client.callTool({ name: 'web__echo', arguments: { text: 'again' } }))).toBe('modern echo: again');
    expect(probes()).toBe(1);
  });

  it('passes resources, prompts, completion, progress and cancellation through to a modern-only upstream beside legacy ones', async () => {
    const { path } = mixedConfig();
    const gw = await start(path);
    const { resources } = await gw.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['modern://note', 'demo://resource/static/document/architecture.md']));
    expect((await gw.client.readResource({ uri: 'modern://note' })).contents[0]).toMatchObject({ text: 'modern note at modern://note' });
    expect((await gw.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain('modern://notes/{name}');
    expect((await gw.client.readResource({ uri: 'modern://notes/todo' })).contents[0]).toMatchObject({ text: 'modern note at modern://notes/todo' });

    const prompts = (await gw.client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(['modern__greet', 'everything__args-prompt']));
    expect(JSON.stringify((await gw.client.getPrompt({ name: 'modern__greet', arguments: { name: 'Ada' } })).messages)).toContain('Hello, Ada!');
    const done = await gw.client.complete({ ref: { type: 'ref/prompt', name: 'modern__greet' }, argument: { name: 'name', value: 'a' } });
    expect(done.completion.values).toEqual(['ada', 'alan']);

    const updates: { progress: number; total?: number }[] = [];
    const ticked = await gw.client.callTool({ name: 'modern__ticks', arguments: { count: 3 } }, { onprogress: (p) => void updates.push(p) });
    expect(textOf(ticked)).toBe('ticked 3');
    expect(updates.map((u) => u.progress)).toEqual([1, 2, 3]);

    const abort = new AbortController();
    const hung = gw.client.callTool({ name: 'modern__hang', arguments: {} }, { signal: abort.signal });
    setTimeout(() => abort.abort('enough'), 300);
    await expect(hung).rejects.toThrow();
    let cancelled = '0';
    for (let i = 0; i < 30 && cancelled === '0'; i++) {
      cancelled = textOf(await gw.client.callTool({ name: 'modern__cancellations', arguments: {} }));
      if (cancelled === '0') await new Promise((r) => setTimeout(r, 100));
    }
    expect(cancelled).toBe('1');
  });

  it.each(['stdio', 'http'])('maps a modern upstream\'s input_required to sampling and elicitation requests to a legacy client and sends the answers back (%s)', async (via) => {
    const dir = tempDir();
    const discoverLog = join(dir, 'discover.log');
    const upstream = via === 'http' ? { url: await modernHttp(discoverLog) } : { command: 'node', args: [fixture('modernOnly.mjs')] };
    const path = writeConfig({ mcpServers: { modern: { ...upstream, exposure: 'direct' } } }, dir);
    const asked: string[] = [];
    const client = new Client({ name: 'legacy-capable', version: '1' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler('sampling/createMessage', (request) => {
      asked.push(`sampling: ${JSON.stringify(request.params.messages[0]?.content)}`);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'forty-two' } };
    });
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(`elicitation: ${request.params.message}`);
      return { action: 'accept', content: { reply: 'yes' } };
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', path, '--no-share'], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
    open.push({ client, pid: 0, stderr: [], close: () => client.close() });
    expect(client.getProtocolEra()).toBe('legacy');

    const sampled = textOf(await client.callTool({ name: 'modern__ask', arguments: { kind: 'sampling', prompt: 'The answer?' } }));
    expect(sampled).toContain('answered:');
    expect(sampled).toContain('forty-two');
    const elicited = textOf(await client.callTool({ name: 'modern__ask', arguments: { kind: 'elicitation', prompt: 'Proceed?' } }));
    expect(elicited).toContain('"reply":"yes"');
    expect(asked).toEqual(['sampling: {"type":"text","text":"The answer?"}', 'elicitation: Server "modern" asks: Proceed?']);
  });

  it('hears a modern upstream\'s tools/list_changed on its subscriptions/listen stream and passes the new tool on', async () => {
    const path = writeConfig({ mcpServers: { modern: { command: 'node', args: [fixture('modernOnly.mjs')], exposure: 'direct' } } });
    const gw = await start(path);
    let changed = 0;
    gw.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    expect(await names(gw)).not.toContain('modern__grown');
    expect(textOf(await gw.client.callTool({ name: 'modern__grow', arguments: {} }))).toBe('grown');
    expect(await waitFor(() => changed > 0, 10_000)).toBe(true);
    expect(await names(gw)).toContain('modern__grown');
    expect(textOf(await gw.client.callTool({ name: 'modern__grown', arguments: {} }))).toBe('I grew');
  });
});
