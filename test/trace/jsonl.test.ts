import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openJsonlTrace } from '../../src/trace/jsonl.js';

describe('openJsonlTrace', () => {
  it('creates the trace file readable by its owner only (0600) and appends one JSON line per event', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolshelf-trace-')), 'trace.jsonl');
    const trace = openJsonlTrace(file);
    trace.record({ event: 'session_started', session: 's1' } as never);
    trace.record({ event: 'session_ended', session: 's1' } as never);
    await trace.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => l.event)).toEqual(['session_started', 'session_ended']);
    expect(Object.keys(lines[0]!)[0]).toBe('time');
  });

  it('does not follow a symbolic link at its path: warns and traces nothing, the link target untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolshelf-trace-'));
    writeFileSync(join(dir, 'target'), 'keep\n');
    symlinkSync(join(dir, 'target'), join(dir, 'trace.jsonl'));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      const trace = openJsonlTrace(join(dir, 'trace.jsonl'));
      trace.record({ event: 'session_started', session: 's1' } as never);
      await trace.close();
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toMatch(/trace file .*trace\.jsonl: .*is a symbolic link/);
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('keep\n');
  });
});
