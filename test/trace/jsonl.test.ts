import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
});
