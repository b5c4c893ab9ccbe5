/**
 * `resolveRefs` preparation: inlines local references whose target is not recursive, so a client or
 * model provider that cannot follow `$ref` sees the whole shape. Recursive targets stay references and
 * their definitions stay reachable; definitions nothing references any more are pruned.
 * Source: docs/tools.md (preparation: resolveRefs).
 */

import type { JsonObject } from '../catalog/types.js';
import { jsonBytes } from './measure.js';
import { PointerIndex } from './pointers.js';
import { collectRefs, hasEmbeddedResources, pruneDefinitions, refResolver } from './refs.js';
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
 * Source: docs/tools.md; JSON Schema 2020-12 §8.2.3.1.
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

/**
 * Targets that can reach themselves by expanding the references inside them: a reference inside target
 * `t` is an edge from `t` to its own target, and the recursive targets are those on a cycle.
 */
function recursiveTargets(schema: JsonObject): Set<string> {
  const refs = collectRefs(schema);
  const targets = new PointerIndex<string>();
  for (const r of refs) if (r.target !== undefined) targets.add(r.target, r.target);
  const edges = new Map<string, Set<string>>();
  for (const r of refs) {
    if (r.target === undefined) continue;
    for (const t of targets.along(r.from)) {
      const out = edges.get(t);
      if (out === undefined) edges.set(t, new Set([r.target]));
      else out.add(r.target);
    }
  }
  return onCycles(edges);
}

/** One node on the depth-first path of `onCycles`, with the successors it has yet to visit. */
interface Frame {
  readonly node: string;
  readonly next: Iterator<string>;
}

/**
 * The nodes of a directed graph that lie on a cycle: in a strongly connected component of two or more
 * nodes, or with an edge to themselves. Tarjan's algorithm, linear in nodes and edges, with an explicit
 * stack so a chain of thousands of definitions cannot overflow the call stack.
 * Source: Tarjan, "Depth-first search and linear graph algorithms" (1972).
 */
function onCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const open: OpenNodes = { stack: [], members: new Set() };
  const cyclic = new Set<string>();
  const path: Frame[] = [];
  const enter = (node: string): void => {
    low.set(node, order.size);
    order.set(node, order.size);
    open.stack.push(node);
    open.members.add(node);
    path.push({ node, next: (edges.get(node) ?? new Set<string>()).values() });
  };
  const lower = (node: string, to: number): void => void low.set(node, Math.min(low.get(node) as number, to));
  for (const start of edges.keys()) {
    if (!order.has(start)) enter(start);
    for (let frame = path.at(-1); frame !== undefined; frame = path.at(-1)) {
      const step = frame.next.next();
      if (step.done !== true) {
        if (!order.has(step.value)) enter(step.value);
        else if (open.members.has(step.value)) lower(frame.node, order.get(step.value) as number);
        continue;
      }
      path.pop();
      const parent = path.at(-1);
      if (parent !== undefined) lower(parent.node, low.get(frame.node) as number);
      if (low.get(frame.node) === order.get(frame.node)) closeComponent(frame.node, open, edges, cyclic);
    }
  }
  return cyclic;
}

/** Tarjan's stack of nodes not yet assigned to a component, with a set for membership tests. */
interface OpenNodes {
  readonly stack: string[];
  readonly members: Set<string>;
}

/** Pops the component rooted at `root` off `open`; adds its nodes to `cyclic` when they form a cycle. */
function closeComponent(root: string, open: OpenNodes, edges: ReadonlyMap<string, ReadonlySet<string>>, cyclic: Set<string>): void {
  const component = open.stack.splice(open.stack.lastIndexOf(root));
  for (const node of component) open.members.delete(node);
  if (component.length > 1 || edges.get(root)?.has(root) === true) for (const node of component) cyclic.add(node);
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
