import { describe, expect, it } from 'vitest';
import { MAX_SEGMENT_CHARS, problemLine } from '../../src/config/report.js';

describe('problemLine (a 2 MB misspelt key was printed whole, a newline in a key split the list)', () => {
  it('prints an ordinary problem as it is', () => {
    expect(problemLine({ path: '/mcpServers/files/lazzy', message: 'is not a known key; did you mean "lazy"?' })).toBe('  /mcpServers/files/lazzy: is not a known key; did you mean "lazy"?');
  });

  it('clips a long key and escapes control characters, one line per problem', () => {
    const line = problemLine({ path: `/mcpServers/${'k'.repeat(2_000_000)}/x\ny\u0007`, message: 'is not a known key' });
    expect(line).toBe(`  /mcpServers/${'k'.repeat(MAX_SEGMENT_CHARS)}…/x\\u000ay\\u0007: is not a known key`);
    expect(line.split('\n')).toHaveLength(1);
  });
});
