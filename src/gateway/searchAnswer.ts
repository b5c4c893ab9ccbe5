/**
 * tool_search's answer: the strong matches with their projected schema, the others by name and one
 * line, and a note the model acts on when nothing is strong or nothing matched. The same object goes
 * out as `structuredContent` and, serialised, as the text content. Pure.
 * Source: docs/tools.md ("The list", "Strong matches"); docs/search.md, "Answers".
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogEntry, JsonObject } from '../catalog/types.js';
import { hintsOf, hintWords } from '../discovery/risk.js';
import { packSentences, summaryLine } from '../discovery/sentences.js';
import { capSearchAnswer } from './searchAnswerCap.js';

/**
 * Longest description of a strong match, in code points: whole sentences from its start (the first
 * clipped at a word when longer). The tool's full description stays in its declaration once promoted;
 * the answer carries what picks and calls it. 160 keeps, with the hints on every match, the median
 * answer over the everyday requests (bench/fixtures/everyday.json) under a quarter of the full-schema
 * one (docs/search.md, "Answers"); it cuts mostly third sentences.
 */
export const STRONG_DESCRIPTION_CHARS = 160;

/** A strong match: callable right away with these parameters. */
export interface FullMatch {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  /** The behaviour hints the tool sets, in words (`read-only`, `destructive, open-world`; risk.ts hintWords); absent when it sets none of them. */
  readonly hints?: string;
}

/** Any other match: callable the same way; its parameters come with promotion, a bad call's answer, or an exact-name search. */
export interface NamedMatch {
  readonly name: string;
  readonly summary: string;
  /** As {@link FullMatch.hints}. */
  readonly hints?: string;
}

/** `{ hints }` with the annotations `entry` sets, in words, or `{}`: only what the upstream said (docs/security.md "Risky calls"). */
function hintsFieldOf(entry: CatalogEntry): { hints?: string } {
  const hints = hintWords(hintsOf(entry.tool));
  return hints === '' ? {} : { hints };
}

/** `structuredContent` of tool_search; the text content is its compact JSON. */
export interface SearchAnswer {
  readonly tools: readonly (FullMatch | NamedMatch)[];
  /** Present when some tools are listed by name only, when nothing is strong, or when nothing matched. */
  readonly note?: string;
  /** True when no match is strong. */
  readonly weak?: true;
  /** Tools the query names that are held for review, each with why and how the user approves it (docs/security.md). */
  readonly held?: readonly string[];
}

/** The one-line summary of `entry` (sentences.ts `summaryLine`): of its own description, else the advertised one. */
export function summaryOf(entry: CatalogEntry): string {
  const own = entry.tool.description;
  const text = typeof own === 'string' && own.trim() !== '' ? own : entry.projected.description;
  return summaryLine(text);
}

const REPHRASE = 'Rephrase with the action and the object (e.g. "read file", "create issue")';

/** The note when nothing matched (unchanged since the CLI prints it). */
export function noMatchNote(query: string): string {
  return `No tool matches "${query}". ${REPHRASE}, or use a name from the index in this tool's description.`;
}

/**
 * The weak note: the tools listed are only the closest (neither their names nor the query are
 * repeated: the answer is read right after both).
 */
export const WEAK_NOTE = `No tool clearly matches; these are only the closest. ${REPHRASE}, pick one by name, or say no tool does it.`;

/**
 * How to get a summary-only match's parameters. Not sent in tool_search answers (their bytes went to
 * every answer; the tool's description says matches are callable by name); the CLI prints it.
 */
export const NAMED_NOTE = 'Tools with a summary are callable too; search an exact name for its parameters.';

/**
 * The strong match's parameters as the answer sends them: the projected schema without `$schema` and
 * without its top-level `type: "object"`, which every tool's inputSchema has (MCP spec 2025-11-25,
 * Server › Tools › Tool: `inputSchema` is a JSON Schema object with `type: "object"`); neither tells a
 * model anything. Properties, their types and `required` are kept whole.
 */
export function answerParameters(schema: JsonObject): JsonObject {
  const { $schema: _dialect, ...rest } = schema;
  if (rest.type !== 'object') return rest;
  const { type: _object, ...members } = rest;
  return members;
}

/**
 * The answer for `entries` (ranked, best first) where `strong` names the strong ones (a prefix of
 * them, by rank): each strong entry as `{ name, description, parameters }` (the description's first
 * sentences up to {@link STRONG_DESCRIPTION_CHARS}, the projected schema as {@link answerParameters} sends it), each other
 * as `{ name, summary }`. Notes: no entries → the no-match note; weak (no strong entry) → that these
 * are only the closest and how to rephrase, `weak: true`. Never `isError`: a search that finds little
 * is still an answer. Kept within MAX_SEARCH_ANSWER_BYTES by `capSearchAnswer` (searchAnswerCap.ts).
 */
export function searchResult(entries: readonly CatalogEntry[], query: string, strong: readonly string[], held: readonly string[] = []): CallToolResult {
  const strongSet = new Set(strong);
  const tools = entries.map((entry): FullMatch | NamedMatch =>
    strongSet.has(entry.qualifiedName)
      ? { name: entry.qualifiedName, description: packSentences(entry.projected.description, STRONG_DESCRIPTION_CHARS).text, parameters: answerParameters(entry.projected.inputSchema), ...hintsFieldOf(entry) }
      : { name: entry.qualifiedName, summary: summaryOf(entry), ...hintsFieldOf(entry) },
  );
  const full = tools.filter((tool) => 'parameters' in tool).length;
  let answer: SearchAnswer;
  if (tools.length === 0) answer = { tools, note: noMatchNote(query) };
  else if (full === 0) answer = { tools, weak: true, note: WEAK_NOTE };
  else answer = { tools };
  if (held.length > 0) answer = { ...answer, held };
  answer = capSearchAnswer(answer);
  return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer as unknown as Record<string, unknown> };
}
