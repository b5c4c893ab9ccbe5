import { describe, expect, it } from 'vitest';
import { backoffDelayMs, DEFAULT_BACKOFF } from '../../src/upstream/backoff.js';

describe('backoffDelayMs', () => {
  it('doubles the ceiling from 0.5 s and stops at the 30 s cap', () => {
    const ceilings = Array.from({ length: 10 }, (_, i) => backoffDelayMs(i + 1, 1));
    expect(ceilings).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('jitters between half the ceiling and the ceiling', () => {
    expect(backoffDelayMs(3, 0)).toBe(1000);
    expect(backoffDelayMs(3, 0.5)).toBe(1500);
    expect(backoffDelayMs(3, 0.999_999)).toBe(2000);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const delay = backoffDelayMs(attempt, Math.random());
      expect(delay).toBeGreaterThanOrEqual(250);
      expect(delay).toBeLessThanOrEqual(DEFAULT_BACKOFF.capMs);
    }
  });

  it('never gives up and never overflows, even after thousands of attempts', () => {
    expect(backoffDelayMs(5000, 0.5)).toBe(22_500);
    expect(backoffDelayMs(Number.MAX_SAFE_INTEGER, 1)).toBe(30_000);
  });

  it('treats attempt 0 or below as the first attempt', () => {
    expect(backoffDelayMs(0, 1)).toBe(500);
  });

  it('uses the options given', () => {
    expect(backoffDelayMs(4, 1, { baseMs: 10, capMs: 50, resetAfterMs: 1 })).toBe(50);
    expect(backoffDelayMs(2, 1, { baseMs: 10, capMs: 50, resetAfterMs: 1 })).toBe(20);
  });
});
