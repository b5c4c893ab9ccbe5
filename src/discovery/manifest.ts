/**
 * The manifest: an index of every deferred tool, embedded in `tool_search`'s description so the
 * model knows what it can search for. Owns entry rendering, the degradation ladder and the token
 * count; leaves which entries are deferred to the catalogue and where the text goes to the gateway.
 * Pure and deterministic: the same entries give the same bytes in every process (prompt caching).
 * Token counts use gpt-tokenizer's o200k_base encoding, loaded only when a count is needed (`o200k.ts`):
 * a text of at most `budget` UTF-8 bytes fits without it, and `tokens` is counted when read.
 *
 * Decision (big catalogues): the manifest's ladder (docs/tools.md) is kept in its order, but when not every name fits,
 * the `names` rung lists as many names as the budget allows and ends with "…and N more tools; search
 * for them." before giving up to the bare count. The names listed are taken round-robin over servers
 * (every family is named before any is named twice), then printed sorted like every other rung.
 * Why: the manifest exists because the model cannot search for what it does not know exists; at
 * 1,000 tools and 4,000 tokens a bare count tells it nothing, while ~400 names from every server tell
 * it which families and verbs are on the shelf. Still deterministic (same catalogue, same bytes).
 *
 * Decision (mixed rung): between `short` and `names` the ladder has a `mixed` rung: every tool is
 * named, as many as fit get their `short` entry and the rest only their name. The short entries go
 * to tools in the same round-robin order over servers (then name order) as the partial `names` rung,
 * and lines stay sorted by qualified name. Why: a client that cuts descriptions (Claude Code, 2,048
 * characters) or a tight token budget otherwise drops a 30–40 tool catalogue from short entries
 * straight to bare names, using about half the space (github, first 36 tools: 1,182 of 2,048).
 * Source: docs/tools.md, "The manifest" (Claude Code cuts descriptions at 2,048 characters).
 */
import { sortKeywords } from '../catalog/exposure.js';
import type { CatalogEntry } from '../catalog/types.js';
import { isDeprecated } from './deprecation.js';
import { countTokens, withinTokens } from './o200k.js';
import { clipWords, packSentences, sentencesOf } from './sentences.js';
import { requiredSignature } from './signature.js';
import { hintsOf, riskTag } from './risk.js';

/**
 * Ladder rungs, most informative first (docs/tools.md): `mixed` names every tool with `short` entries
 * for some of them (see `Manifest.described`).
 */
export type ManifestLevel = 'full' | 'short' | 'mixed' | 'names' | 'count';

export interface ManifestOptions {
  /** Token budget for the whole text (`discovery.manifestTokenBudget`, default 4,000). */
  readonly tokenBudget: number;
  /** Hard cap in UTF-16 code units for clients that cut descriptions (Claude Code: 2,048). */
  readonly maxChars?: number;
}

export interface Manifest {
  readonly text: string;
  readonly level: ManifestLevel;
  /** How many tools the text names: all of them above `count`, fewer on a partial `names` rung, 0 at `count`. */
  readonly listed: number;
  /** How many tools get their `full` or `short` entry rather than a bare name: all above `mixed`, some at `mixed`, 0 below. */
  readonly described: number;
  /** o200k_base tokens of `text`. */
  readonly tokens: number;
  /** Tools whose first sentence alone exceeded the entry's character budget (clipped at a word). */
  readonly warnings: readonly string[];
}

/** What `tool_search`'s description says before the manifest. */
export const TOOL_SEARCH_PREAMBLE =
  'Search the tools listed below by describing what you want to do; matching tools are returned ' +
  'with their parameters and become callable by name.';

/**
 * {@link TOOL_SEARCH_PREAMBLE} for a legacy client whose list has call_tool (it may never list a
 * found tool). No longer than it, so a client's description limit still holds.
 */
export const BRIDGE_SEARCH_PREAMBLE = 'Search the tools listed below by describing what you want to do; matching tools are returned with their parameters: run one with call_tool.';

/** Between the preamble and the manifest. */
const SEPARATOR = '\n\n';

/** Description budgets (code points) tried at the `full` level, longest first. */
const FULL_DESCRIPTION_CHARS: readonly number[] = [400, 240, 160, 100];
/** First-sentence cap of the `short` level (docs/tools.md). */
const SHORT_CHARS = 60;
/** How the manifest marks a deprecated tool. */
export const DEPRECATED_TAG = '(deprecated)';
/** Text that already ends a sentence (a clipped `…` counts: a full stop after it reads oddly). */
const SENTENCE_ENDED = /[.!?。！？…]$/u;

export { countTokens };

function descriptionOf(entry: CatalogEntry): string {
  const own = entry.tool.description;
  return typeof own === 'string' && own.trim() !== '' ? own : entry.projected.description;
}

/** What every rung needs from one entry, computed once per render. */
interface EntryText {
  readonly name: string;
  /** `name(required):`, or with its tags: `name(required) (deprecated) (destructive):` */
  readonly head: string;
  /** `name` or `name (deprecated)`: what the `short` rung starts with. */
  readonly label: string;
  readonly sentences: readonly string[];
  /** ` Keywords: a, b.` or `''`. */
  readonly tail: string;
}

function entryText(entry: CatalogEntry): EntryText {
  const signature = requiredSignature(entry.tool.inputSchema);
  const keywords = sortKeywords(entry.keywords);
  // Deprecated tools are tagged where they are described; bare-name rungs stay bare.
  // So are read-only and destructive ones (risk.ts riskTag; docs/security.md "Risky calls").
  const risk = riskTag(hintsOf(entry.tool));
  const tag = `${isDeprecated(entry.tool) ? ` ${DEPRECATED_TAG}` : ''}${risk === '' ? '' : ` ${risk}`}`;
  return {
    name: entry.qualifiedName,
    label: `${entry.qualifiedName}${tag}`,
    head: `${entry.qualifiedName}${signature === '' ? '' : `(${signature})`}${tag}:`,
    sentences: sentencesOf(descriptionOf(entry)),
    tail: keywords.length > 0 ? ` Keywords: ${keywords.join(', ')}.` : '',
  };
}

/**
 * One full entry: `name(required): packed description. Keywords: a, b.` The description gets a
 * full stop before the keywords when it ends without one, so they read as their own sentence.
 */
function fullLine(entry: EntryText, maxChars: number, warnings: string[]): string {
  const packed = packSentences(entry.sentences, maxChars);
  if (packed.clipped) warnings.push(`${entry.name}: first sentence exceeds ${maxChars} characters; clipped at a word boundary`);
  const description = packed.text === '' ? '' : ` ${packed.text}${entry.tail !== '' && !SENTENCE_ENDED.test(packed.text) ? '.' : ''}`;
  return `${entry.head}${description}${entry.tail}`;
}

function shortLine(entry: EntryText): string {
  const first = entry.sentences[0];
  return first === undefined ? entry.label : `${entry.label}: ${clipWords(first, SHORT_CHARS)}`;
}

interface Candidate {
  readonly level: ManifestLevel;
  readonly text: string;
  readonly warnings: readonly string[];
  readonly described: number;
}

/** The ladder's rungs that describe every tool, lazily: full at each description budget, then short. */
function* candidates(sorted: readonly EntryText[]): Generator<Candidate> {
  for (const maxChars of FULL_DESCRIPTION_CHARS) {
    const warnings: string[] = [];
    const text = sorted.map((entry) => fullLine(entry, maxChars, warnings)).join('\n');
    yield { level: 'full', text, warnings, described: sorted.length };
  }
  yield { level: 'short', text: sorted.map(shortLine).join('\n'), warnings: [], described: sorted.length };
}

function byCodeUnit(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Qualified names round-robin over servers (sorted by key), each server's in name order. */
function roundRobin(sorted: readonly Pick<CatalogEntry, 'server' | 'qualifiedName'>[]): string[] {
  const byServer = new Map<string, string[]>();
  for (const entry of sorted) {
    const names = byServer.get(entry.server) ?? [];
    names.push(entry.qualifiedName);
    byServer.set(entry.server, names);
  }
  const queues = [...byServer.keys()].sort(byCodeUnit).map((server) => byServer.get(server) ?? []);
  const order: string[] = [];
  for (let round = 0; order.length < sorted.length; round += 1) {
    for (const queue of queues) if (round < queue.length) order.push(queue[round]!);
  }
  return order;
}

/** The first `count` names of `priority`, sorted, then how many are left out. */
function partialNames(priority: readonly string[], count: number): string {
  const listed = priority.slice(0, count).sort(byCodeUnit);
  return `${listed.join('\n')}\n…and ${priority.length - count} more tools; search for them.`;
}

/**
 * The partial `names` rung: the most names (by binary search on the count) that fit with the
 * "…and N more" line; undefined when not even one does. Each listed name costs at least one
 * token and two characters, which bounds the search.
 */
function fitPartialNames(sorted: readonly CatalogEntry[], options: ManifestOptions, prefix: string): (Candidate & { listed: number }) | undefined {
  const priority = roundRobin(sorted);
  let low = 0;
  let high = Math.min(priority.length - 1, Math.floor(options.tokenBudget), Math.floor((options.maxChars ?? Infinity) / 2));
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(prefix + partialNames(priority, middle), options)) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? undefined : { level: 'names', text: partialNames(priority, low), warnings: [], described: 0, listed: low };
}

/** Every name in `sorted` order, the first `count` of `priority` as their `short` entry. */
function mixedLines(sorted: readonly EntryText[], rank: ReadonlyMap<string, number>, count: number): string {
  return sorted.map((entry) => ((rank.get(entry.name) ?? Infinity) < count ? shortLine(entry) : entry.name)).join('\n');
}

/**
 * The `mixed` rung: every tool named, the most `short` entries (by binary search on their count,
 * taken round-robin over servers) that fit; undefined when not one does. Called only when every
 * bare name fits and every short entry does not, so the count lies strictly between 0 and all.
 */
function fitMixed(sorted: readonly CatalogEntry[], texts: readonly EntryText[], options: ManifestOptions, prefix: string): Candidate | undefined {
  const rank = new Map(roundRobin(sorted).map((name, index) => [name, index]));
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(prefix + mixedLines(texts, rank, middle), options)) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? undefined : { level: 'mixed', text: mixedLines(texts, rank, low), warnings: [], described: low };
}

/** A rendered manifest before its token count. */
type Fitted = Omit<Manifest, 'tokens'>;

/** `fitted` with `tokens` counted on first read, so rendering alone never loads the tokenizer. */
function withTokens(fitted: Fitted): Manifest {
  let tokens: number | undefined;
  return Object.defineProperty({ ...fitted }, 'tokens', { enumerable: true, get: () => (tokens ??= countTokens(fitted.text)) }) as Manifest;
}

function fits(whole: string, options: ManifestOptions): boolean {
  if (options.maxChars !== undefined && whole.length > options.maxChars) return false;
  const budget = Number.isFinite(options.tokenBudget) ? Math.floor(options.tokenBudget) : 0;
  return withinTokens(whole, budget);
}

function fitManifest(entries: readonly CatalogEntry[], options: ManifestOptions, prefix: string): Fitted {
  const sorted = [...entries].sort((x, y) => byCodeUnit(x.qualifiedName, y.qualifiedName));
  // Each line costs at least one token (o200k splits at newlines), so more entries than budget
  // tokens cannot all be named; and when the names alone do not fit, no richer rung can.
  const names = sorted.map((entry) => entry.qualifiedName).join('\n');
  const allNames = sorted.length <= options.tokenBudget && fits(prefix + names, options);
  if (allNames) {
    const texts = sorted.map(entryText);
    for (const candidate of candidates(texts)) {
      if (fits(prefix + candidate.text, options)) return { ...candidate, listed: sorted.length };
    }
    const mixed = fitMixed(sorted, texts, options, prefix) ?? { level: 'names', text: names, warnings: [], described: 0 };
    return { ...mixed, listed: sorted.length };
  }
  const partial = fitPartialNames(sorted, options, prefix);
  if (partial !== undefined) return partial;
  const text = `${sorted.length} more tools are available; search for them.`;
  return { text, level: 'count', listed: 0, described: 0, warnings: [] };
}

/**
 * Renders the manifest of `entries` within `options.tokenBudget` tokens (and `maxChars`), taking
 * the first ladder rung that fits: full entries (descriptions packed to 400, 240, 160, then 100
 * characters) → `name: first sentence (≤ 60 chars)` → every name, as many as fit (taken round-robin
 * over servers) with that short entry → every name → as many names as fit (taken
 * round-robin over servers) and `…and N more tools; search for them.` → a bare count, which is
 * returned even when it does not fit. Lines are sorted by qualified name (code-unit order).
 * Never throws.
 */
export function renderManifest(entries: readonly CatalogEntry[], options: ManifestOptions): Manifest {
  return withTokens(fitManifest(entries, options, ''));
}

/**
 * The whole `tool_search` description as a Manifest: `text` is TOOL_SEARCH_PREAMBLE, a blank
 * line, then the manifest; the budget and `maxChars` apply to that whole string, and `tokens`
 * counts it. `warnings` name tools whose first sentence was clipped (for the gateway to log).
 */
export function describeToolSearch(entries: readonly CatalogEntry[], options: ManifestOptions): Manifest {
  const prefix = TOOL_SEARCH_PREAMBLE + SEPARATOR;
  const manifest = fitManifest(entries, options, prefix);
  const text = prefix + manifest.text;
  return withTokens({ ...manifest, text });
}

/** `describeToolSearch(entries, options).text`: the string to put in `tool_search`'s description. */
export function toolSearchDescription(entries: readonly CatalogEntry[], options: ManifestOptions): string {
  return describeToolSearch(entries, options).text;
}
