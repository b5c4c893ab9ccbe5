/**
 * The credential store on disk: 0600 files in a 0700 folder, atomic writes, no lost update when
 * several writers share the folder, and stale-lock recovery. Source: docs/sign-in.md.
 */
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/auth/lock.js';
import { CredentialStore } from '../../src/auth/store.js';
import { tempDir } from '../helpers/gateway.js';

const url = 'https://x/mcp';

describe('CredentialStore', () => {
  it('writes 0600 files in a 0700 folder and leaves no temp file', async () => {
    const store = new CredentialStore(tempDir('toolshelf-store-'));
    await store.update('s', url, (r) => void (r.current = 'i'));
    const folder = join(store.dir, 'credentials');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(readdirSync(folder)).toHaveLength(1);
    expect(statSync(store.fileFor('s', url)).mode & 0o777).toBe(0o600);
    expect(store.read('s', url).current).toBe('i');
    expect(store.read('s', 'https://other/mcp').current).toBeUndefined();
    expect(await store.remove('s', url)).toBe(true);
    expect(await store.remove('s', url)).toBe(false);
  });

  it('refuses credentials in a state folder others may write to, saying what to fix, and reads none from a file they could have written', async () => {
    const store = new CredentialStore(tempDir('toolshelf-store-'));
    await store.update('s', url, (r) => void (r.current = 'i'));
    chmodSync(store.fileFor('s', url), 0o666);
    expect(() => store.read('s', url)).toThrow(/writable by group or others \(mode 0666\).*chmod 600/);
    chmodSync(store.dir, 0o777);
    await expect(store.update('s', url, (r) => void (r.current = 'j'))).rejects.toThrow(/the folder .* is writable by group or others \(mode 0777\)/);
  });

  it('loses no update when many writers in several processes share the folder', async () => {
    const dir = tempDir('toolshelf-store-');
    const script = `
      import { CredentialStore } from ${JSON.stringify(new URL('../../dist/auth/store.js', import.meta.url).href)};
      const store = new CredentialStore(${JSON.stringify(dir)});
      const me = process.argv[1];
      for (let i = 0; i < 10; i += 1) await store.update('s', ${JSON.stringify(url)}, (r) => { r.issuers[me + '-' + i] = {}; });
    `;
    const runs = ['a', 'b', 'c'].map(
      (name) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, name], { stdio: 'inherit' });
          child.once('exit', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0]);
    expect(Object.keys(new CredentialStore(dir).read('s', url).issuers)).toHaveLength(30);
  });

  it('takes over a lock whose owner is gone', async () => {
    const dir = tempDir('toolshelf-lock-');
    const file = join(dir, 'f');
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, at: Date.now() }));
    expect(await withFileLock(file, async () => 'ran', 2000)).toBe('ran');
  });

  it('gives up on a live lock after the wait, with a clear message', async () => {
    const dir = tempDir('toolshelf-lock-');
    const file = join(dir, 'f');
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, at: Date.now() }));
    await expect(withFileLock(file, async () => 'ran', 100)).rejects.toThrow(/stayed busy/);
  });
});
