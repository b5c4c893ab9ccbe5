/**
 * Parses a retrieval set (the JSONL pair of shared/data/retrieval/) into catalogue entries and
 * judged queries, so `toolshelf eval` and the benchmark run the server's own index code. Pure:
 * takes file text, reads nothing.
 * Source: shared/data/README.md (file formats); docs/cli.md (`toolshelf eval`).
 */
import type { CatalogEntry, JsonObject } from '../catalog/types.js';
import type { JudgedQuery } from './metrics.js';
import type { PlainTool } from './plainBm25.js';

/** A parse failure: 1-based line number and what was wrong. */
export interface LineProblem {
  readonly line: number;
  readonly message: string;
}

/** Parsed lines plus the lines that were skipped with a reason. */
export interface Parsed<T> {
  readonly items: T[];
  readonly problems: LineProblem[];
}

function parseLines<T>(text: string, check: (value: unknown) => T | string): Parsed<T> {
  const items: T[] = [];
  const problems: LineProblem[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push({ line: index + 1, message: `invalid JSON: ${(error as Error).message}` });
      return;
    }
    const checked = check(value);
    if (typeof checked === 'string') problems.push({ line: index + 1, message: checked });
    else items.push(checked);
  });
  return { items, problems };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** tools.jsonl text → `{ name, description?, inputSchema }` per line (name must be a non-empty string). */
export function parseTools(text: string): Parsed<PlainTool> {
  return parseLines(text, (value) => {
    if (!isObject(value) || typeof value.name !== 'string' || value.name === '') return 'missing "name"';
    const description = typeof value.description === 'string' ? value.description : undefined;
    const inputSchema = isObject(value.inputSchema) ? value.inputSchema : { type: 'object' };
    return { name: value.name, description, inputSchema };
  });
}

/** queries.jsonl text → judged queries (`query` a string, `relevant` an array of strings). */
export function parseQueries(text: string): Parsed<JudgedQuery & { readonly subset?: string }> {
  return parseLines(text, (value) => {
    if (!isObject(value) || typeof value.query !== 'string') return 'missing "query"';
    if (!Array.isArray(value.relevant)) return 'missing "relevant"';
    const groups = Array.isArray(value.relevant_groups) ? (value.relevant_groups as string[][]) : undefined;
    return {
      id: String(value.id ?? ''),
      query: value.query,
      relevant: value.relevant.map(String),
      ...(groups ? { relevant_groups: groups } : {}),
      ...(typeof value.subset === 'string' ? { subset: value.subset } : {}),
    };
  });
}

/**
 * A retrieval-set tool as a deferred catalogue entry: qualified name = the tool's name; server =
 * the prefix before the first `__` when there is one (else empty); projected = canonical.
 */
export function toCatalogEntry(tool: PlainTool): CatalogEntry {
  const cut = tool.name.indexOf('__');
  const server = cut > 0 ? tool.name.slice(0, cut) : '';
  const upstreamName = cut > 0 ? tool.name.slice(cut + 2) : tool.name;
  const inputSchema = (isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' }) as JsonObject;
  const bytes = Buffer.byteLength(JSON.stringify(inputSchema));
  const description = tool.description ?? `Tool ${upstreamName}`;
  return {
    qualifiedName: tool.name,
    server,
    upstreamName,
    exposure: 'deferred',
    keywords: [],
    tool: { name: upstreamName, description: tool.description, inputSchema },
    canonicalSchema: inputSchema,
    projected: { description, inputSchema, rung: 0, canonicalBytes: bytes, projectedBytes: bytes, withinBudget: true, fields: {}, leftOut: [] },
  };
}
