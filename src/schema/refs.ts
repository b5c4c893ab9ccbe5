/**
 * Local `$ref` handling shared by preparation and compaction: resolving `#`, `#/json/pointer` and
 * `#anchor` references, finding which definitions are reachable, and dropping references whose target
 * is gone so the schema still compiles. Remote references are never fetched (schemas are pure data).
 * Source: DESIGN §7; JSON Schema 2020-12 §8.2 (`$ref`, `$anchor`, `$defs`), draft-07 `definitions`.
 */

import type { JsonObject } from '../catalog/types.js';
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
  walkSchema(root, ({ node, ptr }) => {
    for (const key of ['$anchor', '$dynamicAnchor'] as const) {
      const name = node[key];
      if (typeof name === 'string' && !anchors.has(name)) anchors.set(name, ptr);
    }
    // draft-07 spelled anchors as `$id: "#name"`.
    if (typeof node.$id === 'string' && node.$id.startsWith('#') && node.$id.length > 1) {
      anchors.set(node.$id.slice(1), ptr);
    }
  });
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
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** True when `ptr` is `outer` or lies inside it. */
export function within(ptr: string, outer: string): boolean {
  return ptr === outer || ptr.startsWith(`${outer}/`);
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
  const resources = new Map<string, RefResolver>();
  const ids = new Map<string, string>();
  walkSchema(root, ({ node, ptr }) => {
    if (ptr !== '' && !isResource(node)) return;
    resources.set(ptr, refResolver(node));
    if (typeof node.$id === 'string') ids.set(node.$id.split('#')[0] ?? '', ptr);
  });
  const sites: RefSite[] = [];
  walkSchema(root, ({ node, ptr }) => {
    for (const key of REF_KEYWORDS) {
      if (!(key in node)) continue;
      const ref = node[key];
      const uri = typeof ref === 'string' ? (ref.split('#')[0] ?? '') : '';
      const base = uri !== '' && ids.has(uri) ? (ids.get(uri) as string) : innermost(resources, ptr);
      const target = resources.get(base)?.targetPtr(ref);
      sites.push({ node, key, from: ptr, target: target === undefined ? undefined : base + target });
    }
  });
  return sites;
}

function innermost(resources: Map<string, unknown>, ptr: string): string {
  let best = '';
  for (const base of resources.keys()) if (within(ptr, base) && base.length > best.length) best = base;
  return best;
}

/**
 * Removes every `$defs` / `definitions` entry no live reference reaches, and tables left empty.
 * A reference is live outside definition tables, or inside an entry that is itself reached.
 * Mutates `root`. Source: DESIGN §7 rung 1.
 */
export function pruneDefinitions(root: JsonObject): void {
  const entries: { table: JsonObject; name: string; ptr: string }[] = [];
  walkSchema(root, ({ node, ptr }) => {
    for (const kw of DEFINITION_KEYWORDS) {
      const table = node[kw];
      if (!isObject(table)) continue;
      for (const name of Object.keys(table)) entries.push({ table, name, ptr: `${ptr}/${kw}/${escapeToken(name)}` });
    }
  });
  if (entries.length === 0) return;
  const refs = collectRefs(root);
  const reached = new Set<string>();
  let frontier = refs.filter((r) => !entries.some((e) => within(r.from, e.ptr)));
  while (frontier.length > 0) {
    const fresh = entries.filter((e) => !reached.has(e.ptr) && frontier.some((r) => r.target !== undefined && within(r.target, e.ptr)));
    for (const e of fresh) reached.add(e.ptr);
    frontier = refs.filter((r) => fresh.some((e) => within(r.from, e.ptr)));
  }
  for (const e of entries) if (!reached.has(e.ptr)) delete e.table[e.name];
  dropEmptyTables(root);
}

function dropEmptyTables(root: JsonObject): void {
  walkSchema(root, ({ node }) => {
    for (const kw of DEFINITION_KEYWORDS) if (isObject(node[kw]) && Object.keys(node[kw]).length === 0) delete node[kw];
  });
}

/**
 * Deletes every `$ref` / `$dynamicRef` that does not resolve inside `root` (its target was removed, or it
 * is remote), keeping its siblings: the subschema then accepts more, never less, and still compiles.
 * Mutates `root`. Source: DESIGN §7 ("compaction only ever loosens what is advertised").
 */
export function dropDanglingRefs(root: JsonObject): void {
  for (const site of collectRefs(root)) if (site.target === undefined) delete site.node[site.key];
}
