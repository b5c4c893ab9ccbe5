/**
 * Reads an upstream's whole `tools/list`, page by page, and parses it permissively: a malformed tool
 * is dropped with a reason naming it, the others stay verbatim (unknown fields kept).
 * Source: MCP spec, Server features › Tools › Listing tools; issue #2 (SDK listTools rejects the whole
 * list for one bad tool and strips unknown fields).
 */
import type { UpstreamTool } from '../catalog/types.js';

/** One dropped tool and why. */
export interface SkippedTool {
  readonly name: string;
  readonly reason: string;
}

/** Tools kept and tools dropped. */
export interface ParsedTools {
  readonly tools: UpstreamTool[];
  readonly skipped: SkippedTool[];
}

/** Safety stop for servers whose cursors never end. */
export const MAX_PAGES = 1000;

/**
 * Parses one page's `tools` value. A tool is kept when it is an object with a non-empty string
 * `name` and an object `inputSchema`; a non-string `description` is removed. Duplicate names keep
 * the first.
 */
export function parseToolsPage(value: unknown, seen: Set<string> = new Set()): ParsedTools {
  const tools: UpstreamTool[] = [];
  const skipped: SkippedTool[] = [];
  if (!Array.isArray(value)) return { tools, skipped: [{ name: '(page)', reason: '"tools" is not an array' }] };
  value.forEach((item: unknown, index) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      skipped.push({ name: `#${index}`, reason: 'not an object' });
      return;
    }
    const record = item as Record<string, unknown>;
    const name = typeof record.name === 'string' && record.name.length > 0 ? record.name : undefined;
    const label = name ?? `#${index}`;
    const schema = record.inputSchema;
    if (!name) skipped.push({ name: label, reason: 'missing or empty "name"' });
    else if (seen.has(name)) skipped.push({ name: label, reason: 'duplicate name' });
    else if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
      skipped.push({ name: label, reason: '"inputSchema" is not an object' });
    else {
      seen.add(name);
      const { description, ...rest } = record;
      tools.push((typeof description === 'string' ? { ...rest, description } : rest) as UpstreamTool);
    }
  });
  return { tools, skipped };
}

/**
 * Fetches every page with `fetchPage(cursor)` (which returns the raw result object) and merges them.
 * Stops at a missing, empty or repeated cursor, or after {@link MAX_PAGES}. Errors from `fetchPage` propagate.
 */
export async function listAllTools(fetchPage: (cursor: string | undefined) => Promise<Record<string, unknown>>): Promise<ParsedTools> {
  const all: ParsedTools = { tools: [], skipped: [] };
  const seenNames = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    const parsed = parseToolsPage(result.tools, seenNames);
    all.tools.push(...parsed.tools);
    all.skipped.push(...parsed.skipped);
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '' || seenCursors.has(next)) break;
    seenCursors.add(next);
    cursor = next;
  }
  return all;
}
