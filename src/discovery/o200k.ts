/**
 * The o200k_base tokenizer (gpt-tokenizer), loaded on first use. Loading it costs ~0.2–0.8 s and
 * ~60 MiB of RSS (measured: a bare Node process 40 MiB, after the import 106 MiB), so a gateway that
 * never needs an exact count (a manifest that fits by bytes, or one read from the catalogue cache)
 * never pays for it. Source: issue #11 point 4.
 */
import { createRequire } from 'node:module';

type O200k = typeof import('gpt-tokenizer/encoding/o200k_base');

let loaded: O200k | undefined;

/** Special-token text such as `<|endoftext|>` is counted as plain text, never thrown on. */
const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };

/** The encoding module, required synchronously the first time (its CommonJS build). */
function o200k(): O200k {
  loaded ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as O200k;
  return loaded;
}

/** o200k_base token count of `text` (special-token markers counted as plain text). */
export function countTokens(text: string): number {
  return o200k().countTokens(text, ENCODE_OPTIONS);
}

/**
 * Whether `text` is at most `budget` o200k_base tokens. Every token stands for at least one UTF-8
 * byte, so a text of at most `budget` bytes fits without loading the tokenizer.
 */
export function withinTokens(text: string, budget: number): boolean {
  if (budget <= 0) return false;
  if (text.length <= budget && Buffer.byteLength(text, 'utf8') <= budget) return true;
  return o200k().isWithinTokenLimit(text, budget, ENCODE_OPTIONS) !== false;
}

/** Whether the tokenizer has been loaded in this process (for the lean-gateway test and bench). */
export function tokenizerLoaded(): boolean {
  return loaded !== undefined;
}
