/**
 * The plain BM25 baseline that `toolshelf eval` and the benchmark print beside our ranking: one
 * field (name + description + top-level parameter names and descriptions), identifiers split,
 * lower-cased word tokens, no stemming, stop words or boosts; k1 1.5, b 0.75. Deliberately naive:
 * it is the yardstick, never used to serve a search.
 * Source: shared/data/README.md (baseline definition).
 */
import { splitCase } from './tokenize.js';

/** A tool as the retrieval sets give it. */
export interface PlainTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Lower-cased words with identifiers split at case and letter/digit boundaries. */
function plainWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(WORD)) {
    for (const part of splitCase(match[0])) words.push(part.toLowerCase());
  }
  return words;
}

function toolText(tool: PlainTool, params: (schema: unknown) => string): string {
  return `${tool.name} ${tool.description ?? ''} ${params(tool.inputSchema)}`;
}

/**
 * Builds the baseline ranker over `tools`; `params` extracts parameter text from a schema (the
 * same extraction the real index uses). Returns `rank(query, limit)` → names, best first.
 */
export function buildPlainBm25(
  tools: readonly PlainTool[],
  params: (schema: unknown) => string,
  k1 = 1.5,
  b = 0.75,
): (query: string, limit: number) => string[] {
  const docs = tools.map((tool) => countTerms(plainWords(toolText(tool, params))));
  const lengths = docs.map((doc) => [...doc.values()].reduce((sum, n) => sum + n, 0));
  const avgLength = lengths.reduce((sum, n) => sum + n, 0) / (docs.length || 1);
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of doc.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = (term: string): number => {
    const n = df.get(term) ?? 0;
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
  };
  return (query, limit) => {
    const terms = plainWords(query);
    const scored = docs.map((doc, i) => {
      let score = 0;
      for (const term of terms) {
        const tf = doc.get(term) ?? 0;
        if (tf > 0) score += (idf(term) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[i]!) / avgLength));
      }
      return { name: tools[i]!.name, score };
    });
    return scored
      .filter((hit) => hit.score > 0)
      .sort((x, y) => y.score - x.score || (x.name < y.name ? -1 : 1))
      .slice(0, limit)
      .map((hit) => hit.name);
  };
}

function countTerms(words: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}
