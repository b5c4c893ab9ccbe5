/**
 * The size guard on a tool_search answer: a strong match whose parameters would make the answer too
 * large is sent with its required parameters only, or else by name and summary, with a note saying
 * how to call it. An answer within the cap is returned as it is, byte for byte. Pure.
 * Source: docs/search.md, "Answers".
 */
import { summaryLine } from '../discovery/sentences.js';

/**
 * Most bytes of a tool_search answer's JSON (its text content; `structuredContent` carries the same
 * object): 64 KiB, about 16,000 tokens. Everyday answers are a few KB (bench/fixtures/everyday.json);
 * one tool with 20,000 properties made a single answer over a megabyte.
 */
export const MAX_SEARCH_ANSWER_BYTES = 64 * 1024;

type Json = Record<string, unknown>;

/** A search answer as the guard sees it: matches with `parameters` are the strong ones. */
export interface SizedAnswer {
  readonly tools: readonly object[];
  readonly note?: string;
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** `parameters` with only the properties it requires (every other key kept). */
function requiredOnly(parameters: Json): Json {
  const properties = parameters.properties;
  const required = Array.isArray(parameters.required) ? parameters.required.filter((name): name is string => typeof name === 'string') : [];
  if (typeof properties !== 'object' || properties === null) return parameters;
  const kept = Object.fromEntries(required.filter((name) => Object.hasOwn(properties, name)).map((name) => [name, (properties as Json)[name]]));
  return { ...parameters, properties: kept };
}

/** How many properties `parameters` declares at its top level. */
function propertyCount(parameters: Json): number {
  const properties = parameters.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties).length : 0;
}

/**
 * `answer` within {@link MAX_SEARCH_ANSWER_BYTES}, or `answer` itself when it already is. Strong
 * matches are cut largest parameters first: to their required properties (callable with those; the
 * full schema is in the tool's tools/list entry once listed), then, while still over, to their name
 * and summary. A note names each cut match and how to call it.
 */
export function capSearchAnswer<T extends SizedAnswer>(answer: T): T {
  if (bytesOf(answer) <= MAX_SEARCH_ANSWER_BYTES) return answer;
  const tools = [...answer.tools] as Json[];
  const trimmed: string[] = [];
  const named: string[] = [];
  const capped = (): T => {
    const notes = [
      ...(answer.note !== undefined ? [answer.note] : []),
      ...(trimmed.length > 0 ? [`The parameters of ${trimmed.join(', ')} are too many for this answer: only the required ones are shown. Call it with those (and any other it documents); its full schema is in its tools/list entry once listed.`] : []),
      ...(named.length > 0 ? [`${named.join(', ')} ${named.length === 1 ? 'is' : 'are'} given by name only for the same reason: call it by name; a call with wrong arguments is answered with what is wrong.`] : []),
    ];
    return { ...answer, tools, note: notes.join(' ') };
  };
  const strong = tools.flatMap((tool, index) => ('parameters' in tool ? [{ index, bytes: bytesOf(tool.parameters) }] : []));
  strong.sort((a, b) => b.bytes - a.bytes);
  for (const { index } of strong) {
    if (bytesOf(capped()) <= MAX_SEARCH_ANSWER_BYTES) break;
    const tool = tools[index]!;
    const parameters = tool.parameters as Json;
    tools[index] = { ...tool, parameters: requiredOnly(parameters) };
    trimmed.push(`${String(tool.name)} (${propertyCount(parameters)} properties)`);
  }
  for (const { index } of strong) {
    if (bytesOf(capped()) <= MAX_SEARCH_ANSWER_BYTES) break;
    const { parameters: _cut, description, ...rest } = tools[index]!;
    tools[index] = { ...rest, summary: summaryLine(String(description ?? '')) };
    named.push(String(rest.name));
    trimmed.splice(trimmed.findIndex((t) => t.startsWith(`${String(rest.name)} (`)), 1);
  }
  return capped();
}
