/**
 * The state folder and its files are used only when they are the user's alone: a folder made
 * beforehand by another user, or writable by others (mode 0777 under /tmp), is refused, not repaired;
 * one only others may read is narrowed to 0700. Files, logs and traces are not opened through a link.
 * Another user is uid 65534 (nobody): chown needs root, as CI and this machine run.
 */
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readVectors } from '../../src/discovery/semantic/vectorCache.js';
import { ensurePrivateDir, openPrivateAppend, ownershipProblem, privateDirProblem, readPrivateFile, UnsafeStateError, writePrivateFile } from '../../src/lib/stateDir.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'toolshelf-statedir-'));
  made.push(dir);
  return dir;
};
const modeOf = (path: string): number => statSync(path).mode & 0o777;
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

describe('ownershipProblem', () => {
  it('names what to fix: another owner, then write access for group or others', () => {
    expect(ownershipProblem('/s', { uid: 1000, mode: 0o40700 }, 1000, 'folder')).toBeUndefined();
    expect(ownershipProblem('/s', { uid: 1000, mode: 0o40755 }, 1000, 'folder')).toBeUndefined();
    expect(ownershipProblem('/s', { uid: 1001, mode: 0o40700 }, 1000, 'folder')).toMatch(/^the folder \/s belongs to another user \(uid 1001, not 1000\).*TOOLSHELF_STATE_DIR/);
    expect(ownershipProblem('/s', { uid: 1000, mode: 0o40777 }, 1000, 'folder')).toMatch(/^the folder \/s is writable by group or others \(mode 0777\).*chmod 700 \/s/);
    expect(ownershipProblem('/f', { uid: 1000, mode: 0o100620 }, 1000, 'file')).toMatch(/chmod 600 \/f/);
    expect(ownershipProblem('/f', { uid: 1001, mode: 0o100666 }, undefined, 'file')).toBeUndefined();
  });
});

describe('ensurePrivateDir', () => {
  it('creates the folder 0700', () => {
    const dir = join(temp(), 'a', 'shared');
    ensurePrivateDir(dir);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('narrows a folder of the user that others may only read to 0700', () => {
    const dir = join(temp(), 'shared');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writePrivateFile(join(dir, 'x.json'), '{}');
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'x.json'))).toBe(0o600);
  });

  it('refuses, and leaves as it is, a folder others may write to: mode 0777', () => {
    const dir = join(temp(), 'state');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect(() => ensurePrivateDir(join(dir, 'catalog'), dir)).toThrow(UnsafeStateError);
    expect(existsSync(join(dir, 'catalog'))).toBe(false); // nothing is made in a refused folder
    expect(() => ensurePrivateDir(dir)).toThrow(/writable by group or others \(mode 0777\)/);
    expect(modeOf(dir)).toBe(0o777);
    expect(privateDirProblem(join(dir, 'catalog'), dir)).toMatch(/mode 0777/);
  });

  it('fails as mkdir does where a file stands in for the folder, changing nothing', () => {
    const root = temp();
    writeFileSync(join(root, 'shared'), '');
    chmodSync(join(root, 'shared'), 0o644);
    expect(() => ensurePrivateDir(join(root, 'shared'), root)).toThrow(/EEXIST/);
    expect(modeOf(join(root, 'shared'))).toBe(0o644);
  });

  it.skipIf(!asRoot)('refuses a folder made beforehand by another user, even 0700, and a state folder above it of theirs', () => {
    const dir = join(temp(), 'state');
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    chownSync(dir, NOBODY, NOBODY);
    expect(() => ensurePrivateDir(join(dir, 'shared'), dir)).toThrow(/belongs to another user \(uid 65534/);
    chmodSync(dir, 0o700);
    expect(() => ensurePrivateDir(dir)).toThrow(/belongs to another user/);
    expect(statSync(dir).uid).toBe(NOBODY);
    expect(modeOf(dir)).toBe(0o700);
  });
});

describe('state files', () => {
  it('reads a file of the user; absent is undefined; refuses a link and another user’s file', () => {
    const dir = temp();
    writePrivateFile(join(dir, 'a.json'), '{"a":1}');
    expect(readPrivateFile(join(dir, 'a.json'))).toBe('{"a":1}');
    expect(readPrivateFile(join(dir, 'none.json'))).toBeUndefined();
    symlinkSync(join(dir, 'a.json'), join(dir, 'link.json'));
    expect(() => readPrivateFile(join(dir, 'link.json'))).toThrow(/is a symbolic link/);
    writeFileSync(join(dir, 'open.json'), '{}', { mode: 0o666 });
    chmodSync(join(dir, 'open.json'), 0o666);
    expect(() => readPrivateFile(join(dir, 'open.json'))).toThrow(/writable by group or others/);
    if (asRoot) {
      chownSync(join(dir, 'a.json'), NOBODY, NOBODY);
      expect(() => readPrivateFile(join(dir, 'a.json'))).toThrow(/belongs to another user/);
    }
  });

  it('refuses a FIFO or a folder where a state file belongs, at once (a FIFO used to block the read forever)', () => {
    const dir = temp();
    execFileSync('mkfifo', ['-m', '600', join(dir, 'vectors.json')]);
    expect(() => readPrivateFile(join(dir, 'vectors.json'))).toThrow(/is not a regular file/);
    expect(readVectors(join(dir, 'vectors.json')).size).toBe(0);
    mkdirSync(join(dir, 'folder.json'), { mode: 0o700 });
    expect(() => readPrivateFile(join(dir, 'folder.json'))).toThrow(/is not a regular file|EISDIR/);
  });

  it('appends to a log without following a link at its path, leaving the link’s target alone', () => {
    const dir = temp();
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'keep\n');
    symlinkSync(target, join(dir, 'x.log'));
    expect(() => openPrivateAppend(join(dir, 'x.log'))).toThrow(/x\.log is a symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
    const fd = openPrivateAppend(join(dir, 'y.log'));
    closeSync(fd);
    expect(modeOf(join(dir, 'y.log'))).toBe(0o600);
  });
});
