/**
 * Admission: every call's arguments are validated with ajv against the tool's *canonical* schema
 * (never the projected one) before anything reaches the upstream. Validators are compiled once per
 * canonical schema object and cached; a schema ajv cannot compile lets calls through unvalidated with
 * one warning per tool. Turning a verdict into an `isError` result and logging are the caller's job.
 * Source: docs/tools.md, "Calls" (arguments are validated against the upstream's canonical schema).
 */

import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import { newAjv, type Dialect } from './ajvEngines.js';
import { boundedRegExp } from './boundedRegExp.js';
import type { JsonObject } from '../catalog/types.js';
import { metaSchemaProblem } from './metaCheck.js';
import type { AdmissionVerdict, Violation } from './types.js';
import { cloneJson, isObject, walkSchema } from './walk.js';

/** Violations listed in the text before "…and N more": enough to fix a call, short enough to read. */
const MAX_LISTED_VIOLATIONS = 8;
/** Enum values quoted in one line before the rest is elided. */
const MAX_LISTED_VALUES = 12;

/** Enums with at least this many values are checked by a loop over the schema's own array, not by generated code. */
const LOOP_ENUM_VALUES = 64;

/**
 * ajv settings: `strict: false` accepts the unknown keywords real servers ship; `validateFormats: false`
 * ignores `format` (unknown formats must not fail compilation, and no format package is bundled);
 * `logger: false` keeps ajv off the console. Three keep compilation from blocking the event loop:
 * `validateSchema: false` skips ajv's meta-schema check, whose pairwise `uniqueItems` took 29 s on a
 * 62,000-value enum (`metaSchemaProblem` checks what matters instead); `loopEnum` keeps a huge enum out
 * of the generated source (1.5 MB of comparisons for 62,000 values); `code.optimize: false` skips ajv's
 * pass over the generated code, quadratic in its nesting (a 1,000-branch `anyOf`: 0.4 s → 0.08 s; the
 * 808 catalogue schemas compile in 120 ms instead of 190 ms and validate as fast). Tools that share an
 * `$id` stay apart because each schema is removed from the engine right after compilation
 * (`addUsedSchema: false` would do it too, but then ajv cannot resolve `$ref: "#"`, the usual spelling of
 * a recursive root).
 * `code.regExp` runs `pattern` checks under a time limit ({@link boundedRegExp}): an upstream's
 * `(a+)+$` must not freeze every session on a crafted argument.
 */
const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  validateFormats: false,
  logger: false,
  validateSchema: false,
  loopEnum: LOOP_ENUM_VALUES,
  code: { optimize: false, regExp: boundedRegExp() },
};

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
   * first time for `key`). A validator that throws when run counts as a schema that cannot be compiled.
   * Never throws.
   */
  check(key: string, schema: JsonObject, args: unknown): AdmissionVerdict {
    const compiled = this.compile(schema);
    if ('error' in compiled) return this.unvalidated(key, compiled.error);
    const data = args === undefined || args === null ? {} : args;
    let valid: boolean;
    try {
      valid = compiled.validate(data);
    } catch (error) {
      // V8 parses generated code when it first runs: a validator nested too deeply (an `anyOf` of 1,600
      // branches) overflows the stack there, not in ajv's compile.
      const failed = { error: firstLine(error) };
      this.compiled.set(schema, failed);
      return this.unvalidated(key, failed.error);
    }
    if (valid) return { ok: true, validated: true };
    const violations = describeErrors(compiled.validate.errors ?? []);
    return { ok: false, violations, text: violationText(key, violations) };
  }

  /** The verdict for a schema that cannot be compiled: forwarded unvalidated, with a warning the first time for `key`. */
  private unvalidated(key: string, error: string): AdmissionVerdict {
    if (this.warned.has(key)) return { ok: true, validated: false };
    this.warned.add(key);
    return { ok: true, validated: false, warning: `input schema of ${key} cannot be compiled (${error}); calls are forwarded unvalidated` };
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
      const problem = metaSchemaProblem(body);
      if (problem !== undefined) return { error: `schema is invalid: ${problem}` };
      return { validate: engine.compile(body) };
    } catch (error) {
      return { error: firstLine(error) };
    } finally {
      // The validator keeps working; left registered, the `$id` would clash with the next tool's and
      // ajv's cache would grow with every catalogue.
      engine.removeSchema(body);
    }
  }

  private engine(dialect: Dialect): Ajv {
    let engine = this.engines.get(dialect);
    if (engine === undefined) {
      engine = newAjv(dialect, AJV_OPTIONS);
      this.engines.set(dialect, engine);
    }
    return engine;
  }
}

/** The first line of a thrown value's message. */
function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
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

/** ajv errors → one violation each (`path` a JSON pointer into the checked value), with `anyOf`/`oneOf` type alternatives folded into one line. */
export function describeErrors(errors: readonly ErrorObject[]): Violation[] {
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
 * Source: docs/tools.md, "Calls" (each violation listed by JSON path).
 */
export function violationText(key: string, violations: readonly Violation[]): string {
  const lines = violations.slice(0, MAX_LISTED_VIOLATIONS).map((v) => `- ${v.path === '' ? '(root)' : v.path}: ${v.message}`);
  if (violations.length > MAX_LISTED_VIOLATIONS) lines.push(`- …and ${violations.length - MAX_LISTED_VIOLATIONS} more`);
  return [`Invalid arguments for ${key}:`, ...lines].join('\n');
}
