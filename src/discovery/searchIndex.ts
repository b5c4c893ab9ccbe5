/**
 * The BM25 search index over deferred catalogue entries (minisearch), rebuilt whole per catalogue.
 * Owns the indexed fields, their boosts, BM25 parameters and the exact-name shortcut. Leaves the
 * choice of which entries are searchable to the caller (only deferred ones), host rankers and
 * fallbacks to `rank.ts`. Holds no session state.
 * Source: docs/tools.md (exact name first), docs/search.md (fields, boosts, BM25 over minisearch).
 */
import MiniSearch from 'minisearch';
import type { CatalogEntry } from '../catalog/types.js';
import type { RankingSettings } from '../config/types.js';
import { isDeprecated } from './deprecation.js';
import type { RankedForJudgement } from './strength.js';
import { nameAliases } from './synonyms.js';
import { tokenize } from './tokenize.js';

/** Indexed fields. Boost keys in `RankingSettings.boosts` use these names. */
export type SearchField = 'name' | 'aliases' | 'server' | 'description' | 'params' | 'keywords';

/**
 * Default field boosts. `name` is the upstream tool name split into words (the qualified name is
 * matched exactly, before BM25); `aliases` is the synonyms of the name's words (`synonyms.ts`),
 * boosted like the name they stand for; `params` is top-level property names and their descriptions.
 *
 * Tuning notes (shared/data/retrieval dev sets; Recall@5 / nDCG@10, livemcpbench 43 queries |
 * metatool 2,115 single-tool queries; cumulative, each row adds one change):
 *   split words, all boosts 1, no stop words ... 0.178 / 0.201 | 0.397 / 0.350
 *   + stop words (tokenize.ts) ................. 0.399 / 0.401 | 0.579 / 0.507
 *   + light stemming ........................... 0.435 / 0.404 | 0.639 / 0.563
 *   + boosts name 2, server 3, params 0.5 ...... 0.449 / 0.414 | 0.638 / 0.566
 *   + prefix match for terms ≥ 5 chars ......... 0.443 / 0.420 | 0.644 / 0.571
 *   + name synonyms (`aliases`, boost 2) ....... 0.498 / 0.453 | 0.648 / 0.575
 *   + name-words match first ................... 0.498 / 0.453 | 0.648 / 0.575 (long queries never
 *     equal a name; it serves the model's short queries: `read file` → read_file, not read_multiple_files)
 * Plain BM25 on the same text: 0.331 / 0.342 | 0.457 / 0.405. Grids over name 1–5, server 0.75–6,
 * params 0.25–1, k1 0.9–2, b 0.3–0.9, d 0–1 moved no metric by more than ±0.01 on metatool (one
 * livemcpbench query is 0.023), so the plain defaults stay. The `aliases` boost at 0.5 / 1 / 2 / 3:
 * livemcpbench Recall@5 0.470 / 0.470 / 0.498 / 0.486, metatool 0.647 / 0.648 / 0.648 / 0.647; 2 is
 * also the name's own boost. Tried and rejected: fuzzy matching (+0.002, slower), pseudo-relevance
 * feedback (−0.01 to −0.07), splitting multi-step queries into clauses (−0.01), same-server
 * diversity (−0.08 live), same-server score sharing (±0.01, noise), a first-sentence field (boost
 * 0.5–2: nDCG −0.00 to −0.07), synonyms of description words too (at boost 0.5: live Recall@5
 * −0.007, metatool +0.001 against name-only: no gain for a bigger index), scaling scores by the share
 * of the name's words in the query (live nDCG −0.01 to −0.02, metatool multi +0.01 to +0.03: mixed).
 */
export const DEFAULT_BOOSTS: Readonly<Record<SearchField, number>> = {
  name: 2,
  aliases: 2,
  server: 3,
  description: 1,
  params: 0.5,
  keywords: 2,
};

/**
 * Score factor of a deprecated tool (`deprecation.ts`), applied per matched term inside BM25, so it
 * ranks below its replacement; it also never takes the name-words shortcut below. The dev sets hold
 * no deprecated tool (livemcpbench's "Check if packages are deprecated" is not one), so 2-fold
 * cross-validation over 0.1–1 shows no metric moving (bench/search.mjs); 0.5 is the largest value of
 * that grid that puts filesystem's `read_file` ("DEPRECATED: Use read_text_file instead") below
 * `read_text_file` for "read a file" and "read the contents of a file" (test/discovery/strength.test.ts).
 * Source: docs/tools.md.
 */
export const DEPRECATED_PENALTY = 0.5;

/** Default BM25+ parameters (minisearch's `k`, `b`, `d`; config spells `k` as `k1`). See the notes above. */
export const DEFAULT_BM25 = { k1: 1.2, b: 0.7, d: 0.5 } as const;

/** One search hit: a qualified name and its score (higher is better; unitless). */
export interface SearchHit {
  readonly name: string;
  readonly score: number;
  /** Distinct query terms the tool's text matched (the strong rule's coverage test, `strength.ts`). */
  readonly matchedTerms: number;
}

/** One ranking with what the strong rule (`strength.ts`) needs: hits, query terms, exact-name hits. */
export interface Ranked extends RankedForJudgement {
  readonly hits: SearchHit[];
}

/** Knobs the benchmark's cross-validation varies; production uses the defaults. */
export interface IndexTuning {
  /** Score factor of deprecated tools, 0..1; default {@link DEPRECATED_PENALTY}. */
  readonly deprecatedPenalty?: number;
}

/** A built index over one catalogue snapshot. Immutable; rebuild on catalogue change. */
export interface SearchIndex {
  /** Number of indexed entries. */
  readonly size: number;
  /** Like `search`, with the query's term count and how many leading hits are exact names. */
  rank(query: string, limit: number): Ranked;
  /**
   * Up to `limit` hits, best first. A query equal (case-insensitively, quotes trimmed) to a
   * qualified or upstream name puts that tool first. Never throws; an empty query gives `[]`.
   */
  search(query: string, limit: number): SearchHit[];
  /** Qualified names whose qualified or upstream name equals the query (case-insensitive, quotes trimmed). */
  exactMatches(query: string): string[];
}

interface IndexedDoc {
  readonly id: number;
  readonly name: string;
  readonly aliases: string;
  readonly server: string;
  readonly description: string;
  readonly params: string;
  readonly keywords: string;
}

const FIELDS: readonly SearchField[] = ['name', 'aliases', 'server', 'description', 'params', 'keywords'];

/**
 * Builds the index over `entries` (the caller passes only deferred ones). `settings.boosts` are
 * merged over DEFAULT_BOOSTS (unknown keys ignored); `settings.bm25` over DEFAULT_BM25.
 * Tolerates any `inputSchema` shape. The BM25 index is built on the first `search` (≈ 0.1 s per
 * 1,000 tools, bench/search.mjs), so a catalogue replaced before it is searched costs only the
 * exact-name table (any search, even `search('', 1)`, builds it).
 */
export function buildSearchIndex(entries: readonly CatalogEntry[], settings?: RankingSettings, tuning?: IndexTuning): SearchIndex {
  const snapshot = [...entries];
  const names = snapshot.map((entry) => entry.qualifiedName);
  const boosts = boostsFrom(settings);
  const bm25 = bm25From(settings);
  const penalty = tuning?.deprecatedPenalty ?? DEPRECATED_PENALTY;
  let lookup: Lookup | undefined;
  // Built on first search: a catalogue replaced before anyone searches it costs nothing.
  const built = (): Lookup =>
    (lookup ??= { mini: createMiniSearch(snapshot, boosts, bm25, penalty), byWords: nameWordsTable(snapshot), phrases: boosts.keywords > 0 ? keywordPhraseTable(snapshot) : new Map(), deprecated: deprecatedIds(snapshot) });
  const exact = exactNameTable(snapshot);
  const rank = (query: string, limit: number): Ranked => searchIndex(built(), names, exact, query, limit);
  return {
    size: snapshot.length,
    rank,
    search: (query, limit) => rank(query, limit).hits,
    exactMatches: (query) => (exact.get(normaliseName(String(query))) ?? []).map((id) => names[id]!),
  };
}

/** What the first search builds: the BM25 index and the name-words table. */
interface Lookup {
  readonly mini: MiniSearch<IndexedDoc>;
  readonly byWords: ReadonlyMap<string, readonly number[]>;
  /** Configured keyword phrases of two or more words, by first word ({@link PhraseTable}). */
  readonly phrases: PhraseTable;
  /** Ids of deprecated entries: they never take the name-words shortcut. */
  readonly deprecated: ReadonlySet<number>;
}

function deprecatedIds(entries: readonly CatalogEntry[]): Set<number> {
  const ids = new Set<number>();
  entries.forEach((entry, id) => {
    if (isDeprecated(entry.tool)) ids.add(id);
  });
  return ids;
}

function createMiniSearch(
  entries: readonly CatalogEntry[],
  boosts: Record<SearchField, number>,
  bm25: { k: number; b: number; d: number },
  penalty: number,
): MiniSearch<IndexedDoc> {
  const deprecated = deprecatedIds(entries);
  const mini = new MiniSearch<IndexedDoc>({
    fields: [...FIELDS],
    tokenize,
    processTerm: (term) => term,
    searchOptions: {
      // minisearch reads a boost of 0 as 1, so a field boosted to 0 is left out of the search instead.
      fields: FIELDS.filter((field) => boosts[field] > 0),
      boost: boosts,
      bm25,
      prefix: (term) => term.length >= 5,
      weights: { prefix: 0.3, fuzzy: 0 },
      ...(deprecated.size > 0 && penalty !== 1 ? { boostDocument: (id: unknown) => (deprecated.has(id as number) ? penalty : 1) } : {}),
    },
  });
  mini.addAll(entries.map(toDoc));
  return mini;
}

/**
 * Exact names first, then tools with a configured keyword phrase the query holds (`what do you know
 * about Ada` → the tool with the keyword "what do you know"), then tools whose name words are
 * exactly the query's (`read file`, `Read a file` → `read_file`, in BM25 order), then the rest by
 * BM25. Exact names and keyword phrases count as exact for the strong rule: the user named the tool.
 */
function searchIndex(
  lookup: Lookup,
  names: readonly string[],
  exact: ReadonlyMap<string, readonly number[]>,
  query: string,
  limit: number,
): Ranked {
  const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
  if (max === 0 || typeof query !== 'string') return { hits: [], terms: 0, distinctTerms: 0, exact: 0, size: names.length };
  // Tokenized once, for BM25 and the name-words key alike.
  const terms = tokenize(query);
  const distinct = new Set(terms).size;
  const results = lookup.mini.search(query, { tokenize: () => terms });
  const top = results[0]?.score ?? 0;
  const named = lookup.byWords.get(terms.join(' ')) ?? [];
  const first = [...(exact.get(normaliseName(query)) ?? [])];
  for (const id of phraseMatches(lookup.phrases, query)) if (!first.includes(id)) first.push(id);
  const exactCount = Math.min(first.length, max);
  for (const result of results) {
    const id = result.id as number;
    if (named.includes(id) && !lookup.deprecated.has(id) && !first.includes(id)) first.push(id);
  }
  // Matched terms are counted for kept hits only: a 1,000-tool OR query returns hundreds of results.
  const coveredBy = (id: number): number => {
    const result = results.find((candidate) => candidate.id === id);
    return result === undefined ? distinct : new Set(result.queryTerms).size;
  };
  const hits: SearchHit[] = first.map((id) => ({ name: names[id]!, score: top + 1, matchedTerms: coveredBy(id) }));
  for (const result of results) {
    if (hits.length >= max) break;
    if (!first.includes(result.id as number)) hits.push({ name: names[result.id as number]!, score: result.score, matchedTerms: new Set(result.queryTerms).size });
  }
  return { hits: hits.slice(0, max), terms: terms.length, distinctTerms: distinct, exact: exactCount, size: names.length };
}

function toDoc(entry: CatalogEntry, id: number): IndexedDoc {
  const own = entry.tool.description;
  const description = typeof own === 'string' && own.trim() !== '' ? own : entry.projected.description;
  return {
    id,
    name: entry.upstreamName,
    aliases: nameAliases(entry.upstreamName),
    server: entry.server,
    description,
    params: propertyText(entry.tool.inputSchema),
    keywords: entry.keywords.join(' '),
  };
}

/** Top-level property names and their descriptions as one text; anything malformed is skipped. */
export function propertyText(schema: unknown): string {
  if (!isObject(schema) || !isObject(schema.properties)) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(schema.properties)) {
    parts.push(key);
    if (isObject(value) && typeof value.description === 'string') parts.push(value.description);
  }
  return parts.join(' ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Lower-cased name with surrounding whitespace, quotes and backticks removed. */
function normaliseName(text: string): string {
  return text.trim().replace(/^["'`]+|["'`]+$/g, '').toLowerCase();
}

/** A name's or query's search terms as one key: `read_file`, `readFile`, `Read a file` → `read file`. */
function wordsKey(text: string): string {
  return tokenize(text).join(' ');
}

/**
 * `text`'s words (runs of letters, marks and digits, NFKC as the tokenizer reads them), lower-cased,
 * stop words kept: keyword phrases are matched on these, since a phrase like "what do you know" is
 * all stop words and BM25 never sees it. Marks stay in their word: split at them, the one Hindi word
 * "फ़ाइल" became a phrase of two, and any query holding it named its tool as exactly as a tool name.
 */
function plainWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean);
}

/** One keyword phrase: its words and the entries that have it. */
interface Phrase {
  readonly words: readonly string[];
  readonly ids: number[];
}

/** Keyword phrases by their first word, so a search looks only at phrases starting with one of its words. */
type PhraseTable = ReadonlyMap<string, readonly Phrase[]>;

/**
 * Keyword phrases of two or more words, by first word. One-word keywords are left to BM25's
 * `keywords` field: a single word ("file") is too common to name one tool.
 */
function keywordPhraseTable(entries: readonly CatalogEntry[]): PhraseTable {
  const byKey = new Map<string, Phrase>();
  const table = new Map<string, Phrase[]>();
  entries.forEach((entry, id) => {
    for (const keyword of entry.keywords) {
      const words = plainWords(keyword);
      if (words.length < 2) continue;
      const key = words.join(' ');
      const known = byKey.get(key);
      if (known) {
        if (!known.ids.includes(id)) known.ids.push(id);
        continue;
      }
      const phrase = { words, ids: [id] };
      byKey.set(key, phrase);
      const starting = table.get(words[0]!) ?? [];
      starting.push(phrase);
      table.set(words[0]!, starting);
    }
  });
  return table;
}

/**
 * Ids of the entries with a keyword phrase that `query` holds as whole words, in the order the query
 * holds them. Work grows with the query's words and the phrases starting with them, not with every
 * phrase configured: scanning each phrase was most of a short search's time at 1,000 tools with three
 * phrases each.
 */
function phraseMatches(phrases: PhraseTable, query: string): number[] {
  if (phrases.size === 0) return [];
  const words = plainWords(query);
  const ids: number[] = [];
  words.forEach((word, at) => {
    for (const phrase of phrases.get(word) ?? []) {
      if (phrase.words.length > words.length - at || !phrase.words.every((w, i) => words[at + i] === w)) continue;
      for (const id of phrase.ids) if (!ids.includes(id)) ids.push(id);
    }
  });
  return ids;
}

/** Name-words key of each upstream name → entry ids (empty keys left out). */
function nameWordsTable(entries: readonly CatalogEntry[]): Map<string, number[]> {
  const table = new Map<string, number[]>();
  entries.forEach((entry, id) => {
    const key = wordsKey(entry.upstreamName);
    if (key === '') return;
    const ids = table.get(key) ?? [];
    ids.push(id);
    table.set(key, ids);
  });
  return table;
}

function exactNameTable(entries: readonly CatalogEntry[]): Map<string, number[]> {
  const table = new Map<string, number[]>();
  const add = (key: string, id: number): void => {
    const ids = table.get(key) ?? [];
    if (!ids.includes(id)) ids.push(id);
    table.set(key, ids);
  };
  entries.forEach((entry, id) => add(entry.qualifiedName.toLowerCase(), id));
  entries.forEach((entry, id) => add(entry.upstreamName.toLowerCase(), id));
  return table;
}

function boostsFrom(settings: RankingSettings | undefined): Record<SearchField, number> {
  const boosts: Record<SearchField, number> = { ...DEFAULT_BOOSTS };
  for (const [field, value] of Object.entries(settings?.boosts ?? {})) {
    if (field in boosts && Number.isFinite(value) && value >= 0) boosts[field as SearchField] = value;
  }
  return boosts;
}

function bm25From(settings: RankingSettings | undefined): { k: number; b: number; d: number } {
  const given = settings?.bm25 ?? {};
  const pick = (value: number | undefined, fallback: number, min: number): number =>
    value !== undefined && Number.isFinite(value) && value >= min ? value : fallback;
  return {
    k: pick(given.k1, DEFAULT_BM25.k1, Number.MIN_VALUE),
    b: pick(given.b, DEFAULT_BM25.b, 0),
    d: pick(given.d, DEFAULT_BM25.d, 0),
  };
}
