/**
 * Lazy upstreams from a cached catalogue, through the real CLI over stdio: a
 * start with a cached listing serves tools/list without spawning, a lazy upstream starts on its
 * first call (or a search that finds its tools) and stops when idle, and a stale cache is corrected
 * with list_changed. Spawns are counted by the recorder fixture's pid file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, fixture, startHttp, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: { id: { type: 'integer' }, ...extra } },
});

/** A config with one recorder upstream `rec` (direct, so its tools are in tools/list). */
function setup(options: { lazy?: boolean; idleStopMs?: number; tools?: unknown[]; trust?: Record<string, unknown> } = {}) {
  const dir = tempDir();
  const pids = join(dir, 'pids.txt');
  const toolsFile = join(dir, 'tools.json');
  writeFileSync(toolsFile, JSON.stringify(options.tools ?? [tool('alpha'), tool('beta')]));
  const path = writeConfig(
    {
      mcpServers: { rec: { command: 'node', args: [fixture('recorder.mjs')], env: { RECORD_PIDS: pids, TOOLS_FILE: toolsFile }, exposure: 'direct' } },
      ...(options.lazy !== undefined ? { lazy: options.lazy } : {}),
      ...(options.idleStopMs !== undefined ? { idleStopMs: options.idleStopMs } : {}),
      ...(options.trust !== undefined ? { trust: options.trust } : {}),
    },
    dir,
  );
  const spawned = (): number[] => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  return { path, toolsFile, spawned };
}

const open: Connected[] = [];
async function start(path: string): Promise<Connected> {
  const gateway = await startStdio(path, ['--no-share']);
  open.push(gateway);
  return gateway;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

const names = async (g: Connected): Promise<string[]> => (await g.client.listTools()).tools.map((t) => t.name).sort();

describe('catalogue cache and lazy upstreams', () => {
  it('serves tools/list from the cache without spawning, and starts a lazy upstream on its first call', async () => {
    const { path, spawned } = setup({ lazy: true });
    const first = await start(path);
    expect(await names(first)).toEqual(['rec__alpha', 'rec__beta']);
    expect(spawned()).toHaveLength(1); // no cache yet: listed once
    await first.close();

    const second = await start(path);
    expect(await names(second)).toEqual(['rec__alpha', 'rec__beta']);
    expect(spawned()).toHaveLength(1); // served from the cache: nothing spawned
    const result = await second.client.callTool({ name: 'rec__alpha', arguments: { id: 1 } });
    expect(spawned()).toHaveLength(2);
    expect(textOf(result)).toBe(`alpha from ${spawned()[1]}`);
  });

  it('starts an eager upstream served from the cache by itself once the gateway has served, with no call', async () => {
    const { path, spawned } = setup();
    await (await start(path)).close();
    expect(spawned()).toHaveLength(1);

    const gateway = await start(path);
    expect(await names(gateway)).toEqual(['rec__alpha', 'rec__beta']);
    expect(await waitFor(() => spawned().length === 2, 20_000)).toBe(true);
    const result = await gateway.client.callTool({ name: 'rec__alpha', arguments: { id: 1 } });
    expect(textOf(result)).toBe(`alpha from ${spawned()[1]}`);
  });

  it('starts a lazy upstream when a search returns its tools', async () => {
    const { path, spawned } = setup({ lazy: true, tools: [tool('alpha'), tool('weather_forecast')] });
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.mcpServers.rec.exposure = 'deferred';
    writeFileSync(path, JSON.stringify(config));
    await (await start(path)).close();
    expect(spawned()).toHaveLength(1);

    const gateway = await start(path);
    expect(spawned()).toHaveLength(1);
    await gateway.client.callTool({ name: 'tool_search', arguments: { query: 'weather forecast' } });
    expect(await waitFor(() => spawned().length === 2, 20_000)).toBe(true);
  });

  it('stops a lazy upstream after its idle time and starts it again on the next call', async () => {
    const { path, spawned } = setup({ lazy: true, idleStopMs: 300 });
    const gateway = await start(path);
    const [pid] = spawned();
    expect(await waitFor(() => !alive(pid!), 20_000)).toBe(true);
    const result = await gateway.client.callTool({ name: 'rec__beta', arguments: {} });
    expect(spawned()).toHaveLength(2);
    expect(textOf(result)).toBe(`beta from ${spawned()[1]}`);
  });

  it('corrects a stale cache when the upstream starts, and tells the client with list_changed', async () => {
    // alpha changes between the runs: by default it would be held for review (test/e2e/trust.e2e.test.ts); here the cache's correction is under test.
    const { path, toolsFile, spawned } = setup({ lazy: true, trust: { changes: 'warn' } });
    await (await start(path)).close();
    writeFileSync(toolsFile, JSON.stringify([tool('alpha', { extra: { type: 'string' } }), tool('gamma')]));

    const gateway = await start(path);
    let changed = 0;
    gateway.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    expect(await names(gateway)).toEqual(['rec__alpha', 'rec__beta']); // the cache, stale
    await gateway.client.callTool({ name: 'rec__alpha', arguments: { id: 2 } });
    expect(spawned()).toHaveLength(2);
    expect(await waitFor(() => changed > 0, 20_000)).toBe(true);
    const listed = (await gateway.client.listTools()).tools;
    expect(listed.map((t) => t.name).sort()).toEqual(['rec__alpha', 'rec__gamma']);
    expect(Object.keys(listed.find((t) => t.name === 'rec__alpha')!.inputSchema.properties ?? {})).toContain('extra');
  });

  it('serves Streamable HTTP sessions from the cache too, starting the lazy upstream on the first call', async () => {
    const { path, spawned } = setup({ lazy: true });
    const first = await startHttp(path);
    await first.stop();
    expect(spawned()).toHaveLength(1);
    const second = await startHttp(path);
    try {
      const client = await second.connect();
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['rec__alpha', 'rec__beta']);
      expect(spawned()).toHaveLength(1);
      expect(textOf(await client.callTool({ name: 'rec__beta', arguments: {} }))).toBe(`beta from ${spawned()[1]}`);
    } finally {
      await second.stop();
    }
  });

  it('re-lists an edited entry instead of trusting the old cache', async () => {
    const { path, spawned } = setup({ lazy: true });
    await (await start(path)).close();
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.mcpServers.rec.args.push('--edited');
    writeFileSync(path, JSON.stringify(config));
    await start(path);
    expect(spawned()).toHaveLength(2);
  });

  it('lists afresh over a damaged cache file instead of crashing at start', async () => {
    // The last record is a whole listing whose alpha differs from its pin: by default held for review (test/e2e/trust.e2e.test.ts).
    const { path, spawned } = setup({ lazy: true, trust: { changes: 'warn' } });
    await (await start(path)).close();
    const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'catalog');
    const [file] = readdirSync(dir).filter((f) => f.startsWith('upstream-'));
    const checkedAt = new Date().toISOString();
    // Valid JSON of the right format whose contents a listing never gives: each crashed the gateway
    // ("Cannot read properties of null", "text.trim is not a function") or failed the first call.
    const damaged = [
      { format: 1, tools: [null] },
      { format: 1, tools: [{ name: 5 }] },
      { format: 1, tools: [{ name: 'alpha' }] },
      { format: 1, tools: [{ name: 'alpha', inputSchema: { type: 'object' } }], instructions: 7, capabilities: 'x' },
      { format: 1, tools: [{ name: 'alpha', inputSchema: { type: 'object' } }], era: 'modern', discover: { x: 1 }, eraCheckedAt: checkedAt },
    ];
    for (const [index, record] of damaged.entries()) {
      writeFileSync(join(dir, file!), JSON.stringify(record));
      const gateway = await start(path);
      // A lazy upstream with a usable cache would not start: a damaged one is a miss, so it is listed afresh.
      const expected = index < 4 ? ['rec__alpha', 'rec__beta'] : ['rec__alpha'];
      expect(await names(gateway)).toEqual(expected);
      expect(textOf(await gateway.client.callTool({ name: 'rec__alpha', arguments: {} }))).toBe(`alpha from ${spawned().at(-1)}`);
      await gateway.close();
    }
  });

  it('starts an idle lazy upstream when a reload makes it eager, without restarting anything', async () => {
    const { path, spawned } = setup({ lazy: true });
    await (await start(path)).close();
    const gateway = await start(path);
    expect(await names(gateway)).toEqual(['rec__alpha', 'rec__beta']);
    expect(spawned()).toHaveLength(1); // idle, served from the cache
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.lazy = false;
    writeFileSync(path, JSON.stringify(config));
    expect(await waitFor(() => spawned().length === 2, 20_000)).toBe(true);
    expect(textOf(await gateway.client.callTool({ name: 'rec__alpha', arguments: {} }))).toBe(`alpha from ${spawned()[1]}`);
    expect(spawned()).toHaveLength(2);
  });

  it('keeps a listing per server entry when two entries share one launch spec', async () => {
    const dir = tempDir();
    const entry = { command: 'node', args: [fixture('grower.mjs')], exposure: 'direct' };
    const path = writeConfig({ mcpServers: { a: entry, b: entry }, lazy: true }, dir);
    const first = await start(path);
    let changed = 0;
    first.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    expect(await names(first)).toEqual(['a__grow', 'b__grow']);
    expect(textOf(await first.client.callTool({ name: 'a__grow', arguments: {} }))).toBe('grow ok');
    expect(await waitFor(() => changed > 0, 20_000)).toBe(true);
    expect(await names(first)).toEqual(['a__grow', 'a__grown', 'b__grow']);
    await first.close();

    const second = await start(path);
    expect(await names(second)).toEqual(['a__grow', 'a__grown', 'b__grow']); // each entry's own cached listing
    expect(textOf(await second.client.callTool({ name: 'a__grown', arguments: {} }))).toBe('grown ok');
  });

  it('prunes state files unused for 30 days at start, keeping the catalogue it loads', async () => {
    const { path, spawned } = setup({ lazy: true });
    await (await start(path)).close();
    const state = process.env.TOOLSHELF_STATE_DIR!;
    const catalog = join(state, 'catalog');
    const [own] = readdirSync(catalog).filter((f) => f.startsWith('upstream-'));
    mkdirSync(join(state, 'pins'), { recursive: true });
    mkdirSync(join(state, 'shared'), { recursive: true });
    const stale = [join(catalog, 'upstream-0000.json'), join(state, 'pins', 'gone.json'), join(state, 'shared', 'ffff.log'), join(state, 'shared', 'ffff.pid')];
    for (const file of stale) writeFileSync(file, '{}');
    writeFileSync(join(state, 'shared', 'ffff.pid'), '999999999\n'); // no such process
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const file of [...stale, join(catalog, own!), join(state, 'pruned-at')]) utimesSync(file, old, old);

    const gateway = await start(path);
    expect(await waitFor(() => stale.every((file) => !existsSync(file)), 20_000)).toBe(true);
    expect(existsSync(join(catalog, own!))).toBe(true); // loaded at start, so used
    expect(await names(gateway)).toEqual(['rec__alpha', 'rec__beta']);
    expect(spawned()).toHaveLength(1); // served from the cache it kept
  });
});
