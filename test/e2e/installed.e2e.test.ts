/**
 * toolshelf as users get it from npm: the packed tarball installed in an empty folder (offline),
 * run without --config from a folder that has no config (the bundled one, whose four servers are
 * found by their bins in the installing project's node_modules/.bin), and run by `npx` with an
 * `npx`-style upstream, where npm's own variables (npm_config_package, …) must not reach upstreams.
 * The tarball is packed and installed once for the file. Source: docs/configuration.md.
 *
 * Offline install: `npm ci` fills the cache with tarballs but not with registry metadata, so
 * `npm install --offline <tgz>` fails with ENOTCACHED. The install folder gets a lockfile instead,
 * made of the repo's own lockfile entries for toolshelf's runtime dependencies (the layout npm would
 * choose), and `npm ci --offline` fetches each tarball from the cache by its integrity.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, descendants, repoRoot, tempDir, textOf, waitFor } from '../helpers/gateway.js';

interface LockEntry {
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly [key: string]: unknown;
}

let project = '';
let tarball = '';
const started: StdioClientTransport[] = [];

/** Packs the repo (dist must be built) into `dir`; returns the tarball's path. */
function pack(dir: string): string {
  const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8' }).trim().split('\n').pop() as string;
  return join(dir, name);
}

/** Installs `tgz` into a new project folder from the npm cache only; returns the folder. */
function installOffline(tgz: string): string {
  const dir = join(tempDir('toolshelf-installed-'), 'project');
  mkdirSync(dir);
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const root = lock.packages[''] as { version: string; dependencies: Record<string, string>; bin: unknown; engines: unknown };
  const spec = `file:${tgz}`;
  const packages: Record<string, unknown> = {
    '': { name: 'project', dependencies: { toolshelf: spec } },
    'node_modules/toolshelf': { version: root.version, resolved: spec, license: 'MIT', dependencies: root.dependencies, bin: root.bin, engines: root.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev && !entry.link) packages[path] = entry;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'project', private: true, dependencies: { toolshelf: spec } }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'project', lockfileVersion: 3, requires: true, packages }));
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, stdio: 'ignore' });
  return dir;
}

/** Connects an SDK Client to `command args` run in `cwd` with `env`; collects its stderr. */
async function connect(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: 'pipe' });
  started.push(transport);
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'installed-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

/** The process environment without npm's variables of this test run itself. */
function plainEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^npm_/i.test(k) && k !== 'INIT_CWD')) as Record<string, string>;
}

beforeAll(() => {
  tarball = pack(tempDir('toolshelf-pack-'));
  project = installOffline(tarball);
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map((t) => t.close().catch(() => undefined)));
});

describe('the packed tarball, installed', () => {
  it('ships the MIT LICENSE package.json names, and no source maps (they pointed to src/, which is not shipped)', () => {
    const installed = join(project, 'node_modules', 'toolshelf');
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license).toBe('MIT');
    const license = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 toolshelf contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
    const dist = readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' });
    expect(dist).toContain('cli.js');
    expect(dist.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(dist.filter((f) => f.endsWith('.js') && readFileSync(join(installed, 'dist', f), 'utf8').includes('sourceMappingURL'))).toEqual([]);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    // The sandbox holds what the model is meant to see: its .gitignore became a .npmignore on install, listed first.
    expect(readdirSync(join(installed, 'sandbox')).sort()).toEqual(['notes', 'welcome.txt']);
  });

  it('runs the bundled config from a folder with no servers.config.json: all four servers connect by their bins', async () => {
    const empty = tempDir('toolshelf-empty-');
    const bin = join(project, 'node_modules', '.bin', 'toolshelf');
    const { client, stderr } = await connect(bin, [], empty, plainEnv());
    const { tools } = await client.listTools();
    const manifest = tools.find((t) => t.name === 'tool_search')?.description ?? '';
    for (const name of ['memory__read_graph', 'everything__echo', 'thinking__sequentialthinking', 'files__write_file']) expect(manifest).toContain(name);
    expect(stderr()).toContain(`config: ${realpathSync(join(project, 'node_modules', 'toolshelf', 'servers.config.json'))} (no --config given and no ./servers.config.json here: the bundled one)`);
    expect(stderr()).toContain('upstreams: 4/4 connected');
    // The filesystem server's sandbox ships with the package.
    const sandbox = join(project, 'node_modules', 'toolshelf', 'sandbox');
    const listing = await client.callTool({ name: 'files__list_directory', arguments: { path: sandbox } });
    expect(listing.isError).toBeFalsy();
    expect(textOf(listing)).toContain('welcome.txt');
    await client.close();
  });

  it('under npx (npm_config_package set), an `npx -y` upstream still starts: npm variables never reach upstreams', async () => {
    const config = join(project, 'npx.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { viaNpx: { command: 'npx', args: ['--offline', '-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: join(project, 'memory.jsonl') } } },
      }),
    );
    // `npx --package toolshelf toolshelf` sets npm_config_package=toolshelf, npm_command=exec, … for
    // toolshelf; passed on, the upstream's npx would look for a bin named
    // "@modelcontextprotocol/server-memory" in toolshelf and fail with "sh: 1: …: not found".
    const { client, transport, stderr } = await connect('npx', ['--offline', '--package', 'toolshelf', 'toolshelf', '--config', config], project, plainEnv());
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'tool_search')?.description, stderr()).toContain('viaNpx__read_graph');
    const graph = await client.callTool({ name: 'viaNpx__read_graph', arguments: {} });
    expect(graph.isError, textOf(graph)).toBeFalsy();
    const tree = descendants(transport.pid as number);
    await client.close();
    expect(await waitFor(() => tree.every((p) => !alive(p)), 15_000)).toBe(true);
  });
});
