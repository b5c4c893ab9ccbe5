/**
 * The host ranker: a module named in the config (`discovery.ranker`) that exports
 * `rank(query, tools, limit)`. Owns loading it and calling it under a time limit; every failure
 * (load error, throw, time-out, nothing usable returned) becomes a reason string, never an
 * exception. Leaves the BM25 fallback and exact-name handling to `rank.ts`.
 * Source: docs/search.md (host ranker, rankMode); `test/discovery/rank.test.ts` (failures fall back with the reason traced).
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CatalogEntry, JsonObject } from '../catalog/types.js';
import { err, ok, type Result } from '../lib/result.js';

/** What a host ranker receives per tool: the qualified name and what goes on the wire. */
export interface RankerTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

/**
 * The contract a ranker module exports as `rank`. May be sync or async. Returns names best
 * first, as strings or `{ name, score? }` objects; anything else counts as no result.
 */
export type HostRankFn = (query: string, tools: readonly RankerTool[], limit: number) => unknown;

export interface HostRanker {
  readonly rank: HostRankFn;
  /** The module specifier it was loaded from (for logs). */
  readonly source: string;
}

/** A ranker's usable answer: known names, best first, with the first hit's score when it gave one. */
export type HostAnswer = { readonly names: string[]; readonly topScore?: number };

/** The searchable tools as a host ranker sees them, plus their names for checking its answers. */
export interface RankerCatalogue {
  readonly tools: readonly RankerTool[];
  readonly names: ReadonlySet<string>;
}

/** Deferred entries as the tools a host ranker sees (projected description and schema). Build once per catalogue. */
export function rankerCatalogueOf(entries: readonly CatalogEntry[]): RankerCatalogue {
  const tools = entries.map((entry) => ({
    name: entry.qualifiedName,
    description: entry.projected.description,
    inputSchema: entry.projected.inputSchema,
  }));
  return { tools, names: new Set(tools.map((tool) => tool.name)) };
}

/**
 * Imports the ranker module at `modulePath` (relative paths resolve against `baseDir`, the config's
 * folder; bare specifiers go to Node's resolver). Err with a reason when the import fails or the
 * module has no `rank` function (a default export's `rank` is accepted too).
 */
export async function loadHostRanker(modulePath: string, baseDir: string): Promise<Result<HostRanker, string>> {
  const local = modulePath.startsWith('.') || isAbsolute(modulePath);
  const specifier = local ? pathToFileURL(resolve(baseDir, modulePath)).href : modulePath;
  try {
    const loaded = (await import(specifier)) as { rank?: unknown; default?: { rank?: unknown } };
    const rank = typeof loaded.rank === 'function' ? loaded.rank : loaded.default?.rank;
    if (typeof rank !== 'function') return err(`ranker module ${modulePath} exports no rank function`);
    return ok({ rank: rank as HostRankFn, source: modulePath });
  } catch (error) {
    return err(`ranker module ${modulePath} failed to load: ${messageOf(error)}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Names (and the first score) from whatever the ranker returned, keeping only `known` names. */
function readAnswer(value: unknown, known: ReadonlySet<string>, limit: number): HostAnswer | string {
  if (!Array.isArray(value) || value.length === 0) return 'ranker returned no result';
  const names: string[] = [];
  let topScore: number | undefined;
  for (const item of value) {
    const record = typeof item === 'object' && item !== null ? (item as { name?: unknown; score?: unknown }) : {};
    const name = typeof item === 'string' ? item : record.name;
    if (typeof name !== 'string' || !known.has(name) || names.includes(name)) continue;
    const score = record.score;
    if (names.length === 0 && typeof score === 'number' && Number.isFinite(score)) topScore = score;
    names.push(name);
    if (names.length >= limit) break;
  }
  if (names.length === 0) return 'ranker returned only unknown names';
  return topScore === undefined ? { names } : { names, topScore };
}

/**
 * Calls `ranker.rank(query, catalogue.tools, limit)` and waits at most `timeoutMs`. Names not in the catalogue
 * (invented, or outside the searchable set) are dropped. Resolves, never rejects: Ok with at
 * least one known name, or Err with the reason (`ranker threw: …`, `ranker timed out after N ms`,
 * `ranker returned no result`, `ranker returned only unknown names`). A ranker that blocks the
 * event loop synchronously cannot be interrupted; the time limit covers asynchronous work.
 */
export async function callHostRanker(
  ranker: HostRanker,
  query: string,
  catalogue: RankerCatalogue,
  limit: number,
  timeoutMs: number,
): Promise<Result<HostAnswer, string>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((done) => {
    timer = setTimeout(() => done(`ranker timed out after ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const answer = await Promise.race([
      Promise.resolve()
        .then(() => ranker.rank(query, catalogue.tools, limit))
        .then((value) => readAnswer(value, catalogue.names, limit)),
      timeout,
    ]);
    return typeof answer === 'string' ? err(answer) : ok(answer);
  } catch (error) {
    return err(`ranker threw: ${messageOf(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
