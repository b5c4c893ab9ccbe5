/**
 * The shared instance's status file (share/status.ts): lines written by one instance are read back
 * by its pid only, in order, at most MAX_STATUS_LINES; a follower prints each line once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { followStatus, MAX_STATUS_LINES, readStatus, statusWriter } from '../../src/share/status.js';
import { tempDir, waitFor } from '../helpers/gateway.js';

it('reads back what this process wrote, by its pid only, keeping the newest MAX_STATUS_LINES lines', () => {
  const path = join(tempDir(), 'x.status');
  const status = statusWriter(path);
  expect(readStatus(path, process.pid)).toEqual([]);
  status.add('upstreams: 1/2 connected');
  status.add('two\nlines');
  expect(readStatus(path, process.pid)).toEqual([
    { sequence: 1, text: 'upstreams: 1/2 connected' },
    { sequence: 2, text: 'two lines' },
  ]);
  expect(readStatus(path, process.pid + 1)).toEqual([]);
  expect(readStatus(join(tempDir(), 'none.status'), process.pid)).toEqual([]);
  for (let i = 0; i < MAX_STATUS_LINES + 5; i += 1) status.add(`line ${i}`);
  const kept = readStatus(path, process.pid);
  expect(kept).toHaveLength(MAX_STATUS_LINES);
  expect(kept.at(-1)?.text).toBe(`line ${MAX_STATUS_LINES + 4}`);
});

it('a follower prints each line once, the ones there when it starts and the ones added later', async () => {
  const path = join(tempDir(), 'y.status');
  const status = statusWriter(path);
  status.add('first');
  const printed: string[] = [];
  const stop = followStatus(path, () => process.pid, (line) => printed.push(line));
  expect(printed).toEqual(['first']);
  status.add('second');
  expect(await waitFor(() => printed.length === 2, 10_000)).toBe(true);
  stop();
  status.add('third');
  await new Promise((r) => setTimeout(r, 1200));
  expect(printed).toEqual(['first', 'second']);
});

it('a file of another instance, or a damaged one, prints nothing', () => {
  const path = join(tempDir(), 'z.status');
  writeFileSync(path, `${process.pid + 1}\n1 not mine\n`);
  const printed: string[] = [];
  followStatus(path, () => process.pid, (line) => printed.push(line))();
  writeFileSync(path, 'garbage');
  followStatus(path, () => process.pid, (line) => printed.push(line))();
  expect(printed).toEqual([]);
});
