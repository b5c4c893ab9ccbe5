/**
 * The wire form of a tool declaration: what every MCP client accepts. MCP's `Tool` requires the
 * `inputSchema` (and an `outputSchema`, when there is one) to be an object schema with `"type": "object"`
 * at the root, each property schema an object and `required` a list of strings; the optional fields
 * (`title`, `icons`, `annotations`, `execution`, `_meta`) have fixed shapes. The SDK's
 * `Client.listTools()` rejects the whole list for one tool that breaks any of it, and it compiles every
 * `outputSchema` with ajv, so one that does not compile sinks the list too.
 *
 * Normalisations, each only for the wire (admission keeps the canonical schema, docs/tools.md):
 * - `type` missing, an array holding `"object"`, or a name that is no JSON type → `"object"`; the rest of the
 *   schema (`properties`, a top-level `anyOf` / `oneOf` / `allOf` with its branches, `$ref`, …) is kept.
 *   Arguments are always an object, so this narrows only to what MCP can carry.
 * - a property schema `true` → `{}`, `false` → `{ "not": {} }`, any other non-object → `{}`; a `properties`
 *   that is no object is left out; `required` keeps only its strings.
 * - a schema that accepts no object at all (`"type": "string"`, `false`, an `anyOf` of scalars, a `const`
 *   or `enum` without an object) cannot be called with the object MCP always sends: it is not wrapped
 *   (the upstream would still receive an object and refuse it), the tool is dropped.
 * - an `outputSchema` that cannot be made such an object schema, that ajv cannot compile, or too large to
 *   compile on every rebuild, is left out: the tool stays, and its `structuredContent` still reaches the
 *   client, unchecked by it.
 * - an optional field of the wrong shape is left out; unknown fields pass verbatim.
 * Pure apart from ajv compiling (each schema is removed from the engine right after).
 * Source: MCP 2025-11-25 schema (`Tool`, `ToolAnnotations`, `Icon`, `ToolExecution`).
 */

import { createHash } from 'node:crypto';
import type { Ajv } from 'ajv';
import { newAjv } from './ajvEngines.js';
import type { JsonObject } from '../catalog/types.js';
import { jsonBytes } from './measure.js';
import { isObject } from './walk.js';

/** The JSON Schema type names (JSON Schema Validation §6.1.1). */
const JSON_TYPES: ReadonlySet<string> = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);

/** Nesting of `anyOf` / `oneOf` / `allOf` looked through when deciding whether an object is accepted. */
const MAX_COMBINATOR_DEPTH = 8;

/** The wire schema, or why there is none. */
export type WireSchema = { readonly ok: true; readonly schema: JsonObject } | { readonly ok: false; readonly reason: string };

/**
 * False only when `schema` provably accepts no JSON object: `false`, a `type` naming only non-object
 * types, a `const` or `enum` without an object, an `anyOf` / `oneOf` whose branches all refuse objects,
 * or an `allOf` with such a branch. Anything it cannot judge (`$ref`, `not`, `if`) counts as accepting.
 */
export function acceptsObject(schema: unknown, depth = 0): boolean {
  if (schema === false) return false;
  if (!isObject(schema) || depth > MAX_COMBINATOR_DEPTH) return true;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  const known = types.filter((t): t is string => typeof t === 'string' && JSON_TYPES.has(t));
  if (known.length > 0 && !known.includes('object')) return false;
  if ('const' in schema && !isObject(schema.const)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some(isObject)) return false;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0 && !branches.some((b) => acceptsObject(b, depth + 1))) return false;
  }
  const all = schema.allOf;
  return !(Array.isArray(all) && all.some((b) => !acceptsObject(b, depth + 1)));
}

/** What a schema's `type` says, for a reason text: `"type": "string"`, or the keyword that refuses. */
function refusal(schema: unknown): string {
  if (schema === false) return 'it is `false`';
  if (isObject(schema) && 'type' in schema) return `"type": ${JSON.stringify(schema.type)}`;
  return 'its const, enum or branches';
}

/**
 * `schema` with `"type": "object"` at the root, object property schemas and a string `required`
 * (the normalisations listed in the module comment). Returns `schema` itself when nothing had to change,
 * so a valid schema stays byte-identical (docs/tools.md). Only the root level is copied.
 */
function asObjectSchema(schema: JsonObject): JsonObject {
  // Spread, not Object.assign: an own `__proto__` key must stay a key. `type` leads when it is added.
  let copy: JsonObject | undefined;
  if (schema.type !== 'object') (copy = { type: 'object', ...schema }).type = 'object';
  const edit = (): JsonObject => (copy ??= { ...schema });
  if ('properties' in schema) {
    const properties = schema.properties;
    if (!isObject(properties)) delete edit().properties;
    else if (Object.values(properties).some((p) => !isObject(p))) {
      edit().properties = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, isObject(p) ? p : p === false ? { not: {} } : {}]));
    }
  }
  if ('required' in schema) {
    const required = schema.required;
    if (!Array.isArray(required)) delete edit().required;
    else if (required.some((r) => typeof r !== 'string')) edit().required = required.filter((r) => typeof r === 'string');
  }
  return copy ?? schema;
}

/**
 * The wire form of an `inputSchema` (canonical, an object as listed): `schema` itself when already
 * valid, a normalised copy, or `ok: false` with the reason when it accepts no object.
 */
export function wireInputSchema(schema: JsonObject): WireSchema {
  // Not reachable from an upstream (listing drops such tools); a caller's non-object is no constraint at all.
  if (!isObject(schema)) return { ok: true, schema: { type: 'object' } };
  if (!acceptsObject(schema)) return { ok: false, reason: `its inputSchema accepts no JSON object (${refusal(schema)}), and MCP tool arguments are always an object` };
  return { ok: true, schema: asObjectSchema(schema) };
}

/**
 * ajv set like the SDK Client's own validator (`strict: false`, `validateSchema: false`), which compiles
 * every outputSchema in `listTools()`. Formats are not validated (they never make compilation fail with
 * `strict: false`), nothing is logged, and the two options that only speed compilation up are on
 * (`loopEnum`, no `code.optimize`: see admit.ts). It keeps no state between calls: each schema is
 * removed right after compilation. Made on the first outputSchema (ajvEngines.ts).
 */
let outputAjv: Ajv | undefined;
const OUTPUT_AJV = (): Ajv =>
  (outputAjv ??= newAjv('draft-07', { strict: false, validateSchema: false, allErrors: true, validateFormats: false, logger: false, loopEnum: 64, code: { optimize: false } }));

/**
 * Largest outputSchema compiled to check it, in UTF-8 bytes of compact JSON. Compilation time grows
 * with the schema and runs on every rebuild: a 1 MB one took 8.5 s on the shared 2-core machine, a
 * small one ~3 ms. A larger outputSchema is left out of the wire (unchecked, it could sink the client's
 * list; and no budget bounds what it costs every turn); its structuredContent still goes through.
 */
export const MAX_CHECKED_OUTPUT_BYTES = 32 * 1024;

/**
 * The wire form of an `outputSchema` value as listed: `true` → `{ "type": "object" }`; an object
 * normalised like an inputSchema; `ok: false` when it accepts no object (structuredContent is always
 * an object) or ajv cannot compile it as the SDK Client would.
 */
export function wireOutputSchema(value: unknown): WireSchema {
  if (value === true) return { ok: true, schema: { type: 'object' } };
  if (!isObject(value)) return { ok: false, reason: `outputSchema is ${JSON.stringify(value) ?? String(value)}, not a schema object` };
  if (!acceptsObject(value)) return { ok: false, reason: `outputSchema accepts no JSON object (${refusal(value)}), and structuredContent is always an object` };
  const schema = asObjectSchema(value);
  let bytes: number;
  try {
    bytes = jsonBytes(schema);
  } catch (error) {
    return { ok: false, reason: `outputSchema cannot be serialised: ${(error as Error).message}` };
  }
  if (bytes > MAX_CHECKED_OUTPUT_BYTES) return { ok: false, reason: `outputSchema is ${bytes} bytes, over the ${MAX_CHECKED_OUTPUT_BYTES} checked before it is sent` };
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 32);
  let failure = compileVerdicts.get(key);
  if (failure === undefined) compileVerdicts.set(key, (failure = compileFailure(schema)));
  return failure === '' ? { ok: true, schema } : { ok: false, reason: `outputSchema does not compile: ${failure}` };
}

/** ajv's message when `schema` does not compile, '' when it does. */
function compileFailure(schema: JsonObject): string {
  try {
    OUTPUT_AJV().compile(schema);
    return '';
  } catch (error) {
    return (error as Error).message;
  } finally {
    OUTPUT_AJV().removeSchema(schema);
  }
}

/**
 * What compiling each outputSchema gave, by 32 hex digits of SHA-256 of its compact JSON: '' compiled,
 * else ajv's message. Compiling is pure and the same on every projection, and a cached start projects
 * every tool again: loading ajv and compiling the bundled servers' outputSchemas was most of what such
 * a start did beyond one with no upstreams (docs/performance.md). Seeded from the state folder and
 * saved to it (outputVerdicts.ts).
 */
const compileVerdicts = new Map<string, string>();

/** The compile verdicts known, oldest first ({@link compileVerdicts}). */
export function knownCompileVerdicts(): ReadonlyMap<string, string> {
  return compileVerdicts;
}

/** Adds verdicts read back (keys of 32 hex digits, values '' or a message); known ones stay. */
export function rememberCompileVerdicts(verdicts: Iterable<readonly [string, string]>): void {
  for (const [key, failure] of verdicts) if (!compileVerdicts.has(key)) compileVerdicts.set(key, failure);
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isBooleanOrAbsent = (v: unknown): boolean => v === undefined || typeof v === 'boolean';
const isStringOrAbsent = (v: unknown): boolean => v === undefined || typeof v === 'string';

/** Shapes of the optional Tool fields (MCP 2025-11-25 `Tool`, `ToolAnnotations`, `Icon`, `ToolExecution`). */
const FIELD_CHECKS: Readonly<Record<string, (value: unknown) => boolean>> = {
  title: isString,
  _meta: isObject,
  annotations: (v) =>
    isObject(v) && isStringOrAbsent(v.title) && ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].every((k) => isBooleanOrAbsent(v[k])),
  execution: (v) => isObject(v) && (v.taskSupport === undefined || ['required', 'optional', 'forbidden'].includes(v.taskSupport as string)),
  icons: (v) =>
    Array.isArray(v) &&
    v.every(
      (icon) =>
        isObject(icon) &&
        isString(icon.src) &&
        isStringOrAbsent(icon.mimeType) &&
        (icon.sizes === undefined || (Array.isArray(icon.sizes) && icon.sizes.every(isString))) &&
        (icon.theme === undefined || icon.theme === 'light' || icon.theme === 'dark'),
    ),
};

/** The fields of a tool beyond name, description and inputSchema as they go on the wire, and what was left out. */
export interface WireFields {
  readonly fields: JsonObject;
  /** One sentence per field left out, naming it and why. */
  readonly removed: readonly string[];
}

/**
 * The tool's other fields for the wire: `outputSchema` through {@link wireOutputSchema}, each optional
 * field of a known name checked against its shape and left out when wrong, unknown fields verbatim.
 */
export function wireFields(tool: JsonObject): WireFields {
  const { name: _name, description: _description, inputSchema: _input, ...rest } = tool;
  const removed: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'outputSchema') {
      const output = wireOutputSchema(value);
      if (output.ok) rest.outputSchema = output.schema;
      else (delete rest.outputSchema, removed.push(`${output.reason}; it is left out`));
    } else if (FIELD_CHECKS[key] && !FIELD_CHECKS[key](value)) {
      delete rest[key];
      removed.push(`"${key}" is not the shape MCP defines for it; it is left out`);
    }
  }
  return { fields: rest, removed };
}
