/**
 * A one-walk stand-in for ajv's meta-schema validation at admission. ajv's compiler already refuses a
 * keyword value of the wrong JSON type (a string `minimum`, an object `anyOf`, a `type` that names no
 * type, an empty `enum`, a `pattern` that is no regex); the meta-schema adds value constraints, and the
 * ones that change what a validator accepts are checked here: length and count limits that are not
 * non-negative integers, a `multipleOf` of zero or less, an empty `anyOf` / `oneOf` / `allOf`, a member
 * of a subschema list or map that is not a schema, a non-string where property names are listed.
 * Uniqueness (`enum`, `type`, `required`) is not checked: duplicates change nothing, and the draft-07
 * meta-schema checks `enum` pairwise, which took 29 s on a 62,000-value enum.
 * Source: JSON Schema draft-07 and 2020-12 meta-schemas; docs/tools.md (admission).
 */

import type { JsonObject } from '../catalog/types.js';
import { escapeToken, isObject, walkSchema } from './walk.js';

/** Limits the meta-schemas type as non-negative integers. */
const COUNT_KEYWORDS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties', 'maxContains', 'minContains'];
/** Combinators the meta-schemas require to be non-empty: an empty `anyOf` / `oneOf` rejects every value. */
const NON_EMPTY_KEYWORDS = ['anyOf', 'oneOf', 'allOf'];
/** Keywords holding a list of subschemas (`items` in draft-07's tuple form). */
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords holding a map of subschemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * The first constraint `schema` breaks, as `<JSON pointer to the keyword> <what it must be>`, or
 * undefined when none. Linear in the schema's size; never throws on JSON input.
 * Source: JSON Schema draft-07 and 2020-12 meta-schemas.
 */
export function metaSchemaProblem(schema: JsonObject): string | undefined {
  let problem: string | undefined;
  walkSchema(schema, ({ node, ptr }) => {
    problem ??= nodeProblem(node, ptr);
  });
  return problem;
}

/** The first broken constraint among `node`'s own keywords. */
function nodeProblem(node: JsonObject, ptr: string): string | undefined {
  for (const kw of COUNT_KEYWORDS) {
    const value = node[kw];
    if (typeof value === 'number' && !(Number.isInteger(value) && value >= 0)) return `${ptr}/${kw} must be a non-negative integer`;
  }
  if (typeof node.multipleOf === 'number' && !(node.multipleOf > 0)) return `${ptr}/multipleOf must be greater than 0`;
  for (const kw of NON_EMPTY_KEYWORDS) {
    if (Array.isArray(node[kw]) && node[kw].length === 0) return `${ptr}/${kw} must not be empty`;
  }
  for (const kw of SCHEMA_LIST_KEYWORDS) {
    const list = node[kw];
    if (Array.isArray(list) && !list.every(isSchema)) return `${ptr}/${kw} must hold only schemas`;
  }
  for (const kw of SCHEMA_MAP_KEYWORDS) {
    const map = node[kw];
    if (isObject(map) && !Object.values(map).every(isSchema)) return `${ptr}/${kw} must hold only schemas`;
  }
  return nameListProblem(node, ptr);
}

/** `required`, and the lists in `dependencies` / `dependentRequired`, must hold property names only. */
function nameListProblem(node: JsonObject, ptr: string): string | undefined {
  if (Array.isArray(node.required) && !node.required.every(isName)) return `${ptr}/required must hold only strings`;
  for (const kw of ['dependencies', 'dependentRequired'] as const) {
    const map = node[kw];
    if (!isObject(map)) continue;
    for (const [name, value] of Object.entries(map)) {
      const valid = Array.isArray(value) ? value.every(isName) : kw === 'dependencies' && isSchema(value);
      if (!valid) return `${ptr}/${kw}/${escapeToken(name)} must be a list of strings${kw === 'dependencies' ? ' or a schema' : ''}`;
    }
  }
  return undefined;
}

/** A subschema: an object or a boolean. */
function isSchema(value: unknown): boolean {
  return isObject(value) || typeof value === 'boolean';
}

function isName(value: unknown): boolean {
  return typeof value === 'string';
}
