/**
 * Description text → whole sentences for the manifest: wrapped lines rejoined, docstring sections
 * (`Args:`, `Returns:`) dropped, sentences packed up to a character limit and never cut mid-word.
 * Pure string work; the manifest decides the limits.
 * Source: docs/tools.md (entry part 3: "packed from whole sentences, never cut mid-word").
 */

/** A line that opens a docstring section: parameters are rendered from the schema instead. */
const SECTION = /^(args|arguments|parameters|params|returns?|raises|throws|examples?|usage|notes?)\s*:/i;
/** A line that starts a list item or heading, so it begins a new sentence rather than continuing one. */
const ITEM = /^([-*+•#]|\d+[.)])\s+/;
/** Sentence end: `.`, `!`, `?` before a space and a capital, digit or quote; or CJK full stops. */
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'`(\[])|(?<=[。！？])\s*/u;

/**
 * Sentences of a description, in order. Lines inside a paragraph are rejoined with one space;
 * blank lines and list items start new sentences; text from the first docstring section on is
 * dropped. Empty text gives `[]`.
 */
export function sentencesOf(description: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    if (current.length > 0) blocks.push(current.join(' '));
    current = [];
  };
  for (const raw of description.split(/\r?\n/)) {
    const line = raw.trim();
    if (SECTION.test(line)) break;
    if (line === '' || ITEM.test(line)) flush();
    if (line !== '') current.push(line.replace(ITEM, ''));
  }
  flush();
  return blocks
    .flatMap((block) => block.replace(/\s+/g, ' ').split(SENTENCE_END))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** Code points, so a cut never splits a surrogate pair. */
function chars(text: string): string[] {
  return [...text];
}

/** Length in code points; `.length` when there is no surrogate pair (the common, cheap case). */
function codePoints(text: string): number {
  return /[\uD800-\uDFFF]/.test(text) ? [...text].length : text.length;
}

/**
 * `text` clipped to at most `maxChars` code points, ending in `…` when clipped. The cut falls on
 * whitespace when there is any in range (never mid-word); a run without spaces (CJK, a long URL)
 * is cut at a character boundary.
 */
export function clipWords(text: string, maxChars: number): string {
  if (codePoints(text) <= maxChars) return text;
  const all = chars(text);
  if (maxChars < 2) return '…'.slice(0, Math.max(0, maxChars));
  const head = all.slice(0, maxChars - 1).join('');
  const space = head.search(/\s\S*$/);
  const cut = space > 0 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:]+$/u, '')}…`;
}

/** A packed description and whether its first sentence alone was over the limit (and clipped). */
export interface Packed {
  readonly text: string;
  readonly clipped: boolean;
}

/**
 * Whole sentences from the start of `description` (text, or its `sentencesOf` already split), joined with a space (and a full stop after a
 * heading or list item that had none), while the result stays
 * within `maxChars` code points. A first sentence over the limit is clipped by `clipWords` and
 * flagged. Source: docs/tools.md.
 */
export function packSentences(description: string | readonly string[], maxChars: number): Packed {
  const sentences = typeof description === 'string' ? sentencesOf(description) : description;
  const first = sentences[0];
  if (first === undefined) return { text: '', clipped: false };
  let length = codePoints(first);
  if (length > maxChars) return { text: clipWords(first, maxChars), clipped: true };
  let text = first;
  for (const sentence of sentences.slice(1)) {
    const joiner = /[.!?:;。！？]$/u.test(text) ? ' ' : '. ';
    length += joiner.length + codePoints(sentence);
    if (length > maxChars) break;
    text = `${text}${joiner}${sentence}`;
  }
  return { text, clipped: false };
}

/**
 * Longest one-line summary of a tool in a search answer, in code points: the manifest's `short`
 * entry length (docs/tools.md), enough to tell tools apart without re-sending their descriptions.
 */
export const SUMMARY_CHARS = 60;

/** `text`'s first sentence, clipped at a word to {@link SUMMARY_CHARS}: a tool's one-line summary. Pure. */
export function summaryLine(text: string): string {
  return clipWords(sentencesOf(text)[0] ?? '', SUMMARY_CHARS);
}
