/**
 * Reads an upstream's whole `tools/list`, page by page, and parses it permissively: a malformed tool
 * is dropped with a reason naming it, the others stay verbatim (unknown fields kept). A hostile
 * listing stays bounded: at most {@link MAX_PAGES} pages and {@link MAX_TOOLS} tools, no page asked
 * for after a deadline, and its warnings summarised in a few lines however many tools were dropped.
 * Source: MCP spec, Server features › Tools › Listing tools; docs/robustness.md (the SDK's listTools rejects
 * the whole list for one bad tool and strips unknown fields); `test/upstream/listTools.test.ts` (1,000 pages × 2,000 repeated
 * names: 1,998,000 warning lines and a start-up past its timeout).
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

/** Why a listing ended before the server's last page. */
export type ListingStop = 'pages' | 'tools' | 'deadline';

/** A whole listing: the tools kept, the first dropped ones named, every drop counted by reason. */
export interface ToolListing {
  readonly tools: UpstreamTool[];
  /** The first {@link NAMED_DROPS} dropped tools. */
  readonly named: SkippedTool[];
  /** Count of every dropped tool by reason. */
  readonly dropped: Map<string, number>;
  readonly pages: number;
  /** Set when the listing stopped early. */
  readonly stoppedBy?: ListingStop;
}

/** Safety stop for servers whose cursors never end. */
export const MAX_PAGES = 1000;
/** Most tools kept from one upstream (four times the 5,000 of the largest test fixture); the rest of its listing is not read. */
export const MAX_TOOLS = 20_000;
/** Dropped tools named one by one in the warnings of one listing; the rest are counted. */
export const NAMED_DROPS = 10;

/**
 * Parses one page's `tools` value. A tool is kept when it is an object with a non-empty string
 * `name` and an object `inputSchema` (`true`, the schema accepting anything, is read as `{}`); a
 * non-string `description` is removed. Duplicate names keep
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
    // `true` is the schema that accepts anything, `{}` spelled as a boolean (JSON Schema 2020-12 §4.3.2).
    const schema = record.inputSchema === true ? {} : record.inputSchema;
    if (!name) skipped.push({ name: label, reason: 'missing or empty "name"' });
    else if (seen.has(name)) skipped.push({ name: label, reason: 'duplicate name' });
    else if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
      skipped.push({ name: label, reason: '"inputSchema" is not an object' });
    else {
      seen.add(name);
      const { description, ...rest } = record;
      rest.inputSchema = schema;
      tools.push((typeof description === 'string' ? { ...rest, description } : rest) as UpstreamTool);
    }
  });
  return { tools, skipped };
}

/**
 * Fetches every page with `fetchPage(cursor, timeoutMs)` (which returns the raw result object; the
 * time left until `deadline`, an epoch time in ms, is its time limit) and merges them. Stops at a
 * missing, empty or repeated cursor, after {@link MAX_PAGES} pages, at {@link MAX_TOOLS} tools, or
 * when `deadline` has passed between two pages (what was listed is kept). Errors from `fetchPage`
 * propagate.
 */
export async function listAllTools(
  fetchPage: (cursor: string | undefined, timeoutMs: number) => Promise<Record<string, unknown>>,
  deadline: number,
): Promise<ToolListing> {
  const tools: UpstreamTool[] = [];
  const named: SkippedTool[] = [];
  const dropped = new Map<string, number>();
  const seenNames = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const result = await fetchPage(cursor, Math.max(1, deadline - Date.now()));
    const parsed = parseToolsPage(result.tools, seenNames);
    const room = MAX_TOOLS - tools.length;
    tools.push(...parsed.tools.slice(0, room));
    named.push(...parsed.skipped.slice(0, NAMED_DROPS - named.length));
    for (const { reason } of parsed.skipped) dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
    const next = typeof result.nextCursor === 'string' && result.nextCursor !== '' && !seenCursors.has(result.nextCursor) ? result.nextCursor : undefined;
    const stoppedBy = stopAfterPage(parsed.tools.length > room, next !== undefined, tools.length, pages, deadline);
    if (stoppedBy) return { tools, named, dropped, pages, stoppedBy };
    if (next === undefined) return { tools, named, dropped, pages };
    seenCursors.add(next);
    cursor = next;
  }
}

/** Why a listing stops after a page although the server has more (or had more tools than fit), or undefined to go on. */
function stopAfterPage(overflowed: boolean, more: boolean, kept: number, pages: number, deadline: number): ListingStop | undefined {
  if (overflowed || (more && kept >= MAX_TOOLS)) return 'tools';
  if (!more) return undefined;
  if (pages >= MAX_PAGES) return 'pages';
  return Date.now() >= deadline ? 'deadline' : undefined;
}

/**
 * The warnings for `listing`, at most {@link NAMED_DROPS} + 2 lines: each named drop
 * (`dropped tool x: duplicate name`), one line counting the rest by reason, and one saying why the
 * listing stopped early. `timeLimitMs` is the time limit the listing ran under, for that line.
 */
export function listingWarnings(listing: ToolListing, timeLimitMs: number): string[] {
  const lines = listing.named.map((s) => `dropped tool ${s.name}: ${s.reason}`);
  const rest = new Map(listing.dropped);
  for (const { reason } of listing.named) rest.set(reason, (rest.get(reason) ?? 0) - 1);
  const more = [...rest].filter(([, n]) => n > 0);
  if (more.length > 0) {
    const total = more.reduce((sum, [, n]) => sum + n, 0);
    lines.push(`…and ${total} more dropped (reasons: ${more.map(([reason, n]) => `${reason} ×${n}`).join(', ')})`);
  }
  const kept = `kept the ${listing.tools.length} tools listed`;
  if (listing.stoppedBy === 'tools') lines.push(`stopped listing at ${MAX_TOOLS} tools, the most kept from one upstream; the rest are not served`);
  if (listing.stoppedBy === 'pages') lines.push(`stopped listing after ${MAX_PAGES} pages (the cursor never ended); ${kept}`);
  if (listing.stoppedBy === 'deadline') lines.push(`stopped listing after ${listing.pages} pages: it took longer than ${timeLimitMs} ms; ${kept}`);
  return lines;
}
