/**
 * The top-level argument surface of an input schema: the part compaction must never change
 * (property names, each property's `type`, `required`), and the floor the ladder falls back to.
 * Source: docs/tools.md (no rung touches the top-level argument surface).
 */

import type { JsonObject } from '../catalog/types.js';
import { isObject } from './walk.js';

/**
 * The surface of `schema` as a schema: root `type`, `properties` mapped to `{ type }` (or `{}` when a
 * property declares no type; boolean property schemas kept), and `required`, all verbatim and in the
 * schema's own key order. Keys absent from the schema stay absent; a `properties` that is not an object
 * has no surface. A non-object schema has the empty surface `{}`.
 * Source: docs/tools.md.
 */
export function topLevelSurface(schema: unknown): JsonObject {
  if (!isObject(schema)) return {};
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'required') entries.push([key, value]);
    else if (key === 'properties' && isObject(value)) entries.push([key, propertySurface(value)]);
  }
  return Object.fromEntries(entries);
}

function propertySurface(properties: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.entries(properties).map(([name, sub]): [string, unknown] => {
      if (typeof sub === 'boolean') return [name, sub];
      return [name, isObject(sub) && 'type' in sub ? { type: sub.type } : {}];
    }),
  );
}
