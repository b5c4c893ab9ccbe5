/**
 * Local `$ref` handling shared by preparation and compaction: resolving `#`, `#/json/pointer` and
 * `#anchor` references, finding which definitions are reachable, and dropping references whose target
 * is gone so the schema still compiles. Remote references are never fetched (schemas are pure data).
 * Source: docs/tools.md; JSON Schema 2020-12 §8.2 (`$ref`, `$anchor`, `$defs`), draft-07 `definitions`.
 */

import type { JsonObject } from '../catalog/types.js';
import { within } from './pointers.js';
import { isObject, walkSchema } from './walk.js';

/** Keywords holding definition tables: 2020-12 `$defs` and draft-07 `definitions`. */
export const DEFINITION_KEYWORDS = ['$defs', 'definitions'] as const;

/** Reference keywords; `$dynamicRef` is followed like `$ref` through its anchor. */
const REF_KEYWORDS = ['$ref', '$dynamicRef'] as const;

/**
 * Resolves references against one root. Built once per root and queried per `$ref`;
 * the root must not change while the resolver is in use.
 */
export interface RefResolver {
  /** JSON pointer (escaped, `""` for the root) a reference targets, or undefined when not local. */
  targetPtr(ref: unknown): string | undefined;
  /** The subschema at an escaped JSON pointer, or undefined. */
  at(ptr: string): unknown;
}

/** True for a subschema that starts an embedded resource: a `$id` that is not a bare draft-07 anchor. */
function isResource(node: JsonObject): boolean {
  return typeof node.$id === 'string' && !node.$id.startsWith('#');
}

/** True when a subschema other than the root declares `$id`: `#` inside it then means that resource. */
export function hasEmbeddedResources(root: JsonObject): boolean {
  let found = false;
  walkSchema(root, ({ node, ptr }) => {
    if (ptr !== '' && isResource(node)) found = true;
  });
  return found;
}

/** Builds a resolver for `root` (indexes anchors once). Source: JSON Schema 2020-12 §8.2.2–8.2.3. */
export function refResolver(root: JsonObject): RefResolver {
  const anchors: Anchors = new Map();
  walkSchema(root, ({ node, ptr }) => declareAnchors(anchors, node, ptr));
  return resolverWith(root, (name) => anchorIn(anchors, name, ''));
}

/** Where a node declares an anchor: by `$anchor` / `$dynamicAnchor`, or by draft-07's `$id: "#name"`. */
interface AnchorDeclaration {
  readonly ptr: string;
  readonly draft07: boolean;
}

/** Every anchor declared in a schema, by name, in walk order. */
type Anchors = Map<string, AnchorDeclaration[]>;

/** Records the anchors `node`, at `ptr`, declares. */
function declareAnchors(anchors: Anchors, node: JsonObject, ptr: string): void {
  const declare = (name: string, draft07: boolean): void => {
    const list = anchors.get(name);
    if (list === undefined) anchors.set(name, [{ ptr, draft07 }]);
    else list.push({ ptr, draft07 });
  };
  for (const key of ['$anchor', '$dynamicAnchor'] as const) {
    const name = node[key];
    if (typeof name === 'string') declare(name, false);
  }
  // draft-07 spelled anchors as `$id: "#name"`.
  if (typeof node.$id === 'string' && node.$id.startsWith('#') && node.$id.length > 1) declare(node.$id.slice(1), true);
}

/**
 * Where the anchor `name` points inside the resource at `base`, as a pointer from `base`: its last
 * draft-07 `$id` anchor of that name, else its first `$anchor` / `$dynamicAnchor` (walk order). Anchors in
 * resources nested inside count as the resource's own.
 */
function anchorIn(anchors: Anchors, name: string, base: string): string | undefined {
  const inside = (anchors.get(name) ?? []).filter((d) => within(d.ptr, base));
  return (inside.findLast((d) => d.draft07) ?? inside.find((d) => !d.draft07))?.ptr.slice(base.length);
}

/** A resolver for `root` given how its anchors resolve (name → pointer from `root`). */
function resolverWith(root: JsonObject, anchor: (name: string) => string | undefined): RefResolver {
  const rootId = typeof root.$id === 'string' ? root.$id.split('#')[0] : undefined;
  const at = (ptr: string): unknown => pointerGet(root, ptr);
  const targetPtr = (ref: unknown): string | undefined => {
    if (typeof ref !== 'string') return undefined;
    const hash = ref.indexOf('#');
    if (hash < 0) return ref === rootId && ref !== '' ? '' : undefined;
    const base = ref.slice(0, hash);
    if (base !== '' && base !== rootId) return undefined;
    const fragment = safeDecode(ref.slice(hash + 1));
    if (fragment === undefined) return undefined;
    if (fragment === '' || fragment.startsWith('/')) return at(fragment) === undefined ? undefined : fragment;
    return anchor(fragment);
  };
  return { targetPtr, at };
}

function safeDecode(fragment: string): string | undefined {
  if (!fragment.includes('%')) return fragment;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

function pointerGet(root: unknown, ptr: string): unknown {
  let node: unknown = root;
  for (const key of pointerKeys(ptr)) {
    node = child(node, key);
    if (node === undefined) return undefined;
  }
  return node;
}

/** The keys a JSON pointer names, unescaped (`~1` → `/`, `~0` → `~`); none for `""`. */
function pointerKeys(ptr: string): string[] {
  if (ptr === '') return [];
  return ptr
    .slice(1)
    .split('/')
    .map((raw) => (raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw));
}

/** The value under `key` in an array (a canonical index) or an object (an own key), or undefined. */
function child(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return /^(0|[1-9]\d*)$/.test(key) ? node[Number(key)] : undefined;
  return isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}

/** A schema resource: the root, or a subschema with its own `$id`. */
interface Resource {
  readonly ptr: string;
  readonly node: JsonObject;
}

/** One reference: the node holding it, its keyword, where it sits, and the absolute pointer it targets. */
export interface RefSite {
  readonly node: JsonObject;
  readonly key: string;
  readonly from: string;
  /** Pointer from the root, or undefined when the reference does not resolve inside the schema. */
  readonly target?: string;
}

/**
 * Every reference in the schema, each resolved inside its innermost enclosing resource (the root, or a
 * subschema with its own `$id`), as JSON Schema reads `#` there; a reference to another resource's
 * `$id` (compared verbatim) resolves inside that resource. Source: JSON Schema 2020-12 §8.2.1, §9.2.
 */
export function collectRefs(root: JsonObject): RefSite[] {
  const ids = new Map<string, Resource>();
  const anchors: Anchors = new Map();
  const top: Resource = { ptr: '', node: root };
  const resourceOf = new Map<JsonObject, Resource>();
  const found: { readonly node: JsonObject; readonly key: string; readonly from: string; readonly home: Resource }[] = [];
  walkSchema(root, ({ node, ptr, parent }) => {
    // Depth-first: a subschema's parent, and so the resource around it, is met first.
    const own = ptr === '' ? top : isResource(node) ? { ptr, node } : undefined;
    if (own !== undefined && typeof node.$id === 'string') ids.set(node.$id.split('#')[0] ?? '', own);
    const home = own ?? (parent === undefined ? undefined : resourceOf.get(parent)) ?? top;
    resourceOf.set(node, home);
    declareAnchors(anchors, node, ptr);
    for (const key of REF_KEYWORDS) if (key in node) found.push({ node, key, from: ptr, home });
  });
  const resolvers = new Map<Resource, RefResolver>();
  const resolve = (resource: Resource, ref: unknown): string | undefined => {
    let resolver = resolvers.get(resource);
    if (resolver === undefined) {
      resolver = resolverWith(resource.node, (name) => anchorIn(anchors, name, resource.ptr));
      resolvers.set(resource, resolver);
    }
    const target = resolver.targetPtr(ref);
    return target === undefined ? undefined : resource.ptr + target;
  };
  return found.map(({ node, key, from, home }) => {
    const ref = node[key];
    const uri = typeof ref === 'string' ? (ref.split('#')[0] ?? '') : '';
    return { node, key, from, target: resolve((uri === '' ? undefined : ids.get(uri)) ?? home, ref) };
  });
}

/** One `$defs` / `definitions` table: the schema holding it and its keyword there. */
interface DefinitionTable {
  readonly holder: JsonObject;
  readonly keyword: (typeof DEFINITION_KEYWORDS)[number];
}

/** One entry of a definition table: the table and its name there. */
interface DefinitionEntry {
  readonly table: JsonObject;
  readonly name: string;
}

/** The definition tables of a schema and their entries, indexed both ways a reference is placed. */
interface Definitions {
  /** Every table, empty ones too. */
  readonly tables: readonly DefinitionTable[];
  readonly entries: readonly DefinitionEntry[];
  /** For each subschema inside an entry, the outermost entry around it: where a reference sits. */
  readonly homes: ReadonlyMap<JsonObject, DefinitionEntry>;
  /** Entries by table object, then name: what a pointer passes through on its way to a target. */
  readonly byTable: ReadonlyMap<JsonObject, ReadonlyMap<string, DefinitionEntry>>;
}

/**
 * Removes every `$defs` / `definitions` entry no live reference reaches, and tables left empty.
 * A reference is live outside definition tables, or inside an entry that is itself reached; a reference
 * reaches every entry its target pointer passes through. Linear in the schema's size: each reference is
 * looked at once, when it becomes live, and each target pointer is followed once through the schema.
 * Mutates `root`; returns true when it removed anything. Source: docs/tools.md (compaction rung 1).
 */
export function pruneDefinitions(root: JsonObject): boolean {
  const defs = definitions(root);
  if (defs.entries.length === 0) return false;
  const reached = reachedEntries(root, defs);
  const unreached = defs.entries.filter((e) => !reached.has(e));
  for (const e of unreached) delete e.table[e.name];
  const emptied = defs.tables.filter(({ holder, keyword }) => Object.keys(holder[keyword] as JsonObject).length === 0);
  for (const { holder, keyword } of emptied) delete holder[keyword];
  return unreached.length > 0 || emptied.length > 0;
}

/** The entries that live references reach (see `pruneDefinitions`). */
function reachedEntries(root: JsonObject, defs: Definitions): Set<DefinitionEntry> {
  // Reached entries are closed outwards (a pointer through an inner entry passes through the outer one),
  // so a reference is live exactly when the outermost entry around it is reached.
  const waiting = new Map<DefinitionEntry, RefSite[]>();
  const live: RefSite[] = [];
  for (const site of collectRefs(root)) {
    const home = defs.homes.get(site.node);
    if (home === undefined) live.push(site);
    else if (waiting.has(home)) waiting.get(home)?.push(site);
    else waiting.set(home, [site]);
  }
  const reached = new Set<DefinitionEntry>();
  for (let site = live.pop(); site !== undefined; site = live.pop()) {
    if (site.target === undefined) continue;
    for (const entry of entriesOnPath(root, site.target, defs.byTable)) {
      if (reached.has(entry)) continue;
      reached.add(entry);
      for (const next of waiting.get(entry) ?? []) live.push(next);
    }
  }
  return reached;
}

/** The entries the pointer `ptr` passes through (or ends at) when followed from `root`, outermost first. */
function entriesOnPath(root: JsonObject, ptr: string, byTable: Definitions['byTable']): DefinitionEntry[] {
  const found: DefinitionEntry[] = [];
  let node: unknown = root;
  for (const key of pointerKeys(ptr)) {
    const entry = isObject(node) ? byTable.get(node)?.get(key) : undefined;
    if (entry !== undefined) found.push(entry);
    node = child(node, key);
    if (node === undefined) break;
  }
  return found;
}

/** Every definition table and entry in the schema, with where each subschema sits among the entries. */
function definitions(root: JsonObject): Definitions {
  const tables: DefinitionTable[] = [];
  const entries: DefinitionEntry[] = [];
  const homes = new Map<JsonObject, DefinitionEntry>();
  const byTable = new Map<JsonObject, Map<string, DefinitionEntry>>();
  const entryValues = new Map<JsonObject, DefinitionEntry>();
  walkSchema(root, ({ node, parent }) => {
    // Depth-first: a table is met at its holder, before the entries' own subschemas.
    const home = (parent === undefined ? undefined : homes.get(parent)) ?? entryValues.get(node);
    if (home !== undefined) homes.set(node, home);
    for (const keyword of DEFINITION_KEYWORDS) {
      const table = node[keyword];
      if (!isObject(table)) continue;
      tables.push({ holder: node, keyword });
      const named = new Map<string, DefinitionEntry>();
      for (const name of Object.keys(table)) {
        const entry = { table, name };
        entries.push(entry);
        named.set(name, entry);
        const value = table[name];
        if (isObject(value)) entryValues.set(value, entry);
      }
      byTable.set(table, named);
    }
  });
  return { tables, entries, homes, byTable };
}

/**
 * Deletes every `$ref` / `$dynamicRef` that does not resolve inside `root` (its target was removed, or it
 * is remote), keeping its siblings: the subschema then accepts more, never less, and still compiles.
 * Mutates `root`; returns how many references it dropped and how many are left.
 * Source: docs/tools.md (compaction only ever loosens what is advertised).
 */
export function dropDanglingRefs(root: JsonObject): { readonly dropped: number; readonly left: number } {
  let dropped = 0;
  let left = 0;
  for (const site of collectRefs(root)) {
    if (site.target !== undefined) {
      left += 1;
      continue;
    }
    delete site.node[site.key];
    dropped += 1;
  }
  return { dropped, left };
}
