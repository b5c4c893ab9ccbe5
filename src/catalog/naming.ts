/**
 * Qualified names: sanitise, prefix, cap length, and resolve collisions with a short hash suffix;
 * names already given out keep their holder. Pure and deterministic. Source: docs/configuration.md (`naming`, `prefix`).
 */
import { createHash } from 'node:crypto';

/** Names reserved for toolshelf's bridge tools (docs/tools.md): no upstream tool may take them. */
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
 * name never changes when another upstream comes or goes (docs/configuration.md: every name routes to one tool):
 * sanitised, with the separator removed from inside the key (so the first separator in a qualified
 * name always ends the prefix), and a short hash added to a prefix that another key already took.
 */
export function serverPrefixes(keys: readonly string[], separator: string): Map<string, string> {
  const replacement = separator.includes('_') ? '-' : '_';
  const prefixes = new Map<string, string>();
  const taken = new Set<string>();
  for (const key of [...keys].sort(compare)) {
    let prefix = separatorFree(sanitizeName(key), separator, replacement);
    if (taken.has(prefix)) prefix = separatorFree(`${prefix}${replacement}${hashSuffix(key, '').slice(0, 4)}`, separator, replacement);
    taken.add(prefix);
    prefixes.set(key, prefix);
  }
  return prefixes;
}

/**
 * `prefix` made such that in `prefix + separator + tool` the first separator is the one after the
 * prefix: each separator inside it becomes `replacement`, and a tail that starts the separator is cut
 * (`my server!` sanitises to `my_server_`, whose `_` before `__` made `my_server___tool`, read back as
 * server `my_server`). Never empty: `server` stands in for a key with nothing left.
 */
function separatorFree(prefix: string, separator: string, replacement: string): string {
  let free = prefix;
  while (free.includes(separator)) free = free.split(separator).join(replacement);
  while (free.length > 0 && `${free}${separator}`.indexOf(separator) < free.length) free = free.slice(0, -1);
  return free.length > 0 ? free : separatorFree('server', separator, replacement);
}

/**
 * The server key whose prefix starts qualified name `name` (the first `separator` ends a prefix, see
 * {@link serverPrefixes}); undefined when no configured prefix does. Pure.
 */
export function serverOfName(name: string, prefixes: ReadonlyMap<string, string>, separator: string): string | undefined {
  const cut = name.indexOf(separator);
  if (cut <= 0) return undefined;
  const prefix = name.slice(0, cut);
  for (const [key, given] of prefixes) if (given === prefix) return key;
  return undefined;
}

/**
 * A refused name: two unprefixed tools (or an unprefixed tool and a prefixed one) want the same name.
 * The first of each pair holds `name`; the second was given `given` instead.
 */
export interface NameCollision {
  readonly name: string;
  readonly servers: readonly [string, string];
  readonly tools: readonly [string, string];
  readonly given: string;
}

/** The upstream tool a qualified name routes to, and whether its server is prefixed. */
export type NameHolder = NameRequest;

/**
 * Every name given out so far: qualified name → its holder. Immutable; the composition root passes the
 * last result's {@link NamingResult.given} to the next call so a name keeps its meaning for the life of
 * the process.
 */
export type GivenNames = ReadonlyMap<string, NameHolder>;

/** The total map: `names[i]` is the qualified name of `requests[i]`; collisions on unprefixed servers are listed. */
export interface NamingResult {
  readonly names: readonly string[];
  readonly collisions: readonly NameCollision[];
  /** `previous` plus every name given now: pass it to the next call. */
  readonly given: GivenNames;
}

/** Replaces every character outside `[A-Za-z0-9_-]` with `_` (model APIs reject others; docs/configuration.md). */
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
 * Names every request. A request that `previous` already named keeps that name, and a name in
 * `previous` is never given to another tool, even once its holder is gone: a re-list that adds `get.item`
 * beside `get_item`, or a second `prefix: false` server's `deploy`, gives the later tool the suffix. The rest are processed in sorted (server, tool) order so the result does not depend on the
 * order upstreams answered: the first holder of a plain name keeps it; a later one, an over-long name, or
 * a bridge tool name gets a hash suffix. A collision involving an unprefixed server is reported (docs/configuration.md:
 * refused at start with both servers named; later, the later tool is suffixed and warned about).
 */
export function assignNames(requests: readonly NameRequest[], options: NamingOptions, previous: GivenNames = new Map()): NamingResult {
  const order = requests
    .map((req, index) => ({ req, index }))
    .sort((a, b) => compare(a.req.server, b.req.server) || compare(a.req.tool, b.req.tool));
  const names: string[] = new Array<string>(requests.length);
  const taken = new Map<string, NameHolder>(previous);
  const before = new Map<string, string>();
  for (const [name, holder] of previous) before.set(holderKey(holder), name);
  const collisions: NameCollision[] = [];
  const fresh = order.filter(({ req, index }) => {
    const kept = before.get(holderKey(req));
    if (kept !== undefined) names[index] = kept;
    return kept === undefined;
  });
  for (const { req, index } of fresh) {
    const prefix = options.prefixes?.get(req.server) ?? sanitizeName(req.server);
    const plain = req.prefix ? `${prefix}${options.separator}${sanitizeName(req.tool)}` : sanitizeName(req.tool);
    let name = plain;
    const holder = taken.get(plain);
    if (holder || plain.length > options.maxLength || BRIDGE_TOOL_NAMES.has(plain)) name = withHash(plain, req, options.maxLength);
    while (taken.has(name)) name = withHash(`${name}x`, req, options.maxLength);
    if (holder && (!holder.prefix || !req.prefix)) {
      collisions.push({ name: plain, servers: [holder.server, req.server], tools: [holder.tool, req.tool], given: name });
    }
    taken.set(name, { server: req.server, tool: req.tool, prefix: req.prefix });
    names[index] = name;
  }
  return { names, collisions, given: taken };
}

function holderKey(holder: { readonly server: string; readonly tool: string }): string {
  return `${holder.server}\u0000${holder.tool}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
