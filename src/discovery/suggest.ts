/**
 * Close matches for a tool name the model got wrong, for the unknown-tool error result.
 * Pure: compares against the names it is given. The caller passes callable names only, so a
 * hidden name can never be suggested.
 * Source: docs/tools.md ("Unknown and hidden names": at most three close matches among callable names).
 */
import { splitWords } from './tokenize.js';

/** Below this similarity (0..1) a name is not offered: a wrong suggestion costs a round trip. */
const MIN_SIMILARITY = 0.5;

/**
 * Levenshtein distance between `a` and `b`, with an early exit once every cell in a row exceeds
 * `limit` (then any value above `limit` is returned). Pure.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** The part after the last `__` (the upstream tool name under the default separator). */
function tail(name: string): string {
  const cut = name.lastIndexOf('__');
  return cut >= 0 ? name.slice(cut + 2) : name;
}

/** 1 − normalised edit distance, best over whole names and tool-name tails. */
function spellingSimilarity(unknown: string, candidate: string): number {
  const pairs: [string, string][] = [
    [unknown, candidate],
    [unknown, tail(candidate)],
    [tail(unknown), tail(candidate)],
  ];
  let best = 0;
  for (const [a, b] of pairs) {
    const longest = Math.max(a.length, b.length);
    if (longest === 0) continue;
    const limit = Math.floor(longest * (1 - MIN_SIMILARITY));
    best = Math.max(best, 1 - editDistance(a, b, limit) / longest);
  }
  return best;
}

/**
 * Share of the unknown name's words that the candidate also has (0..1): a candidate holding them all
 * scores 1 whatever else it holds, so `read_text_file` comes before `write_file` for `read_file`,
 * which spelling alone puts the other way (a write tool offered for a read).
 */
function wordOverlap(unknownWords: ReadonlySet<string>, candidate: string): number {
  if (unknownWords.size === 0) return 0;
  const words = new Set(splitWords(candidate));
  let shared = 0;
  for (const word of unknownWords) if (words.has(word)) shared += 1;
  return shared / unknownWords.size;
}

/**
 * True when `unknown` starts with the server part of `candidate` (before its first `__`) followed by
 * a separator (`_`, `-`, `.`): `mail_send_email` names the server of `mail__send_email`, not that of
 * `helper__mail__send_email`, whose tool name merely contains it (a server shadowing another's tool).
 */
function namesServerOf(unknown: string, candidate: string): boolean {
  const cut = candidate.indexOf('__');
  if (cut <= 0) return false;
  const server = candidate.slice(0, cut);
  return unknown.length > server.length && unknown.startsWith(server) && '_-.'.includes(unknown[server.length]!);
}

/**
 * Up to `max` names from `callable` closest to `unknown`, best first, each at least 50% similar by
 * spelling (edit distance, also against the part after `__`) or by shared words. Order: candidates
 * of the server the unknown name starts with first, then by similarity, then by spelling alone,
 * then by name. Case-insensitive. `[]` when nothing is close. Never throws.
 */
export function suggestNames(unknown: string, callable: readonly string[], max = 3): string[] {
  const target = unknown.trim().toLowerCase();
  if (target === '' || max <= 0) return [];
  const targetWords = new Set(splitWords(target));
  const scored: { name: string; score: number; spelling: number; named: boolean }[] = [];
  for (const name of new Set(callable)) {
    const lower = name.toLowerCase();
    const spelling = spellingSimilarity(target, lower);
    const score = Math.max(spelling, wordOverlap(targetWords, lower));
    if (score >= MIN_SIMILARITY) scored.push({ name, score, spelling, named: namesServerOf(target, lower) });
  }
  scored.sort(
    (x, y) => Number(y.named) - Number(x.named) || y.score - x.score || y.spelling - x.spelling || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
  return scored.slice(0, max).map((hit) => hit.name);
}
