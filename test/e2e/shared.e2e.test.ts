/**
 * Shared upstreams, through the real CLI over stdio with the SDK Client: stdio
 * clients of one config share one background instance and one set of upstream processes (counted by
 * the recorder fixture's pid file), each keeps its own promotions, the instance ends once its last
 * client has been gone for `share.idleExitMs`, and a killed instance is replaced by the next client.
 * Each test has its own TOOLSHELF_STATE_DIR (test/helpers/stateDir.setup.ts), so no instance is
 * shared across tests or with the user.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { alive, sharedInstances, cliPath, descendants, fixture, repoRoot, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

function setup(exposure: 'direct' | 'deferred' = 'direct') {
  const dir = tempDir();
  const pids = join(dir, 'pids.txt');
  const toolsFile = join(dir, 'tools.json');
  const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object', properties: {} } });
  writeFileSync(toolsFile, JSON.stringify([tool('ping', 'Answers with the pid.'), tool('weather_forecast', 'Tells the weather forecast for a city.')]));
  const path = writeConfig(
    { mcpServers: { rec: { command: 'node', args: [fixture('recorder.mjs')], env: { RECORD_PIDS: pids, TOOLS_FILE: toolsFile }, exposure } }, share: { idleExitMs: 300 } },
    dir,
  );
  const upstreams = (): number[] => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  return { path, upstreams };
}

/** The logs of this test's shared instances, for a failure's message: what each instance said as it ended. */
function instanceLogs(): string {
  const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
  if (!existsSync(dir)) return '(no shared folder)';
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => `--- ${f}\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-40).join('\n')}`)
    .join('\n');
}

const open: Connected[] = [];
const started: number[] = [];
async function client(path: string, name = 'e2e-client', cli = cliPath): Promise<Connected> {
  const connected = await startStdio(path, ['--share'], name, cli).catch((error: Error) => {
    throw new Error(`${name} could not connect: ${error.message}\n${instanceLogs()}`);
  });
  open.push(connected);
  return connected;
}
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    console.error(`relayed clients' stderr:\n${open.map((c) => c.stderr.join('\n')).join('\n---\n')}\ninstance logs:\n${instanceLogs()}`);
  }
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
  // An instance still in its idle time is ended cleanly (it ends its upstreams); what a killed one left is killed.
  const running = sharedInstances().filter(alive);
  for (const pid of running) process.kill(pid, 'SIGTERM');
  await waitFor(() => !running.some(alive), 20_000);
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** Starts the instance of `path` through a client, SIGKILLs it (its upstreams are killed after the test) and returns its pid. */
async function killInstance(path: string, upstreams: () => number[]): Promise<number> {
  const a = await client(path);
  await names(a);
  const [killed] = sharedInstances();
  started.push(...upstreams());
  process.kill(killed!, 'SIGKILL');
  expect(await waitFor(() => !alive(a.pid), 20_000)).toBe(true); // its relay ends with the instance
  return killed!;
}

const names = async (c: Connected): Promise<string[]> => (await c.client.listTools()).tools.map((t) => t.name).sort();

describe('shared upstreams', () => {
  it('serves two stdio clients from one instance and one set of upstream processes', async () => {
    const { path, upstreams } = setup();
    const a = await client(path, 'client-a');
    const b = await client(path, 'client-b');
    expect(await names(a)).toEqual(['rec__ping', 'rec__weather_forecast']);
    expect(await names(b)).toEqual(['rec__ping', 'rec__weather_forecast']);
    expect(upstreams()).toHaveLength(1);
    expect(sharedInstances()).toHaveLength(1);
    // Only the current user can reach the instance: a 0700 folder, a 0600 socket.
    const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const socket = readdirSync(dir).find((f) => f.endsWith('.sock'))!;
    expect(statSync(join(dir, socket)).mode & 0o777).toBe(0o600);
    const [pid] = upstreams();
    expect(textOf(await a.client.callTool({ name: 'rec__ping', arguments: {} }))).toBe(`ping from ${pid}`);
    expect(textOf(await b.client.callTool({ name: 'rec__ping', arguments: {} }))).toBe(`ping from ${pid}`);
    // The relays are this test's children; the instance and the upstream are not.
    expect(sharedInstances()[0]).not.toBe(a.pid);
    expect(sharedInstances()[0]).not.toBe(b.pid);
  });

  it('gives a client of another install, or of a rebuilt one, an instance of its own code', async () => {
    const { path } = setup();
    // A second install of the same version: its own dist/, package.json and schema, the same dependencies.
    const install = tempDir();
    cpSync(join(repoRoot, 'dist'), join(install, 'dist'), { recursive: true });
    for (const file of ['package.json', 'config.schema.json']) cpSync(join(repoRoot, file), join(install, file));
    symlinkSync(join(repoRoot, 'node_modules'), join(install, 'node_modules'));
    const other = join(install, 'dist', 'cli.js');
    const a = await client(path, 'this-install');
    const b = await client(path, 'other-install', other);
    expect(await names(a)).toEqual(await names(b));
    expect(sharedInstances()).toHaveLength(2);
    // The other install rebuilt: a new client gets the new build, not the running instance.
    const later = new Date(statSync(other).mtimeMs + 60_000);
    utimesSync(other, later, later);
    const c = await client(path, 'rebuilt-install', other);
    await names(c);
    expect(sharedInstances()).toHaveLength(3);
  });

  it('keeps promotions per client', async () => {
    const { path } = setup('deferred');
    const a = await client(path, 'client-a');
    const b = await client(path, 'client-b');
    let bChanged = 0;
    b.client.setNotificationHandler('notifications/tools/list_changed', () => void (bChanged += 1));
    const before = await names(b);
    await a.client.callTool({ name: 'tool_search', arguments: { query: 'weather forecast' } });
    expect(await names(a)).toContain('rec__weather_forecast');
    expect(await names(b)).toEqual(before);
    expect(before).not.toContain('rec__weather_forecast');
    expect(bChanged).toBe(0);
  });

  it('ends the instance and its upstreams once the last client has been gone for idleExitMs', async () => {
    const { path, upstreams } = setup();
    const a = await client(path);
    const b = await client(path);
    const [instance] = sharedInstances();
    await a.close();
    await names(b); // still served after the first client left
    await b.close();
    expect(await waitFor(() => !alive(instance!), 20_000)).toBe(true);
    expect(await waitFor(() => upstreams().every((pid) => !alive(pid)), 20_000)).toBe(true);
    expect(readdirSync(join(process.env.TOOLSHELF_STATE_DIR!, 'shared')).filter((f) => f.endsWith('.sock') || f.endsWith('.pid'))).toEqual([]);
  });

  it('waits for the client that started it even when idleExitMs is shorter than that client takes to connect', async () => {
    // Under load a relay's connect came more than idleExitMs (300 ms here) after the listen: the new
    // instance had ended by then and closed the client's connection as it arrived ("Connection closed").
    // 1 ms makes that certain on any machine: the relay polls for the socket every 100 ms.
    const { path, upstreams } = setup();
    const config = JSON.parse(readFileSync(path, 'utf8')) as { share: { idleExitMs: number } };
    config.share.idleExitMs = 1;
    writeFileSync(path, JSON.stringify(config));
    const a = await client(path);
    expect(await names(a)).toEqual(['rec__ping', 'rec__weather_forecast']);
    expect(a.stderr.join('\n')).toContain('serving through the shared instance');
    const [instance] = sharedInstances();
    expect(alive(instance!)).toBe(true);
    expect(textOf(await a.client.callTool({ name: 'rec__ping', arguments: {} }))).toBe(`ping from ${upstreams().at(-1)}`);
    await a.close();
    expect(await waitFor(() => !alive(instance!), 20_000)).toBe(true); // and it still ends 1 ms after its last client
  });

  it('replaces a killed instance with a new one for the next client', async () => {
    const { path, upstreams } = setup();
    const killed = await killInstance(path, upstreams);

    const b = await client(path);
    expect(await names(b)).toEqual(['rec__ping', 'rec__weather_forecast']);
    const [replacement] = sharedInstances();
    expect(replacement).not.toBe(killed);
    expect(alive(replacement!)).toBe(true);
    // The replacement serves from the cached catalogue; its upstream may start only with this call.
    const answer = textOf(await b.client.callTool({ name: 'rec__ping', arguments: {} }));
    const fresh = upstreams().at(-1);
    expect(answer).toBe(`ping from ${fresh}`);
    expect(started).not.toContain(fresh);
  });

  it('replaces a killed instance whose pid now belongs to an unrelated process, as after a reboot', async () => {
    const { path, upstreams } = setup();
    await killInstance(path, upstreams);
    // The pid file and socket stay behind; the system hands the pid to a process that is no instance.
    const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
    const pidFile = join(dir, readdirSync(dir).find((f) => f.endsWith('.pid'))!);
    const stranger = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    try {
      writeFileSync(pidFile, `${stranger.pid}\n`);
      // Before: the client waited for the stranger to listen until its initialize timed out (60 s).
      const b = await client(path);
      expect(await names(b)).toEqual(['rec__ping', 'rec__weather_forecast']);
      const [replacement] = sharedInstances();
      expect(replacement).not.toBe(stranger.pid);
      expect(alive(replacement!)).toBe(true);
      expect(alive(stranger.pid!)).toBe(true); // left alone
    } finally {
      stranger.kill('SIGKILL');
    }
  });

  it('routes an upstream\'s sampling request to the client whose call caused it, not to the other', async () => {
    const path = writeConfig({ mcpServers: { local: { command: 'node', args: [fixture('sampler.mjs')], exposure: 'direct' } }, share: { idleExitMs: 300 } });
    const seen: Record<string, string[]> = { A: [], B: [] };
    const sampling = async (name: 'A' | 'B'): Promise<Client> => {
      const c = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } });
      c.setRequestHandler('sampling/createMessage', (request) => {
        const prompt = (request.params.messages[0]?.content as { text: string }).text;
        seen[name]!.push(prompt);
        return { role: 'assistant', model: name, content: { type: 'text', text: `${name} read ${prompt}` } };
      });
      await c.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', path, '--share'], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
      open.push({ client: c, pid: 0, stderr: [], close: () => c.close() });
      return c;
    };
    const a = await sampling('A');
    const b = await sampling('B');
    await b.listTools();
    expect(sharedInstances()).toHaveLength(1);
    const result = await a.callTool({ name: 'local__ask', arguments: { prompt: 'secret of A', kind: 'sampling', related: false } });
    expect(textOf(result)).toBe('answered: A read secret of A');
    expect(seen).toEqual({ A: ['secret of A'], B: [] });
  });

  it('serves the client from its own process when no instance can be reached, saying why', async () => {
    const { path, upstreams } = setup();
    const state = process.env.TOOLSHELF_STATE_DIR!;
    // A socket path over sun_path's 107 bytes (Node listened on it cut short: ENOENT, then EADDRINUSE),
    // and a state folder whose `shared` is a file (EEXIST): each left the client with no gateway.
    const long = join(state, 'l'.repeat(120));
    mkdirSync(long, { mode: 0o700 });
    const blocked = join(state, 'blocked');
    mkdirSync(blocked, { mode: 0o700 });
    writeFileSync(join(blocked, 'shared'), '');
    try {
      for (const [dir, why] of [
        [long, /the socket path .* is \d+ bytes, over the 107/],
        [blocked, /the shared instance cannot be started: EEXIST/],
      ] as const) {
        process.env.TOOLSHELF_STATE_DIR = dir;
        const c = await client(path);
        expect(await names(c)).toEqual(['rec__ping', 'rec__weather_forecast']);
        expect(textOf(await c.client.callTool({ name: 'rec__ping', arguments: {} }))).toBe(`ping from ${upstreams().at(-1)}`);
        expect(c.stderr.join('\n')).toMatch(why);
        expect(c.stderr.join('\n')).toContain('serving from this process instead');
        expect(descendants(c.pid)).toContain(upstreams().at(-1)); // its own upstream, not an instance's
        await c.close();
      }
    } finally {
      process.env.TOOLSHELF_STATE_DIR = state;
    }
    expect(existsSync(join(long, 'shared'))).toBe(false); // no instance tried a cut-short path
  });

  it('tells every client\'s stderr the instance\'s summary and why an upstream failed, never another client\'s lines (they were in the instance log alone)', async () => {
    const { path: base } = setup();
    const config = JSON.parse(readFileSync(base, 'utf8')) as { mcpServers: Record<string, unknown> };
    config.mcpServers.broken = { command: 'node', args: ['-e', 'console.error("no such folder: /nowhere"); process.exit(3)'] };
    writeFileSync(base, JSON.stringify(config));
    const shared = (c: Connected): string[] => c.stderr.filter((line) => line.startsWith('toolshelf (shared instance): '));
    const a = await client(base, 'client-a');
    expect(await waitFor(() => shared(a).some((line) => /upstream "broken" (failed|is \w+ \(last error).*no such folder: \/nowhere/.test(line)), 30_000)).toBe(true);
    expect(shared(a).some((line) => line.includes('upstreams:'))).toBe(true);
    const b = await client(base, 'client-b');
    expect(await waitFor(() => shared(b).some((line) => line.includes('no such folder')), 10_000)).toBe(true);
    expect(shared(b).some((line) => line.includes('upstreams:'))).toBe(true);
    // Nothing of a session goes there: a call of A's leaves B's stderr as it was.
    const before = b.stderr.length;
    await a.client.callTool({ name: 'rec__ping', arguments: {} });
    await new Promise((r) => setTimeout(r, 1500));
    expect(b.stderr.slice(before).filter((line) => line.includes('client-a') || line.includes('rec__ping'))).toEqual([]);
    // The status file goes with the instance.
    const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
    expect(readdirSync(dir).filter((f) => f.endsWith('.status'))).toHaveLength(1);
    await Promise.all(open.splice(0).map((c) => c.close()));
    expect(await waitFor(() => !sharedInstances().some(alive), 20_000)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.status'))).toEqual([]);
  });

  it('tells every relayed client each warning a gateway of its own prints, once (a dropped tool, an inputSchema missing)', async () => {
    const path = writeConfig({ mcpServers: { bad: { command: 'node', args: [fixture('malformed.mjs')] } }, share: { idleExitMs: 300 } });
    const own = await startStdio(path, ['--no-share']);
    await names(own);
    const warnings = own.stderr.filter((line) => line.startsWith('toolshelf: warn: '));
    await own.close();
    expect(warnings).toContain('toolshelf: warn: upstream "bad": dropped tool no_schema: "inputSchema" is not an object');
    const relayed = (c: Connected): string[] => c.stderr.filter((line) => line.startsWith('toolshelf (shared instance): warn: ')).map((line) => line.replace('toolshelf (shared instance): ', 'toolshelf: '));
    const a = await client(path, 'client-a');
    await names(a);
    expect(await waitFor(() => relayed(a).length >= warnings.length, 10_000)).toBe(true);
    const b = await client(path, 'client-b');
    await names(b);
    expect(await waitFor(() => relayed(b).length >= warnings.length, 10_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1500)); // a few more reads of the status file: nothing again
    expect(relayed(a).sort()).toEqual([...warnings].sort());
    expect(relayed(b).sort()).toEqual([...warnings].sort());
  });

  it('never tells another client what an upstream printed while serving a client\'s call (a crash quoting A\'s path reached B\'s stderr)', async () => {
    const dir = tempDir();
    const [restartGate, slowGate] = [join(dir, 'restart-gate'), join(dir, 'slow-gate')];
    const path = writeConfig(
      {
        mcpServers: {
          crashy: { command: 'node', args: [fixture('crashy.mjs')], env: { CRASHY_STATE: join(dir, 'starts'), CRASHY_RESTART_GATE: restartGate }, exposure: 'direct' },
          slow: { command: 'node', args: [fixture('slowInit.mjs')], env: { INIT_GATE_FILE: slowGate }, exposure: 'direct' },
        },
        share: { idleExitMs: 300 },
      },
      dir,
    );
    const wait = process.env.TOOLSHELF_STARTUP_WAIT_MS;
    process.env.TOOLSHELF_STARTUP_WAIT_MS = '300'; // served while "slow" starts: its start ends only at the gate
    try {
      const a = await client(path, 'client-a');
      // A's call makes the upstream print A's path and exit; its restart waits at the gate.
      await a.client.callTool({ name: 'crashy__crash', arguments: { path: '/home/alice/private/diary-7f3a.txt' } });
      const b = await client(path, 'client-b');
      writeFileSync(slowGate, ''); // every first start has ended: the instance tells its clients how the upstreams are
      expect(await waitFor(() => b.stderr.some((line) => line.includes('upstreams now')), 30_000)).toBe(true);
      expect(b.stderr.some((line) => /upstream "crashy" is \w+ \(last error: the server exited/.test(line))).toBe(true);
      for (const line of b.stderr) expect(line).not.toContain('diary-7f3a');
      expect(b.stderr.filter((line) => line.includes('(last error: )'))).toEqual([]); // no line for a start with no error yet
    } finally {
      writeFileSync(restartGate, '');
      if (wait === undefined) delete process.env.TOOLSHELF_STARTUP_WAIT_MS;
      else process.env.TOOLSHELF_STARTUP_WAIT_MS = wait;
    }
  });

  it('never quotes a credential an upstream echoes as it fails, in the status lines or a call answer', async () => {
    const { path: base } = setup();
    const config = JSON.parse(readFileSync(base, 'utf8')) as { mcpServers: Record<string, unknown> };
    // A key in its env, one it inherits, and one passed as an argument (node -e script -- --api-key …).
    const echo = 'console.error("Error: invalid API key " + process.env.SEARCH_API_KEY + " (inherited GH_TOKEN " + process.env.GH_TOKEN + ", argument " + process.argv.at(-1) + ")"); process.exit(1)';
    config.mcpServers.search = { command: 'node', args: ['-e', echo, '--', '--api-key', 'sk-arg-4e4e4e4e'], env: { SEARCH_API_KEY: 'sk-live-7f3a9c1d' }, inheritEnv: true, exposure: 'direct' };
    writeFileSync(base, JSON.stringify(config));
    const token = process.env.GH_TOKEN;
    process.env.GH_TOKEN = 'ghp_b5b5b5b5b5';
    try {
      const a = await client(base, 'client-a');
      expect(await waitFor(() => a.stderr.some((line) => line.includes('upstream "search"') && line.includes('invalid API key')), 30_000)).toBe(true);
      const answer = textOf(await a.client.callTool({ name: 'search__find', arguments: {} }));
      const log = readFileSync(join(process.env.TOOLSHELF_STATE_DIR!, 'shared', readdirSync(join(process.env.TOOLSHELF_STATE_DIR!, 'shared')).find((f) => f.endsWith('.log'))!), 'utf8');
      for (const text of [...a.stderr, answer, log]) {
        expect(text).not.toContain('sk-live-7f3a9c1d');
        expect(text).not.toContain('ghp_b5b5b5b5b5');
        expect(text).not.toContain('sk-arg-4e4e4e4e');
      }
      expect(a.stderr.join('\n')).toContain('invalid API key <redacted> (inherited GH_TOKEN <redacted>, argument <redacted>)');
    } finally {
      if (token === undefined) delete process.env.GH_TOKEN;
      else process.env.GH_TOKEN = token;
    }
  });

  it('an upstream\'s megabyte error with terminal escapes reaches no client raw: status lines and call answers are short printable lines', async () => {
    const { path: base } = setup();
    const config = JSON.parse(readFileSync(base, 'utf8')) as { mcpServers: Record<string, unknown> };
    // Refuses every request (the era probe, then initialize) with a 3 MB message that clears the screen and turns it red.
    const refuse = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => { const m = JSON.parse(l); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: '\\u001b[2J\\u001b[31mboom\\r' + 'x'.repeat(3e6) } }) + '\\n'); })`;
    config.mcpServers.evil = { command: 'node', args: ['-e', refuse], exposure: 'direct' };
    writeFileSync(base, JSON.stringify(config));
    const a = await client(base, 'client-a');
    expect(await waitFor(() => a.stderr.some((line) => line.includes('upstream "evil"')), 30_000)).toBe(true);
    const answer = textOf(await a.client.callTool({ name: 'evil__anything', arguments: {} }));
    expect(answer).toContain('boom');
    for (const text of [...a.stderr, answer]) {
      expect(text).not.toMatch(/[\u001b\r]/);
      expect(text.length).toBeLessThan(2000);
    }
  });

  it('tells relayed clients of a config reload, and a client joining later reads the upstreams as they are now', async () => {
    const { path } = setup();
    const shared = (c: Connected): string[] => c.stderr.filter((line) => line.startsWith('toolshelf (shared instance): '));
    const a = await client(path, 'client-a');
    await names(a);
    const config = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: { rec: { exposure: string } } };
    config.mcpServers.rec.exposure = 'deferred';
    writeFileSync(path, JSON.stringify(config));
    expect(await waitFor(() => shared(a).some((line) => line.includes(`config reloaded from ${path}`) && line.includes('settings changed: /mcpServers/rec/exposure')), 30_000)).toBe(true);
    // The instance is up by now: its status holds the current upstreams line and the last reload, not the start's history.
    expect(await waitFor(() => shared(a).some((line) => line.includes('upstreams now') || /upstreams: 1\/1 connected/.test(line)), 30_000)).toBe(true);
    const b = await client(path, 'client-b');
    await names(b);
    expect(await waitFor(() => shared(b).some((line) => line.includes('config reloaded')), 10_000)).toBe(true);
    expect(shared(b).filter((line) => /upstreams( now)?: /.test(line))).toHaveLength(1);
    expect(shared(b).some((line) => line.includes('starting'))).toBe(false);
  });

  it('keeps one gateway per client with --no-share', async () => {
    const { path, upstreams } = setup();
    const a = await startStdio(path, ['--no-share']);
    const b = await startStdio(path, ['--no-share']);
    open.push(a, b);
    await names(a);
    await names(b);
    expect(sharedInstances()).toEqual([]);
    expect(await waitFor(() => upstreams().length === 2, 20_000)).toBe(true);
  });
});
