/**
 * Upstreams that misbehave at start: one lists malformed tools, one dies. The gateway serves
 * everything else. Source: docs/robustness.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, cliPath, descendants, fixture, serverEntry, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

describe('an upstream with malformed tools and one that dies at start', () => {
  let gw: Connected;
  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        odd: { command: 'node', args: [fixture('malformed.mjs')], exposure: 'direct' },
        dead: { command: 'node', args: [fixture('dies.mjs')] },
        missing: { command: 'definitely-not-a-command-toolshelf' },
        memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: '/tmp/toolshelf-test-memory.jsonl' } },
      },
    });
    gw = await startStdio(path);
  });
  afterAll(() => gw.close());

  it('keeps the well-formed tool of a server that lists malformed ones, and warns naming each dropped tool', async () => {
    const { tools } = await gw.client.listTools();
    expect(tools.map((t) => t.name)).toContain('odd__good_tool');
    expect(tools.map((t) => t.name).filter((n) => n.startsWith('odd__'))).toEqual(['odd__good_tool']);
    const warnings = gw.stderr.join('\n');
    expect(warnings).toMatch(/dropped tool bad_schema/);
    expect(warnings).toMatch(/dropped tool no_schema/);
    expect(warnings).toMatch(/dropped tool #2/);
    const reversed = await gw.client.callTool({ name: 'odd__good_tool', arguments: { text: 'abc' } });
    expect(textOf(reversed)).toBe('cba');
  });

  it('reports the dead and the missing upstream on stderr and still serves the others', async () => {
    const log = gw.stderr.join('\n');
    expect(log).toMatch(/upstream "dead" failed to start/);
    expect(log).toMatch(/cannot open database/);
    expect(log).toMatch(/upstream "missing" failed to start/);
    expect(log).toMatch(/upstreams: 2\/4 connected/);
    const search = (await gw.client.listTools()).tools.find((t) => t.name === 'tool_search');
    expect(search?.description).toContain('memory__create_entities');
    const result = await gw.client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(result.isError).toBeFalsy();
  });

  it('a call to a tool of the missing upstream says that upstream is not up, and why', async () => {
    const result = await gw.client.callTool({ name: 'missing__list_directory', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Unknown tool "missing__list_directory"\. Its upstream server "missing" is not up \((failed|starting): command "definitely-not-a-command-toolshelf" was not found/);
    // A name of no configured upstream, or of one that is up, gets no such line.
    expect(textOf(await gw.client.callTool({ name: 'nobody__x', arguments: {} }))).not.toMatch(/is not up/);
    expect(textOf(await gw.client.callTool({ name: 'memory__no_such_tool', arguments: {} }))).not.toMatch(/is not up/);
  });
});

describe('per-server startTimeoutMs', () => {
  it('gives up on a server that never answers initialize after its own start timeout, while the others serve', async () => {
    // The default start timeout and the start-up wait are far beyond the test timeout: only the
    // server's own 700 ms lets tools/list answer at all (no wall-clock bound).
    process.env.TOOLSHELF_START_TIMEOUT_MS = '600000';
    process.env.TOOLSHELF_STARTUP_WAIT_MS = '600000';
    const gw = await startStdio(
      writeConfig({
        mcpServers: {
          mute: { command: 'node', args: [fixture('neverInit.mjs')], startTimeoutMs: 700 },
          memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: '/tmp/toolshelf-test-memory.jsonl' } },
        },
      }),
    ).finally(() => {
      delete process.env.TOOLSHELF_START_TIMEOUT_MS;
      delete process.env.TOOLSHELF_STARTUP_WAIT_MS;
    });
    try {
      const { tools } = await gw.client.listTools();
      expect(tools.find((t) => t.name === 'tool_search')?.description).toContain('memory__read_graph');
      expect(gw.stderr.join('\n')).toMatch(/upstream "mute" failed to start/);
    } finally {
      await gw.close();
    }
  });
});

describe('a tool declaration too deep to process', () => {
  it('is dropped with a warning naming it; the gateway starts and serves its neighbour', async () => {
    const gw = await startStdio(writeConfig({ mcpServers: { d: { command: 'node', args: [fixture('deepSchema.mjs')] } } }));
    try {
      const search = (await gw.client.listTools()).tools.find((t) => t.name === 'tool_search');
      expect(search?.description).toContain('d__plain');
      expect(search?.description).not.toContain('d__abyss');
      expect(textOf(await gw.client.callTool({ name: 'd__plain', arguments: {} }))).toBe('plain ok');
      expect(gw.stderr.join('\n')).toMatch(/dropped tool abyss/);
    } finally {
      await gw.close();
    }
  });
});

describe('a result too large for a stdio client', () => {
  it('becomes an isError result instead of ending the session; smaller ones pass', async () => {
    const gw = await startStdio(writeConfig({ mcpServers: { b: { command: 'node', args: [fixture('bigResult.mjs')], exposure: 'direct' } } }));
    try {
      const huge = await gw.client.callTool({ name: 'b__big', arguments: { mb: 12 } });
      expect(huge.isError).toBe(true);
      expect(textOf(huge)).toMatch(/12\.0 MiB, more than this client accepts over stdio/);
      const fine = await gw.client.callTool({ name: 'b__big', arguments: { mb: 8 } });
      expect(fine.isError).toBeFalsy();
      expect(textOf(fine)).toHaveLength(8 * 1024 * 1024);
    } finally {
      await gw.close();
    }
  });
});

describe('start-up never waits on a slow upstream for long', () => {
  it('serves the others after the start-up wait; the late upstream joins with list_changed', async () => {
    process.env.TOOLSHELF_STARTUP_WAIT_MS = '800';
    const gate = join(tempDir(), 'initialize-now');
    const gw = await startStdio(
      writeConfig({
        mcpServers: {
          slow: { command: 'node', args: [fixture('slowInit.mjs')], env: { INIT_GATE_FILE: gate } },
          memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: '/tmp/toolshelf-test-memory.jsonl' } },
        },
      }),
    );
    delete process.env.TOOLSHELF_STARTUP_WAIT_MS;
    try {
      let changed = 0;
      gw.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
      // Served while the slow upstream has not answered initialize (it waits for the gate file): its
      // tool is not in the first list. Memory is in it, or joins like slow does when load delays it.
      const search = async (): Promise<string> => (await gw.client.listTools()).tools.find((t) => t.name === 'tool_search')?.description ?? '';
      const first = await search();
      expect(first).not.toContain('slow__late_tool');
      const changesBefore = changed;
      writeFileSync(gate, '');
      expect(await waitFor(() => changed > changesBefore, 20_000)).toBe(true);
      let later = await search();
      for (let i = 0; i < 100 && !(later.includes('slow__late_tool') && later.includes('memory__read_graph')); i++) {
        await new Promise((r) => setTimeout(r, 200));
        later = await search();
      }
      expect(later).toContain('slow__late_tool');
      expect(later).toContain('memory__read_graph');
      expect(textOf(await gw.client.callTool({ name: 'slow__late_tool', arguments: {} }))).toBe('late ok');
      // The start-up summary said slow was starting; a later line says when every start has ended.
      expect(gw.stderr.join('\n')).toMatch(/upstreams: [01]\/2 connected \(slow: starting, memory: /);
      expect(await waitFor(() => gw.stderr.some((line) => /upstreams now: 2\/2 connected \(slow: 1 tool, memory: \d+ tools\)/.test(line)), 10_000)).toBe(true);
    } finally {
      await gw.close();
    }
  });

  it('SIGTERM during start-up ends the gateway and every upstream at once', async () => {
    const path = writeConfig({ mcpServers: { mute: { command: 'node', args: [fixture('neverInit.mjs')] }, memory: { command: 'node', args: [serverEntry('memory')] } } });
    // With a start-up wait beyond the test timeout, exiting at all shows SIGTERM cut the start short
    // (no wall-clock bound).
    const child = spawn(process.execPath, [cliPath, '--config', path, '--no-share'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TOOLSHELF_STARTUP_WAIT_MS: '600000' } });
    child.stdout.resume();
    child.stderr.resume();
    expect(await waitFor(() => descendants(child.pid as number).length >= 2, 40_000)).toBe(true);
    const tree = descendants(child.pid as number);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await waitFor(() => tree.every((p) => !alive(p)), 5000)).toBe(true);
  });
});
