/**
 * The shared instance's status file (share/status.ts): lines written by one instance are read back
 * by its pid only, in order, at most MAX_STATUS_LINES; a follower prints each line once.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { followStatus, MAX_STATUS_LINE_CHARS, MAX_STATUS_LINES, MAX_WARNING_LINES, readStatus, relayWarnings, statusWriter } from '../../src/share/status.js';
import { createLogger } from '../../src/trace/log.js';
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
  expect(await waitFor(() => printed.length === 2, 30_000)).toBe(true);
  stop();
  status.add('third');
  await new Promise((r) => setTimeout(r, 2500));
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

it('an upstream error of megabytes with ANSI escapes and a carriage return is one clipped, printable line (it was dropped whole, or printed raw)', () => {
  const path = join(tempDir(), 'h.status');
  const status = statusWriter(path);
  status.add('upstream "evil" failed: \u001b[2J\u001b[31mgot\rroot\u0007 \u2028' + 'x'.repeat(5_000_000));
  status.add('upstream "cr" failed: one\r\ntwo');
  const [huge, cr] = readStatus(path, process.pid);
  expect(huge?.text.startsWith('upstream "evil" failed: got root  xxx')).toBe(true);
  expect(huge?.text).toHaveLength(MAX_STATUS_LINE_CHARS);
  expect(huge?.text.endsWith('x…')).toBe(true);
  expect(cr?.text).toBe('upstream "cr" failed: one two');
  expect(statSync(path).size).toBeLessThan(4 * MAX_STATUS_LINE_CHARS);
});

it('a file written by anything else is read as printable lines, at most MAX_STATUS_LINES, the first 256 KB only', () => {
  const path = join(tempDir(), 'g.status');
  writeFileSync(path, `${process.pid}\n1 \u001b]0;title\u0007\n${Array.from({ length: 50_000 }, (_, i) => `${i + 2} ${'y'.repeat(100)}`).join('\n')}\n`);
  const lines = readStatus(path, process.pid);
  expect(lines).toHaveLength(MAX_STATUS_LINES);
  expect(lines.every((l) => /^y+$/.test(l.text))).toBe(true);
  expect(lines.at(-1)!.sequence).toBeLessThan(50_000); // read no further than the cap
  writeFileSync(path, `${process.pid}\n1 \u001b]0;title\u0007\n`);
  expect(readStatus(path, process.pid)).toEqual([{ sequence: 1, text: '' }]);
});

it('a FIFO or a link in the status file\'s place reads as nothing, at once (a FIFO blocked the relay and its client)', () => {
  const dir = tempDir();
  const fifo = join(dir, 'f.status');
  execFileSync('mkfifo', [fifo]);
  expect(readStatus(fifo, process.pid)).toEqual([]);
  const target = join(dir, 'elsewhere');
  writeFileSync(target, `${process.pid}\n1 through a link\n`);
  const link = join(dir, 'l.status');
  symlinkSync(target, link);
  expect(readStatus(link, process.pid)).toEqual([]);
  // The writer replaces a link at its temporary path instead of writing through it.
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'keep me');
  const path = join(dir, 'w.status');
  symlinkSync(victim, `${path}.tmp`);
  statusWriter(path).add('hello');
  expect(readFileSync(victim, 'utf8')).toBe('keep me');
  expect(readStatus(path, process.pid)).toEqual([{ sequence: 1, text: 'hello' }]);
});

it('a line under a topic replaces that topic\'s earlier lines: a later reader sees the state as it is, a reader meanwhile sees each change', () => {
  const path = join(tempDir(), 't.status');
  const status = statusWriter(path);
  status.add('upstreams: 0/2 connected (a: starting, b: starting)', 'upstreams');
  status.add('tools: 3 direct', 'summary');
  status.set('failures', ['upstream "b" is starting (last error: boom)']);
  const seen: string[] = [];
  const stop = followStatus(path, () => process.pid, (line) => seen.push(line));
  status.add('upstreams now: 2/2 connected (a: 1 tools, b: 2 tools)', 'upstreams');
  status.set('failures', []);
  expect(readStatus(path, process.pid).map((line) => line.text)).toEqual(['tools: 3 direct', 'upstreams now: 2/2 connected (a: 1 tools, b: 2 tools)']);
  stop();
  expect(seen).toEqual(['upstreams: 0/2 connected (a: starting, b: starting)', 'tools: 3 direct', 'upstream "b" is starting (last error: boom)']);
});

it('relays each warning and error once, keeps a disconnect\'s quote and a failed start in the log, and never lets warnings push out the summary', async () => {
  const path = join(tempDir(), 'w.status');
  const status = statusWriter(path);
  const logged: string[] = [];
  const logger = relayWarnings(createLogger('info', (line) => logged.push(line)), status);
  status.add('upstreams: 1/1 connected', 'upstreams');
  logger.warn('upstream "bad": dropped tool x: "inputSchema" is not an object');
  logger.warn('upstream "bad": dropped tool x: "inputSchema" is not an object');
  logger.error('manifest: something');
  logger.warn('upstream "crashy" disconnected; the server exited: /home/a/diary.txt');
  logger.error('upstream "gone" failed to start: command "x" was not found (ENOENT)');
  logger.info('an info line');
  await new Promise((resolve) => setImmediate(resolve));
  expect(readStatus(path, process.pid).map((line) => line.text)).toEqual([
    'upstreams: 1/1 connected',
    'warn: upstream "bad": dropped tool x: "inputSchema" is not an object',
    'error: manifest: something',
  ]);
  expect(logged).toHaveLength(6); // the log has every line
  for (let i = 0; i < MAX_STATUS_LINES * 2; i += 1) logger.warn(`warning ${i}`);
  await new Promise((resolve) => setImmediate(resolve));
  const kept = readStatus(path, process.pid).map((line) => line.text);
  expect(kept[0]).toBe('upstreams: 1/1 connected');
  expect(kept).toHaveLength(1 + MAX_WARNING_LINES);
  expect(kept.at(-1)).toBe(`warn: warning ${MAX_STATUS_LINES * 2 - 1}`);
});
