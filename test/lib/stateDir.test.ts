/**
 * The state folder is private even when it existed before with wider access (breaker: a shared
 * folder pre-made 0777 kept its mode, and the shared instance's socket and log were put in it).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, writePrivateFile } from '../../src/lib/stateDir.js';

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

describe('ensurePrivateDir', () => {
  it('creates the folder 0700', () => {
    const dir = join(temp(), 'a', 'shared');
    ensurePrivateDir(dir);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('narrows a folder that already exists with access for others to 0700', () => {
    const dir = join(temp(), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    ensurePrivateDir(dir);
    expect(modeOf(dir)).toBe(0o700);
    chmodSync(dir, 0o755);
    writePrivateFile(join(dir, 'x.json'), '{}');
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'x.json'))).toBe(0o600);
  });
});
