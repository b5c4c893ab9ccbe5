/**
 * Pure retry schedule for upstream (re)starts: exponential with jitter, bounded by a cap. An eager
 * upstream never gives up (a server that comes back an hour later is used again); a lazy one that
 * failed {@link LAZY_MAX_ATTEMPTS} times in a row backs off to idle and starts again only when a call
 * or search needs it (docs/operations.md).
 * Source: docs/robustness.md (retried with backoff); "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015).
 */

/** Schedule parameters in ms. */
export interface BackoffOptions {
  /** Ceiling of the first delay. */
  readonly baseMs: number;
  /** Largest ceiling: delays stop growing here. */
  readonly capMs: number;
  /** Time an upstream must stay up before its attempt count starts again from 1. */
  readonly resetAfterMs: number;
}

/** 0.5 s doubling to 30 s; an upstream up for a minute counts as recovered. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 30_000, resetAfterMs: 60_000 };

/**
 * Delay before attempt `attempt` (1-based), in ms. `random` in [0, 1) is passed in so the schedule
 * is testable; the delay lies in [ceiling / 2, ceiling] where ceiling = min(cap, base · 2^(attempt−1))
 * ("equal jitter": never a stampede of instant retries, never past the cap).
 */
export function backoffDelayMs(attempt: number, random: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/**
 * Failed starts or early crashes in a row (attempts of the schedule above, counted from the last time
 * the upstream stayed up `resetAfterMs`) after which a lazy upstream stops retrying: about 16 s of
 * retries with {@link DEFAULT_BACKOFF}. A lazy upstream is one nobody needs until it is used, so
 * retrying it every 30 s forever spends processes on nothing.
 */
export const LAZY_MAX_ATTEMPTS = 6;
