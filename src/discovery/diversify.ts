/**
 * The post-ranking step every tool_search ranking passes through (BM25, a host ranker, any fused
 * ranker): flooding tools are scored down and no upstream takes over the top results. Pure: a
 * function of a ranking, the query and a guard built once per catalogue.
 *
 * Rules (docs/security.md "Ranking under flooding"):
 * - Scored down: a tool `flooding.ts` marks (stuffed, or a near-duplicate of its server's others)
 *   is ranked after every other candidate, capped ones included (among exact names: after the
 *   other exact names), and never fills places past the cap.
 * - Cap: one upstream holds at most {@link CAPS} of the leading results (2 of the top 5, 3 of the
 *   top 10), unless the query names that server or one of its tools exactly, or says a word of its
 *   server key specific to it (serverWords.ts). A capped tool that
 *   is not flooding waits until the other candidates run out, so a search that only one server can
 *   answer still gets a full answer.
 */
import type { CatalogEntry } from '../catalog/types.js';
import { floodedTools, type FloodReason } from './flooding.js';
import { serverKeyWords, serversNamedByKeyWords } from './serverWords.js';

/** Per-server cap: at most `most` tools of one server within the first `within` results. */
export interface Cap {
  readonly within: number;
  readonly most: number;
}

/** 2 of the top 5, 3 of the top 10 (the trust rule in docs/security.md). */
export const CAPS: readonly Cap[] = [
  { within: 5, most: 2 },
  { within: 10, most: 3 },
];

/** How many candidates a ranker is asked for so the cap has others to choose from: this many times the limit, at least 10. */
export const CANDIDATE_FACTOR = 4;

/** The candidates to ask a ranker for when `limit` results are wanted. */
export function candidateCount(limit: number): number {
  return Math.max(10, Math.floor(limit) * CANDIDATE_FACTOR);
}

/** What the step knows of one catalogue. Built by {@link buildFloodGuard}. */
export interface FloodGuard {
  /** The server of a searchable qualified name. */
  serverOf(name: string): string | undefined;
  /** Scored-down tools and why. */
  readonly flooded: ReadonlyMap<string, FloodReason>;
  /** Lower-cased server keys and upstream / qualified tool names, to the servers they name. */
  readonly named: ReadonlyMap<string, ReadonlySet<string>>;
  /** Words of server keys specific to one server (serverWords.ts), to that server. */
  readonly keyWords: ReadonlyMap<string, string>;
  /** When false the step only truncates (the bench's "before"). */
  readonly enabled: boolean;
}

/**
 * The guard for `entries` (the searchable tools), flooding signals computed on first use.
 * `enabled: false` turns both rules off (bench/flood.mjs measures with and without).
 */
export function buildFloodGuard(entries: readonly CatalogEntry[], enabled = true): FloodGuard {
  const servers = new Map(entries.map((entry) => [entry.qualifiedName, entry.server]));
  const named = new Map<string, Set<string>>();
  for (const entry of entries) {
    // An upstream name counts only as a snake_case identifier: a flood server naming its tools `read`,
    // `file`, `YouTube`, `mp3` or `e-mail` would otherwise be named by everyday queries and lift its
    // own cap. Server keys are the user's own.
    const keys = compound(entry.upstreamName) ? [entry.server, entry.upstreamName, entry.qualifiedName] : [entry.server, entry.qualifiedName];
    for (const key of keys) {
      const owners = named.get(key.toLowerCase()) ?? new Set<string>();
      owners.add(entry.server);
      named.set(key.toLowerCase(), owners);
    }
  }
  let flooded: Map<string, FloodReason> | undefined;
  let keyWords: Map<string, string> | undefined;
  return {
    serverOf: (name) => servers.get(name),
    get flooded() {
      return (flooded ??= floodedTools(entries));
    },
    named,
    get keyWords() {
      return (keyWords ??= serverKeyWords(entries));
    },
    enabled,
  };
}

/**
 * Servers the query names: a word of the query (split at whitespace, quotes and punctuation other
 * than `_ - .`) equal, case-insensitively, to a server key or to one of its tools' qualified names,
 * or upstream names that are snake_case identifiers rather than words ({@link compound}); or a word of the
 * query equal to a word of a server key that is specific to that server (serverWords.ts: "Ant
 * Design" names `Ant-Design-Components`). An upstream name two servers share names both.
 */
export function namedServers(query: string, guard: FloodGuard): Set<string> {
  const found = serversNamedByKeyWords(query, guard.keyWords);
  for (const word of query.toLowerCase().split(/[^\p{L}\p{N}_.-]+/u)) {
    const owners = guard.named.get(word.replace(/^[.-]+|[.-]+$/g, ''));
    if (owners !== undefined) for (const server of owners) found.add(server);
  }
  return found;
}

/**
 * Whether a tool name is a snake_case identifier (`send_email`) rather than something an everyday
 * query may say: product names are camel-cased (`YouTube`, `iPhone`), and words carry hyphens and
 * digits (`e-mail`, `follow-up`, `mp3`, `2fa`); no ordinary word has an underscore.
 */
function compound(name: string): boolean {
  return /\p{L}_+\p{L}/u.test(name);
}

function capAt(position: number): number {
  for (const cap of CAPS) if (position < cap.within) return cap.most;
  return Infinity;
}

/** Stable: the items `flooded` leaves alone, then the flooded ones, each in their order. */
function scoreDown<T extends { readonly name: string }>(items: readonly T[], flooded: ReadonlyMap<string, FloodReason>): T[] {
  return [...items.filter((item) => !flooded.has(item.name)), ...items.filter((item) => flooded.has(item.name))];
}

/**
 * `ranked` (best first, any ranker) scored down and capped, at most `limit` long. The first
 * `exact` items (exact names or configured keyword phrases the ranker put first) stay ahead of
 * the rest, uncapped, reordered only by the score-down. Items whose server is unknown are never capped. Never throws.
 */
export function diversify<T extends { readonly name: string }>(ranked: readonly T[], query: string, guard: FloodGuard, limit: number, exact = 0): T[] {
  if (!guard.enabled) return ranked.slice(0, limit);
  const uncapped = namedServers(query, guard);
  const held = new Map<string, number>();
  const take = (item: T): void => {
    out.push(item);
    const server = guard.serverOf(item.name);
    if (server !== undefined) held.set(server, (held.get(server) ?? 0) + 1);
  };
  const allowed = (item: T): boolean => {
    const server = guard.serverOf(item.name);
    return server === undefined || uncapped.has(server) || (held.get(server) ?? 0) < capAt(out.length);
  };
  const out: T[] = [];
  // Exact names (and configured keyword phrases) were asked for by name: never capped.
  for (const item of scoreDown(ranked.slice(0, exact), guard.flooded).slice(0, limit)) take(item);
  const rest = ranked.slice(exact);
  const fair = rest.filter((item) => !guard.flooded.has(item.name));
  while (out.length < limit && fair.length > 0) {
    // The best candidate the cap allows here; when none is, the other servers ran out and the best one fills the place.
    const at = Math.max(0, fair.findIndex(allowed));
    take(fair.splice(at, 1)[0]!);
  }
  // Flooding tools come only after every other candidate, and never past the cap: an answer may be shorter.
  const flooding = rest.filter((item) => guard.flooded.has(item.name));
  for (let at = flooding.findIndex(allowed); out.length < limit && at >= 0; at = flooding.findIndex(allowed)) take(flooding.splice(at, 1)[0]!);
  return out;
}
