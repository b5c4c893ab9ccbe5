/**
 * The required-parameter part of a manifest entry: `path: string, kind: self_register|tax_filing`.
 * Reads the shown (cleaned) `inputSchema` defensively (any shape); renders only required top-level
 * properties, with closed enum values (capped in number and length), else the JSON type. A required
 * object, or array of objects, shows its own required keys one level down
 * (`entities: {name: string, entityType: string, observations: string[]}[]`), so a first call
 * composed from the manifest alone passes admission.
 * Source: docs/tools.md, "The manifest" (required parameters with enum values spelled out, nested
 * required keys); docs/security.md (a `required` name that is no property is never shown).
 */
import { printableLine } from '../lib/printable.js';

/**
 * Closed enums show at most this many values, then `|…`; each value at most {@link MAX_VALUE_CHARS}
 * characters (code points), longer ones clipped with `…`; a rendering still longer than
 * {@link MAX_ENUM_CHARS} falls back to the type. Upstream values are text the model reads on every
 * turn: the caps keep one enum from carrying a paragraph (docs/security.md).
 */
export const MAX_ENUM_VALUES = 8;
export const MAX_VALUE_CHARS = 40;
const MAX_ENUM_CHARS = 100;
/** Nested required keys shown per parameter; more end in `…` (entry budget, docs/tools.md). */
const MAX_NESTED_KEYS = 6;
/**
 * Longest parameter name shown, in UTF-16 code units; a longer one ends in `…`. The longest required
 * name in the shared catalogues has 27 (`context7CompatibleLibraryID`).
 */
export const MAX_NAME_CHARS = 64;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A parameter name as shown: cleaned, on one line, at most {@link MAX_NAME_CHARS} (docs/security.md). */
function nameShown(name: string): string {
  return printableLine(name, MAX_NAME_CHARS);
}

/**
 * The `required` names of `schema` that are its own `properties`, once each, in `required` order: a name
 * no property declares is text the upstream chose that names no parameter, and is never shown.
 */
function declaredRequired(schema: Record<string, unknown>): { readonly names: string[]; readonly properties: Record<string, unknown> } {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const names = [...new Set(required.filter((name): name is string => typeof name === 'string' && Object.hasOwn(properties, name)))];
  return { names, properties };
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** One enum value as shown: on one line, at most {@link MAX_VALUE_CHARS} code points. */
function valueShown(value: string | number | boolean | null): string {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ') : JSON.stringify(value);
  const points = [...text];
  return points.length <= MAX_VALUE_CHARS ? text : `${points.slice(0, MAX_VALUE_CHARS - 1).join('')}…`;
}

/** `a|b|c` for a closed enum (or a `const`), capped ({@link MAX_ENUM_VALUES}), else undefined. */
function enumText(schema: Record<string, unknown>): string | undefined {
  const values = 'const' in schema ? [schema.const] : schema.enum;
  if (!Array.isArray(values) || values.length === 0) return undefined;
  if (!values.every(isScalar)) return undefined;
  const shown = values.slice(0, MAX_ENUM_VALUES).map(valueShown);
  const text = `${shown.join('|')}${values.length > MAX_ENUM_VALUES ? '|…' : ''}`;
  return [...text].length <= MAX_ENUM_CHARS ? text : undefined;
}

/** JSON type of a property: `string`, `string|null`, `string[]`, union of `anyOf`/`oneOf` types, or `any`. */
export function typeText(schema: unknown): string {
  if (!isObject(schema)) return 'any';
  const { type } = schema;
  if (typeof type === 'string') {
    if (type === 'array' && isObject(schema.items) && typeof schema.items.type === 'string') {
      return `${schema.items.type}[]`;
    }
    return type;
  }
  if (Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string')) return type.join('|');
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (union && union.length > 0) {
    const types = [...new Set(union.map(typeText))];
    return types.includes('any') ? 'any' : types.join('|');
  }
  return 'any';
}

/** One property as `v1|v2` (closed enum) or its type. */
function valueText(property: unknown): string {
  const closed = isObject(property) ? enumText(property) : undefined;
  return closed ?? typeText(property);
}

/**
 * `{a: type, b: type}` for an object schema's required keys (one level: their own nesting shows as
 * a type), or undefined when it declares none. Over {@link MAX_NESTED_KEYS} keys end in `, …`.
 */
function requiredKeysText(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  const { names, properties } = declaredRequired(schema);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, MAX_NESTED_KEYS).map((name) => `${nameShown(name)}: ${valueText(properties[name])}`);
  return `{${shown.join(', ')}${names.length > MAX_NESTED_KEYS ? ', …' : ''}}`;
}

/** A required parameter's text: nested required keys for an object or array of objects, else `valueText`. */
function parameterText(property: unknown): string {
  if (isObject(property)) {
    if (property.type === 'array') {
      const keys = requiredKeysText(property.items);
      if (keys !== undefined) return `${keys}[]`;
    }
    const keys = requiredKeysText(property);
    if (keys !== undefined && (property.type === 'object' || property.type === undefined)) return keys;
  }
  return valueText(property);
}

/**
 * Required top-level parameters as `name: type` (or `name: v1|v2` for a closed enum, or
 * `name: {key: type, …}` / `name: {key: type, …}[]` for an object or array of objects with required
 * keys), in the schema's `required` order, joined by `, `. Only names declared in `properties` are shown
 * (cleaned, on one line, capped at {@link MAX_NAME_CHARS}); a non-array `required`, non-string names and
 * names no property declares are ignored. `''` when nothing is required.
 */
export function requiredSignature(inputSchema: unknown): string {
  if (!isObject(inputSchema)) return '';
  const { names, properties } = declaredRequired(inputSchema);
  return names.map((name) => `${nameShown(name)}: ${parameterText(properties[name])}`).join(', ');
}
