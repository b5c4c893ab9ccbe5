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

/** True when a subschema other than the root declares `$id`: `#` inside it then means that resource. */
export function hasEmbeddedResources(root: JsonObject): boolean {
  let found = false;
  walkSchema(root, ({ node, ptr }) => {
    if (ptr !== '' && typeof node.$id === 'string' && !node.$id.startsWith('#')) found = true;
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

/** Every reference in the schema: where it sits and the pointer it targets (undefined when not local). */
export function collectRefs(root: JsonObject, resolver: RefResolver): { from: string; target?: string }[] {
  const refs: { from: string; target?: string }[] = [];
  walkSchema(root, ({ node, ptr }) => {
    for (const key of REF_KEYWORDS) {
      if (key in node) refs.push({ from: ptr, target: resolver.targetPtr(node[key]) });
    }
  });
  return refs;
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
  const refs = collectRefs(root, refResolver(root));
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
  const resolver = refResolver(root);
  const dangling: JsonObject[] = [];
  walkSchema(root, ({ node }) => {
    if (REF_KEYWORDS.some((key) => key in node && resolver.targetPtr(node[key]) === undefined)) dangling.push(node);
  });
  for (const node of dangling) {
    for (const key of REF_KEYWORDS) if (key in node && resolver.targetPtr(node[key]) === undefined) delete node[key];
  }
}
