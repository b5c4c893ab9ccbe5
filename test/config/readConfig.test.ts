/**
 * Only a regular config file of sane size is read (`--config /dev/zero` grew past 500 MB
 * and never started; a FIFO blocked the start, and a config swapped for either blocked a reload).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { readConfigText } from '../../src/config/read.js';

const dir = mkdtempSync(join(tmpdir(), 'toolshelf-readconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readConfigText / loadConfig', () => {
  it('refuses /dev/zero, a FIFO and a directory at path / without reading them', () => {
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    for (const path of ['/dev/zero', fifo]) {
      const loaded = loadConfig(path, {});
      expect(loaded.ok).toBe(false);
      if (!loaded.ok) expect(loaded.error).toEqual([{ path: '/', message: expect.stringMatching(/cannot read .*: it is not a regular file$/) }]);
    }
    const folder = loadConfig(dir, {});
    expect(!folder.ok && folder.error[0]?.message).toMatch(/it is a directory$/);
  });

  it('reads a regular file', () => {
    const file = join(dir, 'servers.config.json');
    writeFileSync(file, '{"mcpServers":{}}');
    expect(readConfigText(file)).toBe('{"mcpServers":{}}');
    expect(loadConfig(file, {}).ok).toBe(true);
  });
});
