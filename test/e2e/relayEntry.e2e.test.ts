/**
 * The stdio relay's entry (src/relay.ts) through the built CLI with sharing on: a config that fails
 * validation is refused before any instance starts; a client whose config was edited into one that
 * fails while its instance runs is served the config the instance kept and told why (the instance
 * checks every edit); a relay that finds no instance to reach serves the client itself, saying which
 * config and why once. See docs/performance.md, "Memory", and docs/operations.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, cliPath, startStdio, tempDir, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

/** Runs the CLI over stdio with `args`, stdin closed at once, sharing on unless `env` says otherwise. */
function run(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const { TOOLSHELF_TOKEN: _unset, ...base } = process.env;
  return spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', input: '', timeout: 30_000, env: { ...base, TOOLSHELF_SHARE: '1', ...env }, ...(cwd ? { cwd } : {}) });
}

/** Pids of the shared instances with files under the state folder `state`. */
function instancePids(state: string): number[] {
  const dir = join(state, 'shared');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.pid'))
    .map((name) => Number(readFileSync(join(dir, name), 'utf8').trim()));
}

describe('the stdio relay entry', () => {
  const clients: Connected[] = [];
  let instance: number | undefined;
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    if (instance !== undefined && alive(instance)) process.kill(instance, 'SIGTERM');
    await waitFor(() => instance === undefined || !alive(instance), 10_000);
  });

  it('refuses a config that fails validation before any instance starts: exit 2, every problem by JSON path', () => {
    const path = writeConfig({ mcpServers: { a: { command: 'node', args: 'not-an-array' } }, colour: 'blue' });
    const result = run(['--config', path]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('/mcpServers/a/args: must be array');
    expect(result.stderr).toContain('/colour: is not a known key');
    expect(result.stderr).not.toContain('shared instance');
    expect(instancePids(process.env.TOOLSHELF_STATE_DIR!)).toEqual([]);
  });

  it('serves a client whose config was edited into one that fails from the config its running instance kept, and says why', async () => {
    const path = writeConfig({ mcpServers: {} });
    const first = await startStdio(path, ['--share']);
    clients.push(first);
    const before = (await first.client.listTools()).tools.map((t) => t.name);
    [instance] = instancePids(process.env.TOOLSHELF_STATE_DIR!);
    expect(instance).toBeDefined();
    writeFileSync(path, JSON.stringify({ mcpServers: {}, colour: 'blue' }));
    expect(await waitFor(() => first.stderr.some((line) => line.includes('/colour: is not a known key')), 20_000)).toBe(true);
    const second = await startStdio(path, ['--share']);
    clients.push(second);
    expect((await second.client.listTools()).tools.map((t) => t.name)).toEqual(before);
    expect(instancePids(process.env.TOOLSHELF_STATE_DIR!)).toEqual([instance]);
    expect(await waitFor(() => second.stderr.some((line) => line.includes('the running config is kept')), 10_000)).toBe(true);
  });

  it('serves from its own process when no instance can be reached, naming the config, the reason and a stdio token once', () => {
    const project = tempDir();
    writeConfig({ mcpServers: {} }, project);
    // A state folder whose socket path is over the 107 bytes a Unix socket allows: no instance can listen there.
    const state = join(tempDir(), 'x'.repeat(120));
    const result = run([], { TOOLSHELF_STATE_DIR: state, TOOLSHELF_TOKEN: 's3cret' }, project);
    expect(result.status).toBe(0);
    const count = (text: string): number => result.stderr.split(text).length - 1;
    expect(count(`toolshelf: config: ${join(project, 'servers.config.json')} (no --config given; found ./servers.config.json)`)).toBe(1);
    expect(count('toolshelf: warn: TOOLSHELF_TOKEN is set but only applies to --http; over stdio it is ignored')).toBe(1);
    expect(count('toolshelf: serving from this process instead, as with --no-share')).toBe(1);
    expect(result.stderr).toContain('over the 107 a Unix socket allows here');
  });
});
