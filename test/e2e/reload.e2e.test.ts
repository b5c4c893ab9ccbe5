/**
 * Config reload without a restart, through the real CLI over stdio: an edit
 * starts added servers, ends removed ones, restarts changed ones and leaves the rest running; a
 * file that fails validation is refused with every problem listed on stderr and the running config
 * kept. Processes are counted by the recorder fixture's pid files.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, fixture, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

const dir = tempDir();
const toolsFile = join(dir, 'tools.json');
writeFileSync(toolsFile, JSON.stringify([{ name: 'ping', description: 'Answers.', inputSchema: { type: 'object', properties: {} } }]));
const pidFile = (key: string): string => join(dir, `${key}.pids`);
const entry = (key: string, extraArgs: string[] = []) => ({
  command: 'node',
  args: [fixture('recorder.mjs'), ...extraArgs],
  env: { RECORD_PIDS: pidFile(key), TOOLS_FILE: toolsFile },
});
const pids = (key: string): number[] => (existsSync(pidFile(key)) ? readFileSync(pidFile(key), 'utf8').split('\n').filter(Boolean).map(Number) : []);

const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

/** Rewrites the config the way editors that save by rename do: a new file moved over the old one. */
function save(path: string, config: unknown): void {
  writeFileSync(`${path}.new`, JSON.stringify(config, null, 2));
  renameSync(`${path}.new`, path);
}

const names = async (g: Connected): Promise<string[]> => (await g.client.listTools()).tools.map((t) => t.name).sort();

/** Re-lists until the names are `expected` (a reload's upstream joins once it has listed), for at most `ms`. */
async function namesBecome(g: Connected, expected: string[], ms = 20_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let last = await names(g);
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await names(g);
  }
  return last;
}

describe('config reload', () => {
  it('adds, removes and restarts only the servers that changed', async () => {
    const config = { mcpServers: { keep: entry('keep'), gone: entry('gone'), edit: entry('edit') }, exposure: 'direct' };
    const path = writeConfig(config, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    let changed = 0;
    gateway.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    expect(await names(gateway)).toEqual(['edit__ping', 'gone__ping', 'keep__ping']);
    const [gonePid] = pids('gone');
    const [editPid] = pids('edit');

    save(path, { mcpServers: { keep: entry('keep'), edit: entry('edit', ['--changed']), added: entry('added') }, exposure: 'direct' });
    expect(await waitFor(() => gateway.stderr.some((l) => l.includes('config reloaded')), 20_000)).toBe(true);
    expect(await waitFor(() => changed > 0 && pids('added').length === 1, 20_000)).toBe(true);
    expect(await waitFor(() => !alive(gonePid!) && !alive(editPid!), 20_000)).toBe(true);
    expect(await waitFor(() => pids('edit').length === 2, 20_000)).toBe(true);
    expect(pids('keep')).toHaveLength(1); // untouched: never restarted
    expect(await namesBecome(gateway, ['added__ping', 'edit__ping', 'keep__ping'])).toEqual(['added__ping', 'edit__ping', 'keep__ping']);
    expect(textOf(await gateway.client.callTool({ name: 'added__ping', arguments: {} }))).toBe(`ping from ${pids('added')[0]}`);
    expect(textOf(await gateway.client.callTool({ name: 'edit__ping', arguments: {} }))).toBe(`ping from ${pids('edit')[1]}`);
  });

  it('an exposure-only edit: clients get list_changed, and the log line names the setting, no upstream touched', async () => {
    const servers = { counter: { command: 'node', args: [fixture('counter.mjs')] } };
    const path = writeConfig({ mcpServers: servers, exposure: 'direct' }, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    let changed = 0;
    gateway.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    expect(await names(gateway)).toContain('counter__call_count');

    save(path, { mcpServers: servers, exposure: 'deferred' });
    expect(await waitFor(() => gateway.stderr.some((l) => l.includes('config reloaded')), 20_000)).toBe(true);
    // It said "(no server changed)" though every client's tool list changed.
    expect(gateway.stderr.find((l) => l.includes('config reloaded'))).toBe(
      `toolshelf: config reloaded from ${path}: no upstream added, removed or restarted; settings changed: /exposure`,
    );
    expect(await waitFor(() => changed > 0, 20_000)).toBe(true);
    expect(await names(gateway)).not.toContain('counter__call_count');
  });

  it('refuses a file that fails validation, lists every problem and keeps the running config', async () => {
    const path = writeConfig({ mcpServers: { keep: entry('solo') }, exposure: 'direct' }, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    save(path, { mcpServers: { keep: { command: 'node', url: 'http://127.0.0.1:1/mcp' }, other: { command: 7 } }, exposure: 'sideways' });
    expect(await waitFor(() => gateway.stderr.some((l) => l.includes('problem(s); the running config is kept')), 20_000)).toBe(true);
    const text = gateway.stderr.join('\n');
    expect(text).toContain('/exposure:');
    expect(text).toContain('/mcpServers/keep:');
    expect(text).toContain('/mcpServers/other/command:');
    expect(await names(gateway)).toEqual(['keep__ping']);
    expect(textOf(await gateway.client.callTool({ name: 'keep__ping', arguments: {} }))).toBe(`ping from ${pids('solo')[0]}`);
    expect(pids('solo')).toHaveLength(1);

    // Fixed again: applied, and the unchanged server keeps running.
    save(path, { mcpServers: { keep: entry('solo'), more: entry('more') }, exposure: 'direct' });
    expect(await waitFor(() => pids('more').length === 1, 20_000)).toBe(true);
    expect(pids('solo')).toHaveLength(1);
  });

  it('lets a call in flight on a changed or removed server end before ending it; a call meanwhile waits for the replacement', async () => {
    const path = writeConfig({ mcpServers: { edit: entry('drain-edit'), gone: entry('drain-gone') }, exposure: 'direct' }, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    expect(await names(gateway)).toEqual(['edit__ping', 'gone__ping']);
    const [editPid] = pids('drain-edit');
    const [gonePid] = pids('drain-gone');
    const slow = { waitMs: 6000 };
    const onEdit = gateway.client.callTool({ name: 'edit__ping', arguments: slow });
    const onGone = gateway.client.callTool({ name: 'gone__ping', arguments: slow });
    await new Promise((r) => setTimeout(r, 1000));

    save(path, { mcpServers: { edit: entry('drain-edit', ['--changed']) }, exposure: 'direct' });
    await new Promise((r) => setTimeout(r, 1500));
    const meanwhile = gateway.client.callTool({ name: 'edit__ping', arguments: {} });
    // Before: both answered "upstream server ... is unavailable: the connection closed during the call".
    expect(textOf(await onEdit)).toBe(`ping from ${editPid}`);
    expect(textOf(await onGone)).toBe(`ping from ${gonePid}`);
    expect(await waitFor(() => !alive(editPid!) && !alive(gonePid!), 20_000)).toBe(true);
    expect(textOf(await meanwhile)).toBe(`ping from ${pids('drain-edit')[1]}`);
    expect(pids('drain-edit')).toHaveLength(2);
    expect(await namesBecome(gateway, ['edit__ping'])).toEqual(['edit__ping']);
  });

  it('applies every save to a config that is a symlink into another folder, not only the first', async () => {
    // A config kept in a dotfiles folder and linked into place; the editor saves the target by rename.
    const dotfiles = join(tempDir(), 'dotfiles');
    mkdirSync(dotfiles);
    const target = join(dotfiles, 'servers.config.json');
    save(target, { mcpServers: { one: entry('link-one') }, exposure: 'direct' });
    const path = join(tempDir(), 'servers.config.json');
    symlinkSync(target, path);
    const gateway = await startStdio(path);
    open.push(gateway);
    expect(await names(gateway)).toEqual(['one__ping']);
    const saves = [['one', 'two'], ['two'], ['three', 'two']];
    for (const keys of saves) {
      save(target, { mcpServers: Object.fromEntries(keys.map((key) => [key, entry(`link-${key}`)])), exposure: 'direct' });
      const expected = keys.map((key) => `${key}__ping`).sort();
      // Before: the first save applied and every later one was ignored.
      expect(await namesBecome(gateway, expected)).toEqual(expected);
    }
    expect(gateway.stderr.filter((l) => l.includes('config reloaded'))).toHaveLength(saves.length);
  });

  it("leaves a server running when an edit changes only toolshelf's own limits for it", async () => {
    const path = writeConfig({ mcpServers: { tuned: entry('tuned') }, exposure: 'direct' }, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    expect(await names(gateway)).toEqual(['tuned__ping']);
    const [pid] = pids('tuned');
    // Before: each of these keys restarted the upstream, losing whatever state it held.
    save(path, { mcpServers: { tuned: { ...entry('tuned'), timeoutMs: 5000, maxTotalMs: 9000, startTimeoutMs: 7000, instructionsBytes: 100, lazy: false, idleStopMs: 0 } }, exposure: 'direct' });
    expect(await waitFor(() => gateway.stderr.some((l) => l.includes('config reloaded')), 20_000)).toBe(true);
    expect(gateway.stderr.join('\n')).toContain('no upstream added, removed or restarted; settings changed: /mcpServers/tuned/');
    expect(textOf(await gateway.client.callTool({ name: 'tuned__ping', arguments: {} }))).toBe(`ping from ${pid}`);
    expect(pids('tuned')).toEqual([pid]);
  });

  it('applies an edit saved while the gateway was still starting its upstreams', async () => {
    const dir = tempDir();
    const gate = join(dir, 'gate');
    const slow = { command: 'node', args: [fixture('slowInit.mjs')], env: { INIT_GATE_FILE: gate } };
    const path = writeConfig({ mcpServers: { slow, early: entry('start-early') }, exposure: 'direct' }, dir);
    const starting = startStdio(path);
    // The config has been read once its upstreams run; the gateway serves once the slow one answers.
    expect(await waitFor(() => pids('start-early').length === 1, 20_000)).toBe(true);
    save(path, { mcpServers: { slow, early: entry('start-early'), added: entry('start-added') }, exposure: 'direct' });
    await new Promise((r) => setTimeout(r, 500));
    writeFileSync(gate, '');
    const gateway = await starting;
    open.push(gateway);
    // Before: the edit was never applied (no watch existed when it was saved), until the next one.
    expect(await namesBecome(gateway, ['added__ping', 'early__ping', 'slow__late_tool'])).toEqual(['added__ping', 'early__ping', 'slow__late_tool']);
  });

  it('a gateway started with no servers serves the first one an edit adds (its connection code is loaded then)', async () => {
    const path = writeConfig({ mcpServers: {}, exposure: 'direct' }, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    expect(await names(gateway)).toEqual([]);
    save(path, { mcpServers: { first: entry('first-added') }, exposure: 'direct' });
    expect(await namesBecome(gateway, ['first__ping'])).toEqual(['first__ping']);
    expect(textOf(await gateway.client.callTool({ name: 'first__ping', arguments: {} }))).toBe(`ping from ${pids('first-added')[0]}`);
  });

  it('applies a config whose folder was deleted and made again', async () => {
    const folder = join(tempDir(), 'conf');
    mkdirSync(folder);
    const path = writeConfig({ mcpServers: { first: entry('folder-first') }, exposure: 'direct' }, folder);
    const gateway = await startStdio(path);
    open.push(gateway);
    expect(await names(gateway)).toEqual(['first__ping']);
    // A dotfiles tool or a checkout that replaces the whole folder.
    rmSync(folder, { recursive: true });
    await new Promise((r) => setTimeout(r, 500));
    mkdirSync(folder);
    writeFileSync(path, JSON.stringify({ mcpServers: { second: entry('folder-second') }, exposure: 'direct' }));
    // Before: never applied, the folder's watch having ended with the folder.
    expect(await namesBecome(gateway, ['second__ping'])).toEqual(['second__ping']);
  });

  it('says so when the config file is deleted, keeps serving, and applies it when it comes back (kept without a word)', async () => {
    const path = writeConfig({ mcpServers: { kept: entry('gone-kept') }, exposure: 'direct' }, tempDir());
    const gateway = await startStdio(path);
    open.push(gateway);
    expect(await names(gateway)).toEqual(['kept__ping']);
    rmSync(path);
    expect(await waitFor(() => gateway.stderr.some((l) => l.includes(`config ${path} is gone; the running config is kept`)), 30_000)).toBe(true);
    expect(gateway.stderr.filter((l) => l.includes('is gone'))).toHaveLength(1);
    expect(await names(gateway)).toEqual(['kept__ping']);
    writeFileSync(path, JSON.stringify({ mcpServers: { back: entry('gone-back') }, exposure: 'direct' }));
    expect(await namesBecome(gateway, ['back__ping'])).toEqual(['back__ping']);
  });
});
