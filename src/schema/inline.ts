/**
 * `resolveRefs` preparation: inlines local references whose target is not recursive, so a client or
 * model provider that cannot follow `$ref` sees the whole shape. Recursive targets stay references and
 * their definitions stay reachable; definitions nothing references any more are pruned.
 * Source: DESIGN §7 (preparation: resolveRefs).
 */

import type { JsonObject } from '../catalog/types.js';
import { jsonBytes } from './measure.js';
import { collectRefs, hasEmbeddedResources, pruneDefinitions, refResolver, within } from './refs.js';
import { cloneJson, isObject, walkSchema } from './walk.js';

/**
 * Total UTF-8 bytes of inlined copies allowed per schema (256 KiB). Real schemas are under 20 KB; the cap
 * keeps a diamond-shaped `$defs` graph (each definition used twice by the next) from growing exponentially.
 */
const MAX_INLINED_BYTES = 256 * 1024;

/** Keywords that only annotate: a `$ref` sibling of this kind may override the target's value. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * Returns a copy of `schema` with non-recursive local `$ref`s replaced by their target.
 * `$ref` siblings are merged as 2019-09+ reads them (annotations override; conflicting assertions
 * go through `allOf`). Returns `schema` itself when nothing can be inlined safely: embedded resources
 * (nested `$id`) or inlined copies over 256 KiB. Never throws on JSON input.
 * Source: DESIGN §7; JSON Schema 2020-12 §8.2.3.1.
 */
export function inlineRefs(schema: JsonObject): JsonObject {
  if (hasEmbeddedResources(schema)) return schema;
  const resolver = refResolver(schema);
  const recursive = recursiveTargets(schema);
  const out = cloneJson(schema);
  const sizes = new Map<string, number>();
  let inlinedBytes = 0;
  walkSchema(out, ({ node }) => {
    const target = resolver.targetPtr(node.$ref);
    if (target === undefined || recursive.has(target) || inlinedBytes > MAX_INLINED_BYTES) return;
    const copy = cloneJson(resolver.at(target));
    const size = sizes.get(target) ?? jsonBytes(copy);
    sizes.set(target, size);
    inlinedBytes += size;
    replaceRef(node, copy);
  });
  if (inlinedBytes > MAX_INLINED_BYTES) return schema;
  pruneDefinitions(out);
  return out;
}

/** Targets that can reach themselves by expanding the references inside them. */
function recursiveTargets(schema: JsonObject): Set<string> {
  const refs = collectRefs(schema);
  const targets = [...new Set(refs.flatMap((r) => (r.target === undefined ? [] : [r.target])))];
  const edges = new Map<string, string[]>();
  for (const t of targets) {
    edges.set(t, [...new Set(refs.filter((r) => r.target !== undefined && within(r.from, t)).map((r) => r.target as string))]);
  }
  const recursive = new Set<string>();
  for (const start of targets) {
    const seen = new Set<string>();
    const stack = [...(edges.get(start) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (next === start) {
        recursive.add(start);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(edges.get(next) ?? []));
    }
  }
  return recursive;
}

/** Rewrites a `{ $ref, ...siblings }` node in place into its target merged with the siblings. */
function replaceRef(node: JsonObject, target: unknown): void {
  const { $ref: _ref, ...siblings } = node;
  for (const key of Object.keys(node)) delete node[key];
  let merged: JsonObject;
  if (!isObject(target)) {
    // Boolean schemas: `true` adds nothing to the siblings, `false` rejects everything.
    merged = target === false ? { ...siblings, not: {} } : siblings;
  } else if (Object.keys(siblings).some((k) => Object.hasOwn(target, k) && !ANNOTATIONS.has(k))) {
    const allOf = Array.isArray(siblings.allOf) ? siblings.allOf : [];
    merged = { ...siblings, allOf: [...allOf, target] };
  } else {
    merged = { ...target, ...siblings };
  }
  for (const [key, value] of Object.entries(merged)) Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}
