/**
 * A stable content hash: SHA-256 of JSON with object keys sorted at every level, so two values
 * that are equal as JSON hash the same whatever their key order. Used to key the catalogue cache
 * and the manifest memo.
 */
import { createHash } from 'node:crypto';

/** JSON text of `value` with object keys sorted (arrays keep their order; `undefined` members dropped as JSON does). */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The first 32 hex digits (128 bits) of SHA-256 over {@link stableJson} of `value`. */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 32);
}
