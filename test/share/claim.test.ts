/**
 * Claiming a shared instance's pid file (share/claim.ts), on real files and processes: a claim is
 * exclusive, a live instance of the socket keeps it, a stale one (its process gone, or its pid now an
 * unrelated process's) is taken over, and setting a stale file aside never removes a rival's fresh claim.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { claimInstance, instanceOwner, setAsideStale } from '../../src/share/claim.js';
import { instancePathsOf } from '../../src/share/paths.js';
import { tempDir, waitFor } from '../helpers/gateway.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function paths() {
  const dir = join(tempDir(), 'shared');
  mkdirSync(dir, { mode: 0o700 });
  return instancePathsOf(join(dir, 'abc.sock'));
}

/** A live process whose command line holds `arg`, as an instance's holds its socket path. */
async function liveProcess(arg: string): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', arg], { stdio: 'ignore' });
  children.push(child);
  await waitFor(() => existsSync(`/proc/${child.pid}/cmdline`) && readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes(arg));
  return child.pid!;
}

/** The pid of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid;
}

it('claims a free socket: the pid file holds this process', () => {
  const p = paths();
  expect(claimInstance(p)).toBe(true);
  expect(readFileSync(p.pidFile, 'utf8')).toBe(`${process.pid}\n`);
});

it('leaves a socket whose live instance holds the pid file', async () => {
  const p = paths();
  const owner = await liveProcess(p.socket);
  writeFileSync(p.pidFile, `${owner}\n`, { mode: 0o600 });
  expect(instanceOwner(p)).toBe(owner);
  expect(claimInstance(p)).toBe(false);
  expect(readFileSync(p.pidFile, 'utf8')).toBe(`${owner}\n`);
});

it('takes over a pid file whose process is gone, or whose pid now belongs to a process that is no instance', async () => {
  for (const stale of [deadPid(), await liveProcess('not-an-instance')]) {
    const p = paths();
    writeFileSync(p.pidFile, `${stale}\n`, { mode: 0o600 });
    writeFileSync(p.socket, ''); // the killed instance's socket, left behind
    expect(claimInstance(p)).toBe(true);
    expect(readFileSync(p.pidFile, 'utf8')).toBe(`${process.pid}\n`);
    expect(existsSync(p.socket)).toBe(false);
  }
});

it('setting a stale pid file aside puts back a rival claim written in its place since it was read', async () => {
  const p = paths();
  const stale = deadPid();
  // Read as stale, then a rival instance took it over before the rename: its fresh claim stays.
  const rival = await liveProcess(p.socket);
  writeFileSync(p.pidFile, `${rival}\n`, { mode: 0o600 });
  expect(setAsideStale(p, stale)).toBe(false);
  expect(readFileSync(p.pidFile, 'utf8')).toBe(`${rival}\n`);
  // The stale file itself goes, and nothing is left beside it.
  writeFileSync(p.pidFile, `${stale}\n`, { mode: 0o600 });
  expect(setAsideStale(p, stale)).toBe(true);
  expect(existsSync(p.pidFile)).toBe(false);
  expect(setAsideStale(p, stale)).toBe(true); // already gone: the create is tried again
});
