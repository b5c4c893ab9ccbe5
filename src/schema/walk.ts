/**
 * Visits every subschema of a JSON Schema, draft-07 and 2020-12 alike, with json-schema-traverse.
 * json-schema-traverse 1.0 knows draft-07's keywords (`items` array form, `definitions`, `dependencies`)
 * and `$defs`; this module adds the 2020-12 applicators it lacks (`prefixItems`, `dependentSchemas`,
 * `unevaluated*`, `contentSchema`) so no walk misses a subschema. Also owns JSON pointer text helpers.
 * Leaves what to do at each node to its callers. Source: docs/tools.md, JSON Schema 2020-12 §10.
 */

import traverse from 'json-schema-traverse';
import type { JsonObject } from '../catalog/types.js';

/** One visited subschema. `ptr` is its JSON pointer from the root (`""` for the root). */
export interface SchemaVisit {
  readonly node: JsonObject;
  readonly ptr: string;
  /** The keyword that holds it (`properties`, `items`, `anyOf`…); undefined for the root. */
  readonly keyword?: string;
  /** The schema holding it; undefined for the root. */
  readonly parent?: JsonObject;
}

/** Called before a node's children are visited: changes made to `node` there decide what is visited. */
export type Visitor = (visit: SchemaVisit) => void;

/** 2020-12 applicators json-schema-traverse 1.0 does not descend into, by shape. */
const EXTRA_ARRAY = ['prefixItems'] as const;
const EXTRA_MAP = ['dependentSchemas'] as const;
const EXTRA_SINGLE = ['unevaluatedProperties', 'unevaluatedItems', 'contentSchema'] as const;

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes one JSON pointer token (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Visits `root` and every subschema in pre-order; non-object input visits nothing.
 * Never throws on malformed schemas: values in schema positions that are not objects are skipped.
 * Source: json-schema-traverse 1.0 keyword tables plus JSON Schema 2020-12 §10.3.
 */
export function walkSchema(root: unknown, visit: Visitor): void {
  walkFrom(root, '', undefined, undefined, visit);
}

function walkFrom(
  root: unknown,
  base: string,
  keyword: string | undefined,
  parent: JsonObject | undefined,
  visit: Visitor,
): void {
  if (!isObject(root)) return;
  traverse(root, {
    cb: (node, ptr, _root, _parentPtr, parentKeyword, parentSchema) => {
      const atTop = ptr === '';
      const here = base + ptr;
      visit({
        node,
        ptr: here,
        keyword: atTop ? keyword : parentKeyword,
        parent: atTop ? parent : parentSchema,
      });
      visitExtras(node, here, visit);
    },
  });
}

function visitExtras(node: JsonObject, ptr: string, visit: Visitor): void {
  for (const kw of EXTRA_SINGLE) if (isObject(node[kw])) walkFrom(node[kw], `${ptr}/${kw}`, kw, node, visit);
  for (const kw of EXTRA_ARRAY) {
    const list = node[kw];
    if (Array.isArray(list)) list.forEach((sub, i) => walkFrom(sub, `${ptr}/${kw}/${i}`, kw, node, visit));
  }
  for (const kw of EXTRA_MAP) {
    const map = node[kw];
    if (!isObject(map)) continue;
    for (const [name, sub] of Object.entries(map)) walkFrom(sub, `${ptr}/${kw}/${escapeToken(name)}`, kw, node, visit);
  }
}

/** A deep copy through JSON, the form schemas travel in; drops nothing JSON can carry. */
export function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
