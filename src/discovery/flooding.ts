/**
 * Signs that an upstream floods tool_search: keyword-stuffed descriptions, near-duplicate
 * descriptions within one server, and a server that brings far more tools than the others. Pure:
 * functions of the deferred catalogue, computed once per catalogue (`diversify.ts` uses them).
 * Thresholds and what they cost on real catalogues: docs/security.md "Ranking under flooding";
 * counted on every tool of the shared catalogues in test/discovery/flooding.test.ts.
 */
import type { CatalogEntry } from '../catalog/types.js';
import { isStopWord } from './tokenize.js';

/** A content term repeated at least this many times can make a description stuffed. */
export const STUFFED_MIN_REPEATS = 5;
/** …when it is at least this share of the description's content words (0..1). */
export const STUFFED_MIN_SHARE = 0.4;
/** Word 3-shingle Jaccard similarity at which two descriptions are near-duplicates (0..1). */
export const NEAR_DUPLICATE_JACCARD = 0.7;
/** A description is flooding when it is a near-duplicate of at least this many other tools of its server. */
export const NEAR_DUPLICATE_MIN_OTHERS = 2;
/** A server is oversized when it brings more than this many times the median tool count of the others… */
export const OVERSIZED_FACTOR = 3;
/** …and at least this many tools. */
export const OVERSIZED_MIN_TOOLS = 30;

/** Why a tool is scored down. */
export type FloodReason = 'stuffed' | 'near-duplicate';

function descriptionOf(entry: CatalogEntry): string {
  const own = entry.tool.description;
  return typeof own === 'string' ? own : '';
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * True when one content word (not a stop word, longer than one character) occurs at least
 * {@link STUFFED_MIN_REPEATS} times and makes up at least {@link STUFFED_MIN_SHARE} of the content
 * words: a description written to win on a term rather than to describe the tool.
 */
export function isStuffed(description: string): boolean {
  const content = wordsOf(description).filter((word) => word.length > 1 && !isStopWord(word));
  const counts = new Map<string, number>();
  let most = 0;
  for (const word of content) {
    const count = (counts.get(word) ?? 0) + 1;
    counts.set(word, count);
    most = Math.max(most, count);
  }
  return most >= STUFFED_MIN_REPEATS && most / content.length >= STUFFED_MIN_SHARE;
}

function shinglesOf(description: string): Set<string> {
  const words = wordsOf(description);
  const shingles = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i += 1) shingles.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return shingles;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const shingle of a) if (b.has(shingle)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function byServer(entries: readonly CatalogEntry[]): Map<string, CatalogEntry[]> {
  const groups = new Map<string, CatalogEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.server) ?? [];
    group.push(entry);
    groups.set(entry.server, group);
  }
  return groups;
}

/**
 * Qualified names of tools whose description is a near-duplicate ({@link NEAR_DUPLICATE_JACCARD}
 * on word 3-shingles) of at least {@link NEAR_DUPLICATE_MIN_OTHERS} other tools of the same server:
 * one template filled in many times. Compared within a server only (a pair of similar tools, such
 * as a deprecated alias, is not flooding; across servers it would score down the original too).
 * Cost: quadratic in the largest server's tool count.
 */
export function nearDuplicates(entries: readonly CatalogEntry[]): Set<string> {
  const found = new Set<string>();
  for (const group of byServer(entries).values()) {
    if (group.length <= NEAR_DUPLICATE_MIN_OTHERS) continue;
    const shingles = group.map((entry) => shinglesOf(descriptionOf(entry)));
    const similar = new Array<number>(group.length).fill(0);
    for (let i = 0; i < group.length; i += 1) {
      for (let j = i + 1; j < group.length; j += 1) {
        if (jaccard(shingles[i]!, shingles[j]!) < NEAR_DUPLICATE_JACCARD) continue;
        similar[i]! += 1;
        similar[j]! += 1;
      }
    }
    group.forEach((entry, i) => {
      if (similar[i]! >= NEAR_DUPLICATE_MIN_OTHERS) found.add(entry.qualifiedName);
    });
  }
  return found;
}

/** Every scored-down tool of `entries` with its reason (stuffed wins when both hold). */
export function floodedTools(entries: readonly CatalogEntry[]): Map<string, FloodReason> {
  const flooded = new Map<string, FloodReason>();
  for (const name of nearDuplicates(entries)) flooded.set(name, 'near-duplicate');
  for (const entry of entries) if (isStuffed(descriptionOf(entry))) flooded.set(entry.qualifiedName, 'stuffed');
  return flooded;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * One warning per server that brings more than {@link OVERSIZED_FACTOR} × the median tool count of
 * the other servers and at least {@link OVERSIZED_MIN_TOOLS} tools (needs two servers or more).
 * Counts the searchable (deferred) tools given.
 */
export function oversizedServerWarnings(entries: readonly CatalogEntry[]): string[] {
  const counts = [...byServer(entries)].map(([server, group]) => ({ server, tools: group.length }));
  if (counts.length < 2) return [];
  const lines: string[] = [];
  for (const { server, tools } of counts.sort((a, b) => (a.server < b.server ? -1 : 1))) {
    const others = median(counts.filter((count) => count.server !== server).map((count) => count.tools));
    if (tools < OVERSIZED_MIN_TOOLS || tools <= OVERSIZED_FACTOR * others) continue;
    lines.push(
      `upstream "${server}" brings ${tools} searchable tools, more than ${OVERSIZED_FACTOR}× the others' median (${others}): ` +
        'tool_search keeps it to 2 of the top 5 results unless a query names it (docs/security.md "Ranking under flooding")',
    );
  }
  return lines;
}
