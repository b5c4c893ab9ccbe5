/**
 * Local `$ref` handling shared by preparation and compaction: resolving `#`, `#/json/pointer` and
 * `#anchor` references, finding which definitions are reachable, and dropping references whose target
 * is gone so the schema still compiles. Remote references are never fetched (schemas are pure data).
 * Source: DESIGN §7; JSON Schema 2020-12 §8.2 (`$ref`, `$anchor`, `$defs`), draft-07 `definitions`.
 */

import type { JsonObject } from '../catalog/types.js';
import { PointerIndex } from './pointers.js';
import { escapeToken, isObject, walkSchema } from './walk.js';

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
  const anchors = new Map<string, string>();
  walkSchema(root, ({ node, ptr }) => indexAnchors(anchors, node, ptr));
  return resolverWith(root, anchors);
}

/** Records the anchors `node` declares, at `ptr`: the first `$anchor` of a name wins, a draft-07 `$id` anchor the last. */
function indexAnchors(anchors: Map<string, string>, node: JsonObject, ptr: string): void {
  for (const key of ['$anchor', '$dynamicAnchor'] as const) {
    const name = node[key];
    if (typeof name === 'string' && !anchors.has(name)) anchors.set(name, ptr);
  }
  // draft-07 spelled anchors as `$id: "#name"`.
  if (typeof node.$id === 'string' && node.$id.startsWith('#') && node.$id.length > 1) {
    anchors.set(node.$id.slice(1), ptr);
  }
}

/** A resolver for `root` given its anchors (name → pointer from `root`). */
function resolverWith(root: JsonObject, anchors: ReadonlyMap<string, string>): RefResolver {
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
    return anchors.get(fragment);
  };
  return { targetPtr, at };
}

function safeDecode(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

function pointerGet(root: unknown, ptr: string): unknown {
  if (ptr === '') return root;
  let node: unknown = root;
  for (const raw of ptr.slice(1).split('/')) {
    const token = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** A schema resource (the root, or a subschema with its own `$id`): where it sits and its anchors, relative to it. */
interface Resource {
  readonly ptr: string;
  readonly node: JsonObject;
  readonly anchors: Map<string, string>;
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
  const resources = new PointerIndex<Resource>();
  const ids = new Map<string, Resource>();
  const found: { readonly node: JsonObject; readonly key: string; readonly from: string; readonly home?: Resource }[] = [];
  // One walk: resources, the anchors of each (a node's anchor counts in every resource around it), references.
  walkSchema(root, ({ node, ptr }) => {
    if (ptr === '' || isResource(node)) {
      const resource = { ptr, node, anchors: new Map<string, string>() };
      resources.add(ptr, resource);
      if (typeof node.$id === 'string') ids.set(node.$id.split('#')[0] ?? '', resource);
    }
    const around = resources.along(ptr);
    for (const resource of around) indexAnchors(resource.anchors, node, ptr.slice(resource.ptr.length));
    for (const key of REF_KEYWORDS) if (key in node) found.push({ node, key, from: ptr, home: around.at(-1) });
  });
  const resolvers = new Map<Resource, RefResolver>();
  const resolve = (resource: Resource, ref: unknown): string | undefined => {
    let resolver = resolvers.get(resource);
    if (resolver === undefined) resolvers.set(resource, (resolver = resolverWith(resource.node, resource.anchors)));
    const target = resolver.targetPtr(ref);
    return target === undefined ? undefined : resource.ptr + target;
  };
  return found.map(({ node, key, from, home }) => {
    const ref = node[key];
    const uri = typeof ref === 'string' ? (ref.split('#')[0] ?? '') : '';
    const resource = (uri === '' ? undefined : ids.get(uri)) ?? home;
    return { node, key, from, target: resource === undefined ? undefined : resolve(resource, ref) };
  });
}

/** One `$defs` / `definitions` table: the schema holding it and its keyword there. */
interface DefinitionTable {
  readonly holder: JsonObject;
  readonly keyword: (typeof DEFINITION_KEYWORDS)[number];
}

/** One entry of a definition table: the table, its name there, and its pointer from the root. */
interface DefinitionEntry {
  readonly table: JsonObject;
  readonly name: string;
  readonly ptr: string;
}

/**
 * Removes every `$defs` / `definitions` entry no live reference reaches, and tables left empty.
 * A reference is live outside definition tables, or inside an entry that is itself reached; a reference
 * reaches the entry holding its target and every entry around that one. Linear in the number of entries
 * and references (each reference is looked at once, when it becomes live).
 * Mutates `root`; returns true when it removed anything. Source: DESIGN §7 rung 1.
 */
export function pruneDefinitions(root: JsonObject): boolean {
  const { tables, entries } = definitions(root);
  if (entries.length === 0) return false;
  const reached = reachedEntries(root, entries);
  const unreached = entries.filter((e) => !reached.has(e));
  for (const e of unreached) delete e.table[e.name];
  const emptied = tables.filter(({ holder, keyword }) => Object.keys(holder[keyword] as JsonObject).length === 0);
  for (const { holder, keyword } of emptied) delete holder[keyword];
  return unreached.length > 0 || emptied.length > 0;
}

/** The entries that live references reach (see `pruneDefinitions`). */
function reachedEntries(root: JsonObject, entries: readonly DefinitionEntry[]): Set<DefinitionEntry> {
  const index = new PointerIndex<DefinitionEntry>();
  for (const entry of entries) index.add(entry.ptr, entry);
  // Reached entries are closed outwards, so a reference is live exactly when its outermost entry is reached.
  const waiting = new Map<DefinitionEntry, RefSite[]>();
  const live: RefSite[] = [];
  for (const site of collectRefs(root)) {
    const home = index.along(site.from)[0];
    if (home === undefined) live.push(site);
    else if (waiting.has(home)) waiting.get(home)?.push(site);
    else waiting.set(home, [site]);
  }
  const reached = new Set<DefinitionEntry>();
  for (let site = live.pop(); site !== undefined; site = live.pop()) {
    if (site.target === undefined) continue;
    for (const entry of index.along(site.target)) {
      if (reached.has(entry)) continue;
      reached.add(entry);
      for (const next of waiting.get(entry) ?? []) live.push(next);
    }
  }
  return reached;
}

/** Every definition table in the schema (empty ones too) and every entry in them. */
function definitions(root: JsonObject): { tables: DefinitionTable[]; entries: DefinitionEntry[] } {
  const tables: DefinitionTable[] = [];
  const entries: DefinitionEntry[] = [];
  walkSchema(root, ({ node, ptr }) => {
    for (const keyword of DEFINITION_KEYWORDS) {
      const table = node[keyword];
      if (!isObject(table)) continue;
      tables.push({ holder: node, keyword });
      for (const name of Object.keys(table)) entries.push({ table, name, ptr: `${ptr}/${keyword}/${escapeToken(name)}` });
    }
  });
  return { tables, entries };
}

/**
 * Deletes every `$ref` / `$dynamicRef` that does not resolve inside `root` (its target was removed, or it
 * is remote), keeping its siblings: the subschema then accepts more, never less, and still compiles.
 * Mutates `root`; returns how many references it dropped and how many are left.
 * Source: DESIGN §7 ("compaction only ever loosens what is advertised").
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
