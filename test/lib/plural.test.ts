/** Counted nouns: one tool, two tools. */
import { describe, expect, it } from 'vitest';
import { counted } from '../../src/lib/plural.js';

describe('counted', () => {
  it('uses the singular for exactly one', () => {
    expect(counted(1, 'tool')).toBe('1 tool');
    expect(counted(0, 'tool')).toBe('0 tools');
    expect(counted(2000, 'tool')).toBe('2000 tools');
    expect(counted(1, 'query', 'queries')).toBe('1 query');
    expect(counted(3, 'query', 'queries')).toBe('3 queries');
  });
});
