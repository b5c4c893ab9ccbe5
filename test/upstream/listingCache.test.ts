/**
 * The catalogue cache's files: keyed by what decides the listing, written
 * atomically with mode 0600 in a 0700 folder, and a damaged file is a miss.
 */
import { chmodSync, chownSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ListingCache } from '../../src/upstream/listingCache.js';
import { createLogger } from '../../src/trace/log.js';
import { tempDir } from '../helpers/gateway.js';

const logger = createLogger('error');
const entry = { command: 'node', args: ['server.js'], env: { A: '1' } };
const tools = [{ name: 'echo', inputSchema: { type: 'object' } }];

/** A logger that keeps its lines. */
function keeping(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger('warn', (line) => void lines.push(line)), lines };
}

describe('ListingCache', () => {
  it('is not used, with one warning, when the state folder is writable by others (made beforehand, mode 0777)', () => {
    const state = tempDir();
    new ListingCache(state, '/base', logger).save('s', entry, { tools });
    chmodSync(state, 0o777);
    const { logger: warned, lines } = keeping();
    const cache = new ListingCache(state, '/base', warned);
    expect(cache.load('s', entry)).toBeUndefined();
    expect(cache.load('s', entry)).toBeUndefined();
    cache.save('s', entry, { tools });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^toolshelf: warn: catalogue cache not used: the folder .* is writable by group or others \(mode 0777\).*chmod 700/);
    expect(statSync(state).mode & 0o777).toBe(0o777);
  });

  it.skipIf(process.getuid?.() !== 0)('is not used when its catalogue folder or a file in it belongs to another user (uid 65534)', () => {
    const state = tempDir();
    const first = new ListingCache(state, '/base', logger);
    first.save('s', entry, { tools });
    chownSync(first.pathFor('s', entry), 65534, 65534);
    const { logger: warned, lines } = keeping();
    expect(new ListingCache(state, '/base', warned).load('s', entry)).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/catalogue cache: the file .* belongs to another user \(uid 65534.*; listing the upstream afresh\n/)]);
    chownSync(first.dir, 65534, 65534);
    const { logger: again, lines: more } = keeping();
    expect(new ListingCache(state, '/base', again).load('s', entry)).toBeUndefined();
    expect(more).toEqual([expect.stringMatching(/catalogue cache not used: the folder .*catalog belongs to another user/)]);
  });

  it('round-trips a listing in a private file', () => {
    const state = tempDir();
    const cache = new ListingCache(state, '/base', logger);
    expect(cache.load('s', entry)).toBeUndefined();
    cache.save('s', entry, { tools, instructions: 'Use echo.', capabilities: { tools: {} } });
    expect(cache.load('s', entry)).toMatchObject({ tools, instructions: 'Use echo.', capabilities: { tools: {} } });
    expect(cache.load('renamed', entry)).toBeUndefined(); // another entry with the same launch spec
    expect(statSync(cache.dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(cache.dir);
    expect(files).toHaveLength(1); // no temp file left
    expect(statSync(cache.pathFor('s', entry)).mode & 0o777).toBe(0o600);
  });

  it('gives an entry a new file when what it connects to changes, not when catalogue keys do', () => {
    const cache = new ListingCache(tempDir(), '/base', logger);
    const path = cache.pathFor('s', entry);
    expect(cache.pathFor('s', { ...entry, exposure: 'direct', tools: { echo: { exposure: 'hidden' } }, timeoutMs: 5 })).toBe(path);
    expect(cache.pathFor('s', { env: { A: '1' }, args: ['server.js'], command: 'node' })).toBe(path); // key order
    expect(cache.pathFor('s', { ...entry, args: ['server.js', '--flag'] })).not.toBe(path);
    expect(cache.pathFor('s', { ...entry, env: { A: '2' } })).not.toBe(path);
    expect(new ListingCache(tempDir(), '/elsewhere', logger).pathFor('s', entry)).not.toBe(path);
  });

  it('treats a damaged or foreign file as a miss', () => {
    const cache = new ListingCache(tempDir(), '/base', logger);
    cache.save('s', entry, { tools });
    writeFileSync(cache.pathFor('s', entry), '{"format":1,"tools":');
    expect(cache.load('s', entry)).toBeUndefined();
    writeFileSync(cache.pathFor('s', entry), JSON.stringify({ format: 99, tools }));
    expect(cache.load('s', entry)).toBeUndefined();
  });

  it('refreshes the mtime of a file it loads, so pruning keeps what is in use', () => {
    const cache = new ListingCache(tempDir(), '/base', logger);
    cache.save('s', entry, { tools });
    const old = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(cache.pathFor('s', entry), old, old);
    expect(cache.load('s', entry)).toBeDefined();
    expect(statSync(cache.pathFor('s', entry)).mtimeMs).toBeGreaterThan(old.getTime() + 39 * 86_400_000);
  });
});
