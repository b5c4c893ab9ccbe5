/**
 * Pure retry schedule for upstream (re)starts: exponential with full jitter, bounded.
 * Source: DESIGN §11 (retried with backoff); "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015).
 */

/** Schedule parameters in ms. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly capMs: number;
  /** Attempts after which the upstream is left down; `Infinity` never gives up. */
  readonly maxAttempts: number;
}

/** 0.5 s doubling to 30 s, at most 8 restarts in a row. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 30_000, maxAttempts: 8 };

/**
 * Delay before attempt `attempt` (1-based), in ms, or undefined once attempts are exhausted.
 * `random` in [0, 1) is passed in so the schedule is testable; the delay lies in
 * [ceiling / 2, ceiling] where ceiling = min(cap, base · 2^(attempt−1)).
 */
export function backoffDelayMs(attempt: number, random: number, options: BackoffOptions = DEFAULT_BACKOFF): number | undefined {
  if (attempt < 1 || attempt > options.maxAttempts) return undefined;
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
