/**
 * Compaction to the wire budget: the description clip and the six-rung ladder of DESIGN §7, applied in
 * order only while the schema is over `maxSchemaBytes`. Every rung loosens what is advertised and keeps
 * the top-level argument surface; admission still checks the canonical schema (`admit.ts`).
 * Preparation the user asked for is `prepare.ts`'s job and happens before this.
 * Source: DESIGN §7 (compaction).
 */

import type { JsonObject } from '../catalog/types.js';
import { jsonBytes, textBytes } from './measure.js';
import { DEFINITION_KEYWORDS, dropDanglingRefs, pruneDefinitions } from './refs.js';
import { topLevelSurface } from './surface.js';
import type { CompactionResult, Rung } from './types.js';
import { cloneJson, isObject, walkSchema } from './walk.js';

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = textBytes(ELLIPSIS);

/** Grapheme segmentation: a clip never splits a surrogate pair, an emoji sequence or a base + accent. */
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * `text` when it fits in `maxBytes` UTF-8 bytes; otherwise its longest prefix that ends on a character
 * (grapheme) boundary, trailing whitespace trimmed, followed by `…`, all within `maxBytes`.
 * Returns `""` when not even `…` (3 bytes) fits. Source: DESIGN §7 (description clip).
 */
export function clipDescription(text: string, maxBytes: number): string {
  if (textBytes(text) <= maxBytes) return text;
  const room = maxBytes - ELLIPSIS_BYTES;
  if (!(room >= 0)) return '';
  let end = codePointCut(text, room);
  // Step back to the start of the grapheme the cut would split; `containing` looks only near `end`.
  const split = end < text.length ? graphemes.segment(text).containing(end) : undefined;
  if (split !== undefined && split.index < end) end = split.index;
  return text.slice(0, end).trimEnd() + ELLIPSIS;
}

/** UTF-16 index of the longest code-point prefix of `text` within `room` UTF-8 bytes. */
function codePointCut(text: string, room: number): number {
  let used = 0;
  let index = 0;
  while (index < text.length) {
    const point = text.codePointAt(index) as number;
    // Lone surrogates count 3 bytes, as U+FFFD, matching Buffer.byteLength.
    const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    if (used + size > room) break;
    used += size;
    index += point > 0xffff ? 2 : 1;
  }
  return index;
}

/** Keywords whose subschemas describe a value one level down in the arguments (rung 5 depth). */
const NESTING_KEYWORDS = new Set([
  'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames',
  'items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'contentSchema',
]);
const OBJECT_KEYWORDS = ['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'required'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains'];

/** Rung 5 keeps three levels of arguments below the root and collapses containers at the fourth. */
const MAX_NESTING_DEPTH = 3;

/** Rung 2: descriptions go everywhere except the root and its own properties. */
function stripNestedDescriptions(root: JsonObject): void {
  walkSchema(root, ({ node, keyword, parent }) => {
    const topLevel = node === root || (keyword === 'properties' && parent === root);
    if (!topLevel) delete node.description;
  });
}

/** Rung 3: every property description goes (the root's own description stays). */
function stripPropertyDescriptions(root: JsonObject): void {
  walkSchema(root, ({ node }) => {
    if (node !== root) delete node.description;
  });
}

/** Rung 4: every `$defs` / `definitions` table goes; the references into them then dangle and are dropped. */
function dropDefinitionTables(root: JsonObject): void {
  walkSchema(root, ({ node }) => {
    for (const kw of DEFINITION_KEYWORDS) delete node[kw];
  });
}

/** Rung 5: objects and arrays nested deeper than three argument levels become `{ type }`. */
function collapseDeepObjects(root: JsonObject): void {
  const depths = new Map<JsonObject, number>();
  walkSchema(root, ({ node, keyword, parent }) => {
    const parentDepth = parent === undefined ? -1 : (depths.get(parent) ?? 0);
    const depth = parent === undefined ? 0 : parentDepth + (keyword !== undefined && NESTING_KEYWORDS.has(keyword) ? 1 : 0);
    depths.set(node, depth);
    const collapsed = depth > MAX_NESTING_DEPTH ? containerType(node) : undefined;
    if (collapsed === undefined) return;
    for (const key of Object.keys(node)) delete node[key];
    node.type = collapsed;
  });
}

/** The `type` a collapsed container keeps, or undefined for a leaf (which has nothing to collapse). */
function containerType(node: JsonObject): unknown {
  const { type } = node;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('object') || types.includes('array')) return type;
  if (OBJECT_KEYWORDS.some((k) => k in node)) return 'object';
  if (ARRAY_KEYWORDS.some((k) => k in node)) return 'array';
  return undefined;
}

/** Rung 6: `anyOf` / `oneOf` / `allOf` go everywhere. */
function dropCombinators(root: JsonObject): void {
  walkSchema(root, ({ node }) => {
    delete node.anyOf;
    delete node.oneOf;
    delete node.allOf;
  });
}

/** The ladder of DESIGN §7, rung 1 first. Each step mutates the working copy. */
const LADDER: readonly ((root: JsonObject) => void)[] = [
  pruneDefinitions,
  stripNestedDescriptions,
  stripPropertyDescriptions,
  dropDefinitionTables,
  collapseDeepObjects,
  dropCombinators,
];

/**
 * Fits `schema` into `maxSchemaBytes` (UTF-8 bytes of compact JSON).
 * Within budget: returns `schema` itself, rung 0. Otherwise applies the DESIGN §7 rungs to a copy, in
 * order, re-measuring after each (references whose target a rung removed are dropped), and stops at the
 * first that fits. If all six do not fit, top-level properties are reduced to their surface, largest first,
 * down to the surface alone (`topLevelSurface`), still reported as rung 6; when even that is over budget,
 * `bytes > maxSchemaBytes` tells the caller.
 * The surface (property names, their `type`, `required`) is never changed. Deterministic, idempotent,
 * and never throws on JSON input, however malformed as a schema.
 * Source: DESIGN §7.
 */
export function compactSchema(schema: JsonObject, maxSchemaBytes: number): CompactionResult {
  const bytes = jsonBytes(schema);
  if (bytes <= maxSchemaBytes) return { schema, rung: 0, bytes };
  const work = isObject(schema) ? cloneJson(schema) : {};
  for (const [index, rung] of LADDER.entries()) {
    rung(work);
    dropDanglingRefs(work);
    const size = jsonBytes(work);
    if (size <= maxSchemaBytes) return { schema: work, rung: (index + 1) as Rung, bytes: size };
  }
  const last = reduceToSurface(work, schema, maxSchemaBytes);
  return { schema: last, rung: 6, bytes: jsonBytes(last) };
}

/**
 * Past rung 6: top-level properties get their original description back (rung 3 removed it), then are
 * cut, largest first (ties by name), to their surface plus that description, then to the bare surface
 * (`{ type }`), re-measuring after each cut; if nothing else fits, only the surface remains. A huge
 * `enum` on one argument thus costs that argument its details, not every argument its description.
 */
function reduceToSurface(work: JsonObject, original: JsonObject, maxSchemaBytes: number): JsonObject {
  const props = work.properties;
  if (!isObject(props)) return topLevelSurface(work);
  const bare = topLevelSurface({ properties: props }).properties as JsonObject;
  const originalProps = isObject(original.properties) ? original.properties : {};
  const describe = (name: string, form: unknown): unknown => {
    const sub = Object.hasOwn(originalProps, name) ? originalProps[name] : undefined;
    return isObject(form) && isObject(sub) && typeof sub.description === 'string' ? { ...form, description: sub.description } : form;
  };
  const forms = new Map(Object.keys(props).map((name) => [name, [describe(name, props[name]), describe(name, bare[name]), bare[name]]]));
  const stage = new Map<string, number>();
  const candidate = (): JsonObject => withProperties(work, [...forms].map(([name, f]) => [name, f[stage.get(name) ?? 0]]));
  const bySize = [...forms]
    .map(([name, f]) => ({ name, size: jsonBytes(f[0]) }))
    .sort((a, b) => b.size - a.size || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const restored = candidate();
  if (jsonBytes(restored) <= maxSchemaBytes) return restored;
  for (const level of [1, 2]) {
    for (const { name } of bySize) {
      stage.set(name, level);
      const schema = candidate();
      if (jsonBytes(schema) <= maxSchemaBytes) return schema;
    }
  }
  return topLevelSurface(work);
}

/** A copy of `schema` with `properties` rebuilt from entries (no assignment: a property may be named `__proto__`). */
function withProperties(schema: JsonObject, entries: [string, unknown][]): JsonObject {
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(entries) : value]));
}
