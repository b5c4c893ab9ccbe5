/**
 * Sizes on the wire: UTF-8 bytes of compact JSON and a token estimate.
 * The one definition used by compaction budgets, `inspect`, the benchmark and trace events.
 * Source: docs/tools.md (sizes are UTF-8 bytes of compact JSON), docs/cli.md (trace), docs/benchmarks.md.
 */

/**
 * UTF-8 byte length of `JSON.stringify(value)` (compact, no whitespace).
 * A string is measured as its JSON encoding (quotes and escapes included); a value JSON cannot
 * encode (`undefined`, a function) measures 0.
 * @throws TypeError only for inputs that never come from JSON: cyclic objects or BigInt.
 * Source: docs/tools.md.
 */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/**
 * UTF-8 byte length of a plain string (no JSON quoting), as used for description budgets.
 * Lone surrogates count 3 bytes, as the UTF-8 encoder replaces them with U+FFFD.
 * Source: docs/tools.md.
 */
export function textBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Bytes per token assumed for JSON and English text: the usual figure for BPE tokenizers (cl100k, Claude). */
export const BYTES_PER_TOKEN = 4;

/**
 * Estimated tokens for `bytes` UTF-8 bytes: `ceil(bytes / 4)`.
 * An estimate, not a tokenizer: JSON Schema is punctuation-heavy (≈3.5–4 bytes/token) and CJK text is
 * denser (≈1.5–3 bytes/token), so treat it as ±25% and use it only for comparisons and budgets.
 * Source: docs/tools.md (manifest token budget), docs/cli.md (`tokens` in `tools_advertised`).
 */
export function estimateTokens(bytes: number): number {
  return bytes > 0 ? Math.ceil(bytes / BYTES_PER_TOKEN) : 0;
}
