/**
 * Text → search terms, shared by the index, the queries and the plain-BM25 baseline.
 * Owns identifier splitting (snake_case, camelCase, kebab-case, dotted, letter/digit runs), case
 * folding, stop words, a light English suffix stemmer and CJK character bigrams. Leaves field choice
 * and weighting to `searchIndex.ts`.
 * Source: docs/search.md (identifier splitting); `test/discovery/tokenize.test.ts` (any language must not break the index).
 */

/** Han, Hiragana, Katakana and Hangul: scripts written without spaces between words. */
const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]';
/** Splits a chunk around CJK runs, keeping the runs (capturing group). */
const CJK_SPLIT = new RegExp(`(${CJK_CLASS}+)`, 'u');
const CJK_START = new RegExp(`^${CJK_CLASS}`, 'u');
const ASCII = /^[\x00-\x7f]*$/;
const LOWER_LETTERS = /^[a-z]+$/;
/** Runs of letters, marks and digits; everything else separates (`_`, `-`, `.`, `/`, spaces, punctuation). */
const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * English function words (the common NLTK list, minus negations) and request filler ("please",
 * "help me", "can you tell") that carry no tool intent. Verbs that are intent ("find", "get",
 * "list", "search", "read", "write") stay. Dropping them moved Recall@5 0.21 → 0.39 (livemcpbench)
 * and 0.49 → 0.64 (metatool single); the filler words added +0.005 Recall@5 on metatool.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  ('i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her ' +
    'hers herself it its itself they them their theirs themselves what which who whom this that these ' +
    'those am is are was were be been being have has had having do does did doing a an the and but if ' +
    'or because as until while of at by for with about against between into through during before after ' +
    'above below to from up down in out on off over under again further then once here there when where ' +
    'why how all any both each few more most other some such only own same so than too very s t can will ' +
    'just should now please help want need like also would could may might must shall let know tell give ' +
    'show provide looking interested assist hi hey')
    .split(' '),
);

/**
 * Splits one identifier-like chunk at case and letter/digit boundaries.
 * `getHTTPResponse2xx` → `["get", "HTTP", "Response", "2", "xx"]`. Input has no separators.
 */
export function splitCase(chunk: string): string[] {
  return chunk
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(' ')
    .filter((part) => part.length > 0);
}

/**
 * Words of an identifier or a sentence, lower-cased, without stemming or stop-word removal.
 * `github__create_issue` → `["github", "create", "issue"]`; `browser.takeScreenshot` →
 * `["browser", "take", "screenshot"]`. A camelCase chunk also yields itself whole (`GitHub` →
 * `github`, `git`, `hub`) so both spellings match. CJK runs are kept whole here.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  const normalised = ASCII.test(text) ? text : text.normalize('NFKC');
  for (const match of normalised.matchAll(WORD_RUN)) {
    const chunk = match[0];
    if (LOWER_LETTERS.test(chunk)) {
      words.push(chunk); // fast path: most description words need no splitting
      continue;
    }
    for (const piece of ASCII.test(chunk) ? [chunk] : chunk.split(CJK_SPLIT)) {
      if (piece.length === 0) continue;
      const parts = isCjk(piece) ? [piece] : splitCase(piece);
      if (parts.length > 1) words.push(piece.toLowerCase());
      for (const part of parts) words.push(part.toLowerCase());
    }
  }
  return words;
}

/** True when a piece from `splitWords` is a CJK run (pieces are either wholly CJK or not at all). */
function isCjk(piece: string): boolean {
  return CJK_START.test(piece);
}

/** CJK run → overlapping character bigrams; a single character stays a unigram. */
function cjkBigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  const grams: string[] = [];
  for (let i = 0; i + 1 < chars.length; i += 1) grams.push(chars[i]! + chars[i + 1]!);
  return grams;
}

/**
 * Light English stemmer (plural, -ing, -ed, final -e, y → i). Consistency matters more than
 * linguistics: `searches`, `searching`, `searched` → `search`; `create`, `created` → `creat`.
 * Words under four letters and non-ASCII words are returned unchanged.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let s = word;
  if (s.endsWith('ies') && s.length > 4) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.endsWith('ing') && s.length > 5) s = undouble(s.slice(0, -3));
  else if (s.endsWith('ed') && s.length > 4) s = undouble(s.slice(0, -2));
  if (s.endsWith('e') && s.length > 4) s = s.slice(0, -1);
  if (s.endsWith('y') && s.length > 3) s = `${s.slice(0, -1)}i`;
  return s;
}

/** `running` → `runn` → `run`; keeps `ll`, `ss`, `zz` (`install`, `access`, `buzz`). */
function undouble(s: string): string {
  return /([^lsz])\1$/.test(s) ? s.slice(0, -1) : s;
}

/** True for words that carry no intent on their own (see STOP_WORDS). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/**
 * Search terms of any text: split words, stop words dropped (unless nothing else is left),
 * stemmed, CJK runs as character bigrams. Never throws; empty or symbol-only text gives `[]`.
 * Used for documents and queries alike, so both sides agree.
 */
export function tokenize(text: string): string[] {
  const words = splitWords(text);
  const content = words.filter((word) => !STOP_WORDS.has(word));
  const terms: string[] = [];
  for (const word of content.length > 0 ? content : words) {
    if (isCjk(word)) terms.push(...cjkBigrams(word));
    else terms.push(stem(word));
  }
  return terms;
}
