/**
 * Test helpers: temp configs, the built CLI started over stdio or HTTP with a real SDK Client,
 * and process-tree inspection for orphan checks. Every process started here is ended by `close()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cliPath = join(repoRoot, 'dist', 'cli.js');
export const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'servers', name);

/** Absolute path of an npm MCP server's entry point from node_modules. */
export function serverEntry(pkg: 'filesystem' | 'memory' | 'everything' | 'sequential-thinking'): string {
  return join(repoRoot, 'node_modules', '@modelcontextprotocol', `server-${pkg}`, 'dist', 'index.js');
}

/** A fresh temp folder. */
export function tempDir(prefix = 'toolshelf-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `config` as servers.config.json in a new temp folder; returns its path. */
export function writeConfig(config: unknown, dir = tempDir()): string {
  const path = join(dir, 'servers.config.json');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/** A sandbox folder with one known file, and a config serving it plus everything (read_text_file deferred). */
export function sandboxConfig(extra: Record<string, unknown> = {}, servers: Record<string, unknown> = {}): { path: string; sandbox: string } {
  const dir = tempDir();
  const sandbox = join(dir, 'sandbox');
  mkdirSync(sandbox);
  writeFileSync(join(sandbox, 'hello.txt'), 'Hello from the sandbox!\n');
  const path = writeConfig(
    {
      mcpServers: {
        files: {
          command: 'node',
          args: [serverEntry('filesystem'), sandbox],
          tools: { list_directory: { exposure: 'direct' }, read_file: { exposure: 'hidden' }, 'move_*': { exposure: 'hidden' } },
        },
        everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
        ...servers,
      },
      ...extra,
    },
    dir,
  );
  return { path, sandbox };
}

/** A gateway child with a connected SDK Client. */
export interface Connected {
  readonly client: Client;
  readonly pid: number;
  readonly stderr: string[];
  close(): Promise<void>;
}

/**
 * Starts `dist/cli.js --config <path>` (or another install's `cli`) over stdio and connects a Client
 * named `clientName`. The gateway serves from its own process (tests set TOOLSHELF_SHARE=0) unless
 * `args` holds `--share`: tests of one gateway per client stay exactly that, and sharing is tested where asked.
 */
export async function startStdio(configPath: string, args: string[] = [], clientName = 'e2e-client', cli = cliPath): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, '--config', configPath, ...args],
    stderr: 'pipe',
    env: { ...process.env } as Record<string, string>,
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid as number, stderr, close: () => client.close() };
}

/** A gateway serving HTTP, started as a child; `connect` opens a new HTTP session. */
export interface HttpGateway {
  readonly url: string;
  readonly child: ChildProcess;
  readonly stderr: string[];
  connect(clientName?: string): Promise<Client>;
  stop(): Promise<number | null>;
}

/** Starts `dist/cli.js --http 127.0.0.1:0` and waits for the URL it prints on stderr. */
export async function startHttp(configPath: string, args: string[] = []): Promise<HttpGateway> {
  const child = spawn(process.execPath, [cliPath, '--config', configPath, '--http', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${stderr.join('\n')}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      const match = /serving Streamable HTTP at (\S+)/.exec(stderr.join('\n'));
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${stderr.join('\n')}`)));
  });
  const clients: Client[] = [];
  return {
    url,
    child,
    stderr,
    async connect(clientName = 'e2e-http-client') {
      const client = new Client({ name: clientName, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** PIDs of every live descendant of `pid` (from /proc), deepest last. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we read.
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** True while `pid` exists and is not a zombie. */
/** Pids of the shared instances of the running test: their pid files in its state folder (test/helpers/stateDir.setup.ts). */
export function sharedInstances(): number[] {
  const dir = join(process.env.TOOLSHELF_STATE_DIR!, 'shared');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pid'))
    .map((f) => Number(readFileSync(join(dir, f), 'utf8').trim()));
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `check()` is true or `ms` pass; returns the last value. */
export async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return check();
}

/** The first text content of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}
