/**
 * Qualified names: sanitise, prefix, cap length, and resolve collisions with a short hash suffix.
 * Pure and deterministic. Source: DESIGN §4.
 */
import { createHash } from 'node:crypto';

/** Names reserved for toolshelf's bridge tools (DESIGN §5): no upstream tool may take them. */
export const BRIDGE_TOOL_NAMES: ReadonlySet<string> = new Set(['tool_search', 'call_tool']);

/** One upstream tool to name: its server key, upstream name, and whether its server is prefixed. */
export interface NameRequest {
  readonly server: string;
  readonly tool: string;
  readonly prefix: boolean;
}

/** Options: separator (default `__`) and the longest name in characters (default 48). */
export interface NamingOptions {
  readonly separator: string;
  readonly maxLength: number;
  /** Name prefix per server key, from {@link serverPrefixes}; a key missing here is sanitised as is. */
  readonly prefixes?: ReadonlyMap<string, string>;
}

/**
 * The prefix of every configured server, decided from the config's keys alone so that a qualified
 * name never changes when another upstream comes or goes (DESIGN §4: a total, collision-free map):
 * sanitised, with the separator removed from inside the key (so the first separator in a qualified
 * name always ends the prefix), and a short hash added to a prefix that another key already took.
 */
export function serverPrefixes(keys: readonly string[], separator: string): Map<string, string> {
  const replacement = separator.includes('_') ? '-' : '_';
  const prefixes = new Map<string, string>();
  const taken = new Set<string>();
  for (const key of [...keys].sort(compare)) {
    let prefix = sanitizeName(key);
    while (prefix.includes(separator)) prefix = prefix.split(separator).join(replacement);
    if (taken.has(prefix)) prefix = `${prefix}${replacement}${hashSuffix(key, '').slice(0, 4)}`;
    taken.add(prefix);
    prefixes.set(key, prefix);
  }
  return prefixes;
}

/** A refused name: two unprefixed tools (or an unprefixed tool and a prefixed one) want the same name. */
export interface NameCollision {
  readonly name: string;
  readonly servers: readonly [string, string];
  readonly tools: readonly [string, string];
}

/** The total map: `names[i]` is the qualified name of `requests[i]`; collisions on unprefixed servers are listed. */
export interface NamingResult {
  readonly names: readonly string[];
  readonly collisions: readonly NameCollision[];
}

/** Replaces every character outside `[A-Za-z0-9_-]` with `_` (model APIs reject others; DESIGN §4). */
export function sanitizeName(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_-]/g, '_');
  return cleaned.length > 0 ? cleaned : '_';
}

/** 6 hex characters of SHA-256 over server and tool: stable across processes and platforms. */
function hashSuffix(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 6);
}

/** Shortens `base` to fit `maxLength` with `_<hash>` at the end. */
function withHash(base: string, req: NameRequest, maxLength: number): string {
  const suffix = `_${hashSuffix(req.server, req.tool)}`;
  return base.slice(0, Math.max(1, maxLength - suffix.length)) + suffix;
}

/**
 * Names every request. Requests are processed in sorted (server, tool) order so the result does not
 * depend on the order upstreams answered. The first holder of a plain name keeps it; a later one, an
 * over-long name, or a bridge tool name gets a hash suffix. When an unprefixed server is involved in a
 * collision it is reported (DESIGN §4: refused at start with both servers named).
 */
export function assignNames(requests: readonly NameRequest[], options: NamingOptions): NamingResult {
  const order = requests
    .map((req, index) => ({ req, index }))
    .sort((a, b) => compare(a.req.server, b.req.server) || compare(a.req.tool, b.req.tool));
  const names: string[] = new Array<string>(requests.length);
  const taken = new Map<string, NameRequest>();
  const collisions: NameCollision[] = [];
  for (const { req, index } of order) {
    const prefix = options.prefixes?.get(req.server) ?? sanitizeName(req.server);
    const plain = req.prefix ? `${prefix}${options.separator}${sanitizeName(req.tool)}` : sanitizeName(req.tool);
    let name = plain;
    const holder = taken.get(plain);
    if (holder && (!holder.prefix || !req.prefix)) {
      collisions.push({ name: plain, servers: [holder.server, req.server], tools: [holder.tool, req.tool] });
    }
    if (holder || plain.length > options.maxLength || BRIDGE_TOOL_NAMES.has(plain)) name = withHash(plain, req, options.maxLength);
    while (taken.has(name)) name = withHash(`${name}x`, req, options.maxLength);
    taken.set(name, req);
    names[index] = name;
  }
  return { names, collisions };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
