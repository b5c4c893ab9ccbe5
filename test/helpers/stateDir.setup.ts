/**
 * Every test gets a state folder of its own (TOOLSHELF_STATE_DIR, inherited by the gateways it
 * starts), so no test reads another's catalogue cache or joins another's shared instance, and none
 * touches the user's. One temp root per test file, removed after it. Gateways started
 * over stdio serve from their own process (TOOLSHELF_SHARE=0) unless a test passes `--share`, and
 * without the sentence encoder (TOOLSHELF_SEMANTIC=0: BM25 alone, no model loaded) unless a test of
 * semantic ranking removes it.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'toolshelf-state-'));
let count = 0;
const fresh = (): string => {
  const dir = join(root, String((count += 1)));
  mkdirSync(dir, { mode: 0o700 });
  return dir;
};
process.env.TOOLSHELF_STATE_DIR = fresh();
process.env.TOOLSHELF_SHARE = '0';
process.env.TOOLSHELF_SEMANTIC = '0';
beforeEach(() => {
  process.env.TOOLSHELF_STATE_DIR = fresh();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
