/**
 * Helpers for the upstream and hostile-upstream e2e tests: fixture processes found by script name,
 * orphan checks, an HTTP fixture started as a child of the test, and the gateway started with a
 * lowered start timeout. Every process started here is ended by the caller's `close()`/`kill()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { WATCHDOG_SCRIPT } from '../../src/upstream/watchdog.js';
import { alive, descendants, startStdio, waitFor, type Connected } from '../helpers/gateway.js';

/** Command line of `pid` with arguments joined by spaces; empty once it is gone. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Live descendants of the gateway whose command line mentions `script` (e.g. `crashy.mjs`). */
export function upstreamPids(gateway: Connected, script: string): number[] {
  return descendants(gateway.pid).filter((pid) => alive(pid) && commandLine(pid).includes(script));
}

/** True for the gateway's process watchdog (`/bin/sh -c <WATCHDOG_SCRIPT>`), which is no upstream. */
function isWatchdog(pid: number): boolean {
  return commandLine(pid).includes(WATCHDOG_SCRIPT.trim().split('\n')[0] as string);
}

/** Waits until the gateway has exactly `count` live descendants besides its watchdog; fails naming them otherwise. */
export async function expectChildren(gateway: Connected, count: number, ms = 5000): Promise<void> {
  const live = (): number[] => descendants(gateway.pid).filter((pid) => alive(pid) && !isWatchdog(pid));
  const settled = await waitFor(() => live().length === count, ms);
  expect(settled, `gateway children: ${live().map(commandLine).join('; ')}`).toBe(true);
}

/** Closes the gateway and checks that it and every process it started are gone (docs/robustness.md). */
export async function closeAndExpectNoOrphans(gateway: Connected): Promise<void> {
  const pids = [gateway.pid, ...descendants(gateway.pid)];
  await gateway.close();
  const gone = await waitFor(() => pids.every((pid) => !alive(pid)), 8000);
  expect(gone, `still running: ${pids.filter(alive).map(commandLine).join('; ')}`).toBe(true);
}

/**
 * Starts the gateway over stdio with `TOOLSHELF_START_TIMEOUT_MS` set, for upstreams that never start,
 * and a start-up wait longer than it, so the gateway serves (and prints its summary) only once each
 * upstream is up or given up, however slow a loaded machine makes the start.
 */
export async function startWithStartTimeout(configPath: string, startTimeoutMs: number, args: string[] = []): Promise<Connected> {
  const previous = { start: process.env.TOOLSHELF_START_TIMEOUT_MS, wait: process.env.TOOLSHELF_STARTUP_WAIT_MS };
  process.env.TOOLSHELF_START_TIMEOUT_MS = String(startTimeoutMs);
  process.env.TOOLSHELF_STARTUP_WAIT_MS = String(startTimeoutMs + 5000);
  try {
    return await startStdio(configPath, args);
  } finally {
    restoreEnv('TOOLSHELF_START_TIMEOUT_MS', previous.start);
    restoreEnv('TOOLSHELF_STARTUP_WAIT_MS', previous.wait);
  }
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Starts a fixture script (with `args`) that prints `listening <port>`; resolves with the child and its MCP URL. */
export async function startHttpFixture(script: string, args: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${output}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`fixture exited ${code}: ${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

/** Structured content of a tool result. */
export function structuredOf<T>(result: unknown): T {
  return (result as { structuredContent: T }).structuredContent;
}
