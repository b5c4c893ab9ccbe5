/**
 * Pruning the state folder: catalogue, pin and shared-instance files unused for 30 days go, at most
 * once a day, and a running shared instance's files stay however old. Ages are set with utimes.
 */
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRUNE_STAMP, pruneStateFolder } from '../../src/lib/prune.js';
import { tempDir } from '../helpers/gateway.js';

const DAY = 86_400_000;
const now = Date.UTC(2026, 11, 1);

/** Writes `path` (and its folder) with mtime `daysAgo` days before `now`. */
function file(path: string, daysAgo: number): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '{}');
  const at = new Date(now - daysAgo * DAY);
  utimesSync(path, at, at);
  return path;
}

describe('pruneStateFolder', () => {
  it('removes catalogue, pin and stopped instances\' files unused for 30 days, and keeps the rest', () => {
    const state = tempDir();
    const shared = join(state, 'shared');
    const oldCatalog = file(join(state, 'catalog', 'upstream-old.json'), 31);
    const oldManifest = file(join(state, 'catalog', 'manifest-old.json'), 45);
    const freshCatalog = file(join(state, 'catalog', 'upstream-fresh.json'), 29);
    const oldPin = file(join(state, 'pins', 'abc.json'), 31);
    const oldNestedPin = file(join(state, 'pins', 'cfg', 'server.json'), 31);
    const freshPin = file(join(state, 'pins', 'def.json'), 1);
    const stopped = ['sock', 'pid', 'log', 'status'].map((ext) => file(join(shared, `aaaa.${ext}`), 40));
    const running = ['sock', 'pid', 'log'].map((ext) => file(join(shared, `bbbb.${ext}`), 40));
    const halfOld = [file(join(shared, 'cccc.log'), 40), file(join(shared, 'cccc.status'), 2)];
    const credentials = file(join(state, 'auth', 'token.json'), 90);

    const result = pruneStateFolder({ stateDir: state, sharedDirs: [shared], instanceRunning: (base) => base === join(shared, 'bbbb'), now });
    expect(result.skipped).toBe(false);
    const gone = [oldCatalog, oldManifest, oldPin, oldNestedPin, ...stopped];
    expect(result.skipped === false && [...result.removed].sort()).toEqual([...gone].sort());
    for (const path of gone) expect(existsSync(path)).toBe(false);
    for (const path of [freshCatalog, freshPin, ...running, ...halfOld, credentials]) expect(existsSync(path)).toBe(true);
  });

  it('prunes at most once a day (a stamp file)', () => {
    const state = tempDir();
    const options = { stateDir: state, sharedDirs: [], instanceRunning: () => false };
    expect(pruneStateFolder({ ...options, now }).skipped).toBe(false);
    expect(existsSync(join(state, PRUNE_STAMP))).toBe(true);
    const old = file(join(state, 'catalog', 'upstream-old.json'), 31);
    utimesSync(join(state, PRUNE_STAMP), new Date(now), new Date(now));
    expect(pruneStateFolder({ ...options, now: now + DAY / 2 }).skipped).toBe(true);
    expect(existsSync(old)).toBe(true);
    expect(pruneStateFolder({ ...options, now: now + DAY + 1 })).toEqual({ skipped: false, removed: [old] });
  });
});
