/**
 * Schema preparation (`schemas.prepare`): the optional, user-requested rewrites applied before
 * compaction — `resolveRefs`, `stripKeywords`, `strict` — and the description synthesised for tools
 * that have none. Each option is off by default; with all off the schema is returned untouched.
 * Budget-driven changes belong to `compact.ts`. Source: docs/tools.md (preparation), docs/configuration.md (`schemas.prepare`).
 */

import type { JsonObject } from '../catalog/types.js';
import type { PrepareOptions } from '../config/types.js';
import { inlineRefs } from './inline.js';
import { cloneJson, isObject, walkSchema } from './walk.js';

/**
 * Keywords dropped by `stripKeywords`, at every subschema. Each only annotates or names the document:
 * none changes which arguments are valid, so advertising without them never contradicts admission.
 * - `$schema`: Gemini/Vertex function declarations reject it as an unknown field; others ignore it.
 * - `$comment`, `$vocabulary`: authoring and meta-schema notes, meaningless to a model.
 * - `examples`, `readOnly`, `writeOnly`: annotations providers ignore or reject (Gemini's schema subset);
 *   `examples` is often the largest of them.
 * `$id` goes only at the root: a nested `$id` changes what `#` means for the references inside it.
 * Validation keywords some providers reject (`additionalProperties`, `default`, `format`) are kept:
 * they carry meaning for every other client.
 */
export const STRIPPED_KEYWORDS: readonly string[] = ['$schema', '$comment', '$vocabulary', 'examples', 'readOnly', 'writeOnly'];

/** Dialects that spell tuples `items: [...]` + `additionalItems` (draft-04 to draft-07, 2019-09). */
const LEGACY_TUPLE_DIALECT = /draft-0[3-7]|2019-09/;

/**
 * Applies the requested preparation to a copy of `schema`, in order: resolveRefs, stripKeywords, strict.
 * Returns `schema` itself (same object) when every option is off.
 * Input and output are JSON Schema objects; the top-level `required` changes only under `strict`.
 * Never throws on JSON input. Source: docs/tools.md.
 */
export function prepareSchema(schema: JsonObject, options: PrepareOptions): JsonObject {
  if (!isObject(schema) || (!options.resolveRefs && !options.stripKeywords && !options.strict)) return schema;
  let out = options.resolveRefs ? inlineRefs(schema) : schema;
  out = out === schema ? cloneJson(schema) : out;
  if (options.stripKeywords) stripKeywords(out);
  if (options.strict) makeStrict(out);
  return out;
}

/**
 * Drops `STRIPPED_KEYWORDS` everywhere and the root `$id`, in place. Once `$schema` is gone a client
 * reads MCP's default dialect (2020-12), so a draft-07 tuple (`items: [...]`, `additionalItems`) is
 * rewritten as `prefixItems` / `items` to keep its meaning. Property *names* are never touched.
 */
function stripKeywords(root: JsonObject): void {
  const dialect = typeof root.$schema === 'string' ? root.$schema : '';
  const legacyTuples = dialect === '' || LEGACY_TUPLE_DIALECT.test(dialect);
  const rootId = typeof root.$id === 'string' ? (root.$id.split('#')[0] ?? '') : '';
  delete root.$id;
  walkSchema(root, ({ node }) => {
    for (const key of STRIPPED_KEYWORDS) delete node[key];
    // References that named the root by its `$id` now name it by `#`.
    if (rootId !== '' && typeof node.$ref === 'string' && node.$ref.split('#')[0] === rootId) {
      node.$ref = `#${node.$ref.slice(rootId.length + 1)}`;
    }
    if (legacyTuples && Array.isArray(node.items) && !('prefixItems' in node)) rewriteTuple(node);
  });
}

/** draft-07 `items: [...]` + `additionalItems` → 2020-12 `prefixItems` + `items`, same meaning. */
function rewriteTuple(node: JsonObject): void {
  const { items, additionalItems } = node;
  delete node.additionalItems;
  node.prefixItems = items;
  if (additionalItems === undefined) delete node.items;
  else node.items = additionalItems;
}

/**
 * Strict mode, in place: every object that declares `properties` lists them all in `required` and gets
 * `additionalProperties: false` (OpenAI structured-outputs rules). An optional property becomes required
 * *and nullable* (`type` widened with `"null"`, `null` added to an `enum`), so the model can still decline
 * it by sending `null`; the caller must drop those nulls before admission (`dropNullOptionals`), since the
 * canonical schema does not accept them. Free-form objects (no `properties`) and objects whose extra
 * properties are described (`additionalProperties` schema, `patternProperties`) keep their openness:
 * closing them would forbid every argument they exist to carry.
 */
function makeStrict(root: JsonObject): void {
  walkSchema(root, ({ node }) => {
    const props = node.properties;
    if (!isObject(props)) return;
    const required = new Set(Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : []);
    for (const [name, sub] of Object.entries(props)) if (!required.has(name) && isObject(sub)) allowNull(sub);
    node.required = Object.keys(props);
    const extra = node.additionalProperties;
    if ((extra === undefined || extra === true) && !('patternProperties' in node)) node.additionalProperties = false;
  });
}

function allowNull(schema: JsonObject): void {
  const { type } = schema;
  if (typeof type === 'string' && type !== 'null') schema.type = [type, 'null'];
  else if (Array.isArray(type) && !type.includes('null')) schema.type = [...type, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}

/**
 * Removes every argument whose value is `null` where the canonical schema declares the property but
 * does not require it — the model's way of declining an optional property that strict mode advertised
 * as required-and-nullable — recursing along `properties`. Levels whose canonical schema declares no
 * `properties` (free-form objects, untouched by strict) are returned as they are. Returns a new object.
 * Source: docs/tools.md (strict); admission checks the canonical schema, which rejects those nulls.
 */
export function dropNullOptionals(canonical: JsonObject, args: JsonObject): JsonObject {
  const props = canonical.properties;
  if (!isObject(props)) return args;
  const required = Array.isArray(canonical.required) ? canonical.required : [];
  const entries = Object.entries(args).flatMap(([name, value]): [string, unknown][] => {
    const sub = Object.hasOwn(props, name) ? props[name] : undefined;
    if (value === null && sub !== undefined && !required.includes(name)) return [];
    return [[name, isObject(value) && isObject(sub) ? dropNullOptionals(sub, value) : value]];
  });
  return Object.fromEntries(entries);
}

/**
 * The tool description as advertised: `description` when it is a non-blank string (kept verbatim),
 * otherwise a sentence made from the name's words: `read_text_file` → "Read text file.",
 * `getHTTPStatus` → "Get HTTP status.", `server::tool-name` → "Server tool name.".
 * Source: docs/tools.md ("Schemas on the wire": a tool with no description gets one made from its name).
 */
export function describeTool(name: string, description: unknown): string {
  if (typeof description === 'string' && description.trim() !== '') return description;
  const words = String(name)
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
    .map((w) => (w === w.toUpperCase() && w.length > 1 ? w : w.toLowerCase()));
  if (words.length === 0) return 'Tool.';
  const [first = '', ...rest] = words;
  return `${[first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ')}.`;
}
