/**
 * Result values for expected failures at boundaries (config load, admission, upstream calls).
 * `lib/` imports nothing else in `src/` and stays tiny.
 */

/** Success or failure as a value; never thrown. */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wraps a success value. */
export function ok<T>(value: T): Result<T, never> {
  return { ok: true, value };
}

/** Wraps a failure value. */
export function err<E>(error: E): Result<never, E> {
  return { ok: false, error };
}
