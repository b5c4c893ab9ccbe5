/**
 * Admission: every call's arguments are validated with ajv against the tool's *canonical* schema
 * (never the projected one) before anything reaches the upstream. Validators are compiled once per
 * canonical schema object and cached; a schema ajv cannot compile lets calls through unvalidated with
 * one warning per tool. Turning a verdict into an `isError` result and logging are the caller's job.
 * Source: DESIGN §7 ("Admission always validates arguments against the canonical schema").
 */

import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject } from '../catalog/types.js';
import type { AdmissionVerdict, Violation } from './types.js';
import { cloneJson, isObject, walkSchema } from './walk.js';

/** Violations listed in the text before "…and N more": enough to fix a call, short enough to read. */
const MAX_LISTED_VIOLATIONS = 8;
/** Enum values quoted in one line before the rest is elided. */
const MAX_LISTED_VALUES = 12;

/**
 * ajv settings: `strict: false` accepts the unknown keywords real servers ship; `validateFormats: false`
 * ignores `format` (unknown formats must not fail compilation, and no format package is bundled);
 * `logger: false` keeps ajv off the console. Tools that share an `$id` stay apart because each schema is
 * removed from the engine right after compilation (`addUsedSchema: false` would do it too, but then ajv
 * cannot resolve `$ref: "#"`, the usual spelling of a recursive root).
 */
const AJV_OPTIONS: Options = { strict: false, allErrors: true, validateFormats: false, logger: false };

type Dialect = 'draft-07' | '2019-09' | '2020-12';
type Compiled = { readonly validate: ValidateFunction } | { readonly error: string };

/** Keywords that exist only from 2019-09 on: their presence means the author wrote 2020-12 (MCP's default). */
const MODERN_KEYWORDS = ['$defs', 'prefixItems', '$dynamicRef', '$dynamicAnchor', 'dependentSchemas', 'dependentRequired', 'unevaluatedProperties', 'unevaluatedItems'];

/**
 * The dialect to validate `schema` with: its `$schema` when it names a known draft; otherwise 2020-12
 * when it uses a keyword only 2019-09+ has, else draft-07 (what most servers still emit).
 * Source: MCP 2025-11-25 (default dialect 2020-12); ajv's per-dialect classes.
 */
export function schemaDialect(schema: JsonObject): Dialect {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  if (/draft-0\d/.test(declared)) return 'draft-07';
  let modern = false;
  walkSchema(schema, ({ node }) => {
    if (MODERN_KEYWORDS.some((k) => k in node)) modern = true;
  });
  return modern ? '2020-12' : 'draft-07';
}

/**
 * Validates call arguments against canonical schemas; one instance per gateway, shared by sessions.
 * Holds only caches: compiled validators per canonical schema object (weakly, so a replaced catalogue
 * snapshot frees them) and the keys already warned about.
 */
export class Admission {
  private readonly compiled = new WeakMap<object, Compiled>();
  private readonly warned = new Set<string>();
  private readonly engines = new Map<Dialect, Ajv>();

  /**
   * Checks `args` (undefined or null count as `{}`) against `schema`, the canonical inputSchema of the
   * tool called as `key` (its qualified name, used in the text). Returns
   * `{ ok: true, validated: true }`, `{ ok: false, violations, text }` with a model-readable `text`, or
   * `{ ok: true, validated: false, warning? }` when the schema cannot be compiled (`warning` only the
   * first time for `key`). Never throws.
   */
  check(key: string, schema: JsonObject, args: unknown): AdmissionVerdict {
    const compiled = this.compile(schema);
    if ('error' in compiled) {
      if (this.warned.has(key)) return { ok: true, validated: false };
      this.warned.add(key);
      return { ok: true, validated: false, warning: `input schema of ${key} cannot be compiled (${compiled.error}); calls are forwarded unvalidated` };
    }
    const data = args === undefined || args === null ? {} : args;
    if (compiled.validate(data)) return { ok: true, validated: true };
    const violations = describeErrors(compiled.validate.errors ?? []);
    return { ok: false, violations, text: violationText(key, violations) };
  }

  private compile(schema: JsonObject): Compiled {
    const key: object = isObject(schema) ? schema : Object(schema);
    const cached = this.compiled.get(key);
    if (cached !== undefined) return cached;
    const result = isObject(schema) ? this.compileObject(schema) : { error: 'schema is not an object' };
    this.compiled.set(key, result);
    return result;
  }

  private compileObject(schema: JsonObject): Compiled {
    const engine = this.engine(schemaDialect(schema));
    // The dialect is already chosen; a `$schema` ajv has no meta-schema for (draft-04) must not fail compilation.
    const { $schema: _dialect, ...body } = withNumericBounds(schema);
    try {
      return { validate: engine.compile(body) };
    } catch (error) {
      return { error: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error) };
    } finally {
      // The validator keeps working; left registered, the `$id` would clash with the next tool's and
      // ajv's cache would grow with every catalogue.
      engine.removeSchema(body);
    }
  }

  private engine(dialect: Dialect): Ajv {
    let engine = this.engines.get(dialect);
    if (engine === undefined) {
      engine = dialect === '2020-12' ? new Ajv2020(AJV_OPTIONS) : dialect === '2019-09' ? new Ajv2019(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
      this.engines.set(dialect, engine);
    }
    return engine;
  }
}

/**
 * draft-04 wrote exclusive bounds as booleans beside `minimum`/`maximum`; ajv (draft-06+) only takes
 * numbers and refuses to compile. Rewrites them to the numeric form with the same meaning, on a copy.
 */
function withNumericBounds(schema: JsonObject): JsonObject {
  let legacy = false;
  walkSchema(schema, ({ node }) => {
    if (typeof node.exclusiveMinimum === 'boolean' || typeof node.exclusiveMaximum === 'boolean') legacy = true;
  });
  if (!legacy) return schema;
  const copy = cloneJson(schema);
  walkSchema(copy, ({ node }) => {
    for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (typeof node[exclusive] !== 'boolean') continue;
      if (node[exclusive] === true && typeof node[bound] === 'number') {
        node[exclusive] = node[bound];
        delete node[bound];
      } else delete node[exclusive];
    }
  });
  return copy;
}

/** ajv errors → one violation each, with `anyOf`/`oneOf` type alternatives folded into one line. */
function describeErrors(errors: readonly ErrorObject[]): Violation[] {
  const folded = new Set<ErrorObject>();
  const violations: Violation[] = [];
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const branches = errors.filter((b) => b.keyword === 'type' && b.instancePath === e.instancePath && b.schemaPath.startsWith(`${e.schemaPath}/`));
    if (branches.length === 0) continue;
    branches.forEach((b) => folded.add(b));
    folded.add(e);
    const types = [...new Set(branches.map((b) => String(b.params.type)))];
    violations.push({ path: e.instancePath, message: `must be ${types.join(' or ')}` });
  }
  for (const e of errors) if (!folded.has(e)) violations.push({ path: e.instancePath, message: messageOf(e) });
  const seen = new Set<string>();
  return violations.filter((v) => !seen.has(`${v.path}\n${v.message}`) && seen.add(`${v.path}\n${v.message}`));
}

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required property ${JSON.stringify(p.missingProperty)}`;
    case 'additionalProperties':
      return `unexpected property ${JSON.stringify(p.additionalProperty)}`;
    case 'enum':
      return `must be one of ${listValues(Array.isArray(p.allowedValues) ? p.allowedValues : [])}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return e.message ?? `fails "${e.keyword}"`;
  }
}

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED_VALUES).map((v) => JSON.stringify(v)).join(', ');
  return values.length > MAX_LISTED_VALUES ? `${shown}, … (${values.length - MAX_LISTED_VALUES} more)` : shown;
}

/**
 * The `isError` text for a rejected call: a header naming the tool, one line per violation
 * (`- /path: message`, `(root)` for the arguments object), at most 8, then "…and N more".
 * Source: DESIGN §7 ("names each violation by JSON path with the expected type or allowed values").
 */
export function violationText(key: string, violations: readonly Violation[]): string {
  const lines = violations.slice(0, MAX_LISTED_VIOLATIONS).map((v) => `- ${v.path === '' ? '(root)' : v.path}: ${v.message}`);
  if (violations.length > MAX_LISTED_VIOLATIONS) lines.push(`- …and ${violations.length - MAX_LISTED_VIOLATIONS} more`);
  return [`Invalid arguments for ${key}:`, ...lines].join('\n');
}
