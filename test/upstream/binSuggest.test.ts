/** The closest program on a PATH for a command that was not found. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closestProgram } from '../../src/upstream/binSuggest.js';
import { tempDir } from '../helpers/gateway.js';

/** A folder holding `names` as files, runnable unless listed in `plain`. */
function folder(names: string[], plain: string[] = []): string {
  const dir = join(tempDir(), 'bin');
  mkdirSync(dir);
  for (const name of [...names, ...plain]) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), plain.includes(name) ? 0o644 : 0o755);
  }
  return dir;
}

describe('closestProgram', () => {
  it('offers the closest runnable name across the PATH folders', () => {
    const path = [folder(['mcp-server-time', 'git']), '/no/such/folder', folder(['mcp-server-memory'])].join(delimiter);
    expect(closestProgram('mcp-server-memroy', path)).toBe('mcp-server-memory');
    expect(closestProgram('mcp-server-memroy', path)).toBe('mcp-server-memory'); // from the folder cache
  });

  it('offers nothing far off, not runnable, with a folder in the command, or without a PATH', () => {
    const path = folder(['mcp-server-memory'], ['mcp-server-memorx']);
    expect(closestProgram('uvx', path)).toBeUndefined();
    expect(closestProgram('mcp-server-memorx', path)).toBe('mcp-server-memory');
    expect(closestProgram('./mcp-server-memroy', path)).toBeUndefined();
    expect(closestProgram('mcp-server-memroy', undefined)).toBeUndefined();
    expect(closestProgram('mcp-server-memorz', folder([], ['mcp-server-memory']))).toBeUndefined();
  });

  it('sees a program installed after an earlier miss (the folder changed)', () => {
    const dir = folder(['other']);
    expect(closestProgram('mcp-server-memroy', dir)).toBeUndefined();
    writeFileSync(join(dir, 'mcp-server-memory'), '#!/bin/sh\n', { mode: 0o755 });
    expect(closestProgram('mcp-server-memroy', dir)).toBe('mcp-server-memory');
  });
});
