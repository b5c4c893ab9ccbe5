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

/**
 * SHA-256 of `text` (UTF-8), in hex: what a process keeps to tell whether a text it produced or read
 * before has changed, instead of the text (a tool list or pin file of thousands of tools is megabytes;
 * docs/performance.md, "Memory").
 */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The first 32 hex digits (128 bits) of SHA-256 over {@link stableJson} of `value`. */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 32);
}
