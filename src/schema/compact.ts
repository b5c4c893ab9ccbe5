/**
 * Compaction to the wire budget: the description clip and the six-rung ladder of docs/tools.md ("Schemas on the wire"), applied in
 * order only while the schema is over `maxSchemaBytes`. Every rung loosens what is advertised and keeps
 * the top-level argument surface; admission still checks the canonical schema (`admit.ts`).
 * Preparation the user asked for is `prepare.ts`'s job and happens before this.
 * Source: docs/tools.md (compaction).
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
 * Returns `""` when not even `…` (3 bytes) fits. Source: docs/tools.md (description clip).
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

/**
 * Longest tool `title` and `annotations.title` on the wire, in UTF-8 bytes: a display name (MCP
 * `Tool.title`, "a human-readable name"), never a second description. Every title in the shared
 * catalogues is under 100 bytes; a 200 KB one went out whole on every tools/list.
 */
export const MAX_TITLE_BYTES = 200;

/** `fields` (a tool's wire fields beside name, description and inputSchema) with its titles clipped to {@link MAX_TITLE_BYTES}; the same object when none is longer. Pure. */
export function clipTitles(fields: JsonObject): JsonObject {
  const long = (value: unknown): value is string => typeof value === 'string' && textBytes(value) > MAX_TITLE_BYTES;
  const annotated = isObject(fields.annotations) ? fields.annotations : undefined;
  if (!long(fields.title) && !long(annotated?.title)) return fields;
  return {
    ...fields,
    ...(long(fields.title) ? { title: clipDescription(fields.title, MAX_TITLE_BYTES) } : {}),
    ...(annotated && long(annotated.title) ? { annotations: { ...annotated, title: clipDescription(annotated.title, MAX_TITLE_BYTES) } } : {}),
  };
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

/** Rung 6 drops these everywhere. */
const COMBINATORS = ['anyOf', 'oneOf', 'allOf'];

/** Rung 5 keeps three levels of arguments below the root and collapses containers at the fourth. */
const MAX_NESTING_DEPTH = 3;

/** Deletes `keys` from `node`; true when any of them was there. */
function remove(node: JsonObject, keys: readonly string[]): boolean {
  let removed = false;
  for (const key of keys) {
    if (!Object.hasOwn(node, key)) continue;
    delete node[key];
    removed = true;
  }
  return removed;
}

/** Rung 2: descriptions go everywhere except the root and its own properties. */
function stripNestedDescriptions(root: JsonObject): boolean {
  let changed = false;
  walkSchema(root, ({ node, keyword, parent }) => {
    const topLevel = node === root || (keyword === 'properties' && parent === root);
    if (!topLevel && remove(node, ['description'])) changed = true;
  });
  return changed;
}

/** Rung 3: every property description goes (the root's own description stays). */
function stripPropertyDescriptions(root: JsonObject): boolean {
  let changed = false;
  walkSchema(root, ({ node }) => {
    if (node !== root && remove(node, ['description'])) changed = true;
  });
  return changed;
}

/** Rung 4: every `$defs` / `definitions` table goes; the references into them then dangle and are dropped. */
function dropDefinitionTables(root: JsonObject): boolean {
  let changed = false;
  walkSchema(root, ({ node }) => {
    if (remove(node, DEFINITION_KEYWORDS)) changed = true;
  });
  return changed;
}

/** Rung 5: objects and arrays nested deeper than three argument levels become `{ type }`. */
function collapseDeepObjects(root: JsonObject): boolean {
  let changed = false;
  const depths = new Map<JsonObject, number>();
  walkSchema(root, ({ node, keyword, parent }) => {
    const parentDepth = parent === undefined ? -1 : (depths.get(parent) ?? 0);
    const depth = parent === undefined ? 0 : parentDepth + (keyword !== undefined && NESTING_KEYWORDS.has(keyword) ? 1 : 0);
    depths.set(node, depth);
    const collapsed = depth > MAX_NESTING_DEPTH ? containerType(node) : undefined;
    if (collapsed === undefined) return;
    for (const key of Object.keys(node)) delete node[key];
    node.type = collapsed;
    changed = true;
  });
  return changed;
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
function dropCombinators(root: JsonObject): boolean {
  let changed = false;
  walkSchema(root, ({ node }) => {
    if (remove(node, COMBINATORS)) changed = true;
  });
  return changed;
}

/**
 * The compaction ladder (docs/tools.md), rung 1 first. Each step mutates the working copy and returns true when it
 * removed anything (false means the schema, and so its size, is unchanged).
 */
const LADDER: readonly ((root: JsonObject) => boolean)[] = [
  pruneDefinitions,
  stripNestedDescriptions,
  stripPropertyDescriptions,
  dropDefinitionTables,
  collapseDeepObjects,
  dropCombinators,
];

/**
 * Fits `schema` into `maxSchemaBytes` (UTF-8 bytes of compact JSON); `bytes` is its size when the caller
 * has already measured it.
 * Within budget: returns `schema` itself, rung 0. Otherwise applies the ladder's rungs (docs/tools.md) to a copy, in
 * order, re-measuring after each (references whose target a rung removed are dropped), and stops at the
 * first that fits. If all six do not fit, top-level properties are reduced to their surface, largest first,
 * down to the surface alone (`topLevelSurface`), still reported as rung 6; when even that is over budget,
 * `bytes > maxSchemaBytes` tells the caller.
 * The surface (property names, their `type`, `required`) is never changed. Deterministic, idempotent,
 * and never throws on JSON input, however malformed as a schema. Linear in the schema's size: a few
 * passes per rung, none per property.
 * Source: docs/tools.md.
 */
export function compactSchema(schema: JsonObject, maxSchemaBytes: number, bytes = jsonBytes(schema)): CompactionResult {
  if (bytes <= maxSchemaBytes) return { schema, rung: 0, bytes };
  const work = isObject(schema) ? cloneJson(schema) : {};
  let size = isObject(schema) ? bytes : jsonBytes(work);
  // Rungs only remove: once no reference is left, none can dangle, and the reference pass is skipped.
  let refsLeft = true;
  for (const [index, rung] of LADDER.entries()) {
    let changed = rung(work);
    if (refsLeft) {
      const refs = dropDanglingRefs(work);
      changed ||= refs.dropped > 0;
      refsLeft = refs.left > 0;
    }
    if (changed) size = jsonBytes(work);
    if (size <= maxSchemaBytes) return { schema: work, rung: (index + 1) as Rung, bytes: size };
  }
  const last = reduceToSurface(work, schema, maxSchemaBytes);
  return { schema: last, rung: 6, bytes: jsonBytes(last) };
}

/** One top-level property past rung 6, with the size of each of its three forms (see `formOf`). */
interface PropertyCut {
  readonly name: string;
  /** The property as rung 6 left it. */
  readonly full: unknown;
  /** Its surface: `{ type }`, `{}`, or a boolean schema. */
  readonly bare: unknown;
  /** Its original description, which rung 3 removed. */
  readonly description?: string;
  /** UTF-8 bytes of the compact JSON of forms 0, 1 and 2. */
  readonly sizes: readonly [number, number, number];
  /** UTF-8 bytes of `"name":`, the key and its colon. */
  readonly keyBytes: number;
}

type Stage = 0 | 1 | 2;

/** UTF-8 bytes of `"description":`. */
const DESCRIPTION_KEY_BYTES = jsonBytes('description') + 1;

/**
 * Past rung 6: top-level properties get their original description back (rung 3 removed it), then are
 * cut, largest first (ties by name), to their surface plus that description, then to the bare surface
 * (`{ type }`), stopping at the first cut after which the schema fits; if nothing else fits, only the
 * surface remains. A huge `enum` on one argument thus costs that argument its details, not every
 * argument its description. The size after each cut is a running byte count (the rest of the schema,
 * plus each property's key, form and comma), so the search serialises each property once instead of
 * the whole schema once per cut.
 */
function reduceToSurface(work: JsonObject, original: JsonObject, maxSchemaBytes: number): JsonObject {
  const props = work.properties;
  if (!isObject(props)) return topLevelSurface(work);
  const cuts = propertyCuts(props, original);
  const stage = new Map<PropertyCut, Stage>();
  const build = (): JsonObject => withProperties(work, cuts.map((cut) => [cut.name, formOf(cut, stage.get(cut) ?? 0)]));
  const separators = Math.max(cuts.length - 1, 0);
  let bytes = jsonBytes(withProperties(work, [])) + separators + cuts.reduce((sum, cut) => sum + cut.keyBytes + cut.sizes[0], 0);
  if (bytes <= maxSchemaBytes) return build();
  const largestFirst = [...cuts].sort((a, b) => b.sizes[0] - a.sizes[0] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const [from, to] of [[0, 1], [1, 2]] as const) {
    for (const cut of largestFirst) {
      bytes += cut.sizes[to] - cut.sizes[from];
      stage.set(cut, to);
      if (bytes <= maxSchemaBytes) return build();
    }
  }
  return topLevelSurface(work);
}

/** Form 0 is the property as rung 6 left it, form 1 its surface, both with the original description; form 2 the bare surface. */
function formOf(cut: PropertyCut, stage: Stage): unknown {
  if (stage === 2) return cut.bare;
  return described(stage === 0 ? cut.full : cut.bare, cut.description);
}

/** `form` with `description` set, when there is one and the form is an object (a boolean schema has no room for it). */
function described(form: unknown, description: string | undefined): unknown {
  return description !== undefined && isObject(form) ? { ...form, description } : form;
}

/** The cut of each top-level property, in the schema's own key order; descriptions are measured once each. */
function propertyCuts(props: JsonObject, original: JsonObject): PropertyCut[] {
  const bare = topLevelSurface({ properties: props }).properties as JsonObject;
  const originalProps = isObject(original.properties) ? original.properties : {};
  return Object.keys(props).map((name) => {
    const sub = Object.hasOwn(originalProps, name) ? originalProps[name] : undefined;
    const description = isObject(sub) && typeof sub.description === 'string' ? sub.description : undefined;
    const descriptionBytes = description === undefined ? 0 : jsonBytes(description);
    const full = props[name];
    const bareBytes = jsonBytes(bare[name]);
    const fullSize = describedBytes(full, jsonBytes(full), description, descriptionBytes);
    const surfaceSize = describedBytes(bare[name], bareBytes, description, descriptionBytes);
    return { name, full, bare: bare[name], description, sizes: [fullSize, surfaceSize, bareBytes], keyBytes: jsonBytes(name) + 1 };
  });
}

/**
 * UTF-8 bytes of `described(form, description)` from `formBytes`, the size of `form` itself: a new key
 * goes after the others, with a comma when there are others. A form that already has a description
 * (never the case after rung 3) is measured whole.
 */
function describedBytes(form: unknown, formBytes: number, description: string | undefined, descriptionBytes: number): number {
  if (description === undefined || !isObject(form)) return formBytes;
  if (Object.hasOwn(form, 'description')) return jsonBytes(described(form, description));
  return formBytes + (formBytes > 2 ? 1 : 0) + DESCRIPTION_KEY_BYTES + descriptionBytes;
}

/** A copy of `schema` with `properties` rebuilt from entries (no assignment: a property may be named `__proto__`). */
function withProperties(schema: JsonObject, entries: [string, unknown][]): JsonObject {
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(entries) : value]));
}
