/**
 * The output check: a tool result forwarded to the client is checked against the `outputSchema` the
 * client was given for that tool, as the client's own SDK does (its `Client.callTool` throws -32602 on
 * `structuredContent` that does not match, and -32600 when it is missing, so the model never sees the
 * result). A result that would fail there is forwarded as an `isError` with its content and a note
 * naming the mismatch by JSON path, without its `structuredContent` (an `isError` result is not
 * checked against the outputSchema). Validators are compiled on a tool's first call, once per
 * outputSchema object; a schema ajv cannot compile is forwarded unchecked. See docs/performance.md
 * ("Memory") for why nothing is compiled before a call.
 * Source: MCP spec, Server features › Tools › Output schema ("Clients SHOULD validate structured results
 * against this schema"); the SDK's AjvJsonSchemaValidator (dialects, formats).
 */
import type { Ajv, Options, ValidateFunction } from 'ajv';
// The server package's copy (its ajv provider is loaded with the server anyway); the client's is the same code.
import { addFormats } from '@modelcontextprotocol/server/validators/ajv';
import type { JsonObject } from '../catalog/types.js';
import { describeErrors } from './admit.js';
import { newAjv, type Dialect } from './ajvEngines.js';
import { boundedRegExp } from './boundedRegExp.js';
import type { Violation } from './types.js';
import { isObject } from './walk.js';
import { printableLine } from '../lib/printable.js';

/**
 * As the SDK client's validator: `strict: false`, `validateSchema: false`, `allErrors: true`, formats
 * validated (ajv-formats). Besides: nothing logged, `pattern` under a time limit (an upstream's regex
 * runs in the shared process; boundedRegExp.ts), and the two options that only speed compilation up (admit.ts).
 */
const OUTPUT_OPTIONS: Options = {
  strict: false,
  validateSchema: false,
  allErrors: true,
  validateFormats: true,
  logger: false,
  loopEnum: 64,
  code: { optimize: false, regExp: boundedRegExp() },
};

/** Mismatches listed in the note before "…and N more". */
const MAX_LISTED = 4;
/** The note's longest mismatch text, in UTF-16 code units. */
const MAX_NOTE_CHARS = 600;

type Compiled = { readonly validate: ValidateFunction } | { readonly error: string };

/** What to do with a result: forward it as it is, or forward `result` in its place (`mismatch` says why, for the log). */
export type OutputVerdict = { readonly ok: true } | { readonly ok: false; readonly result: Record<string, unknown>; readonly mismatch: string };

/**
 * The dialect the SDK client validates `schema` with: no `$schema` means 2020-12 (MCP's default);
 * undefined for one it does not support (it then cannot validate, and neither does this).
 */
function outputDialect(schema: JsonObject): Dialect | undefined {
  if (typeof schema.$schema !== 'string') return '2020-12';
  const declared = schema.$schema.replace(/#$/, '').replace(/^http:/, 'https:');
  if (declared === 'https://json-schema.org/draft/2020-12/schema') return '2020-12';
  if (declared === 'https://json-schema.org/draft/2019-09/schema') return '2019-09';
  if (declared === 'https://json-schema.org/draft-07/schema' || declared === 'https://json-schema.org/draft-06/schema') return 'draft-07';
  return undefined;
}

/** Checks results against advertised outputSchemas; one per gateway. Holds compiled validators per schema object, weakly. */
export class OutputCheck {
  private readonly compiled = new WeakMap<object, Compiled>();
  private readonly engines = new Map<Dialect, Ajv>();

  /**
   * The verdict on `result` of a tool advertised with `outputSchema` (none: always ok). An `isError`
   * result is ok (clients do not check it); so is one whose schema cannot be compiled. Never throws.
   */
  check(outputSchema: unknown, result: Record<string, unknown>): OutputVerdict {
    if (!isObject(outputSchema) || result.isError === true) return { ok: true };
    const compiled = this.compile(outputSchema);
    if ('error' in compiled) return { ok: true };
    const { structuredContent, ...rest } = result;
    let mismatch: string;
    if (structuredContent === undefined) mismatch = 'the tool returned no structuredContent, which its outputSchema asks for';
    else {
      let valid: boolean;
      try {
        valid = compiled.validate(structuredContent);
      } catch {
        return { ok: true };
      }
      if (valid) return { ok: true };
      mismatch = `structuredContent does not match the tool's outputSchema (${mismatchList(describeErrors(compiled.validate.errors ?? []))}), so it was left out`;
    }
    const content = Array.isArray(rest.content) ? rest.content : [];
    const note = `[toolshelf: ${printableLine(mismatch, MAX_NOTE_CHARS)}. The content above is the tool's whole answer.]`;
    return { ok: false, mismatch, result: { ...rest, content: [...content, { type: 'text', text: note }], isError: true } };
  }

  private compile(schema: JsonObject): Compiled {
    const cached = this.compiled.get(schema);
    if (cached !== undefined) return cached;
    const dialect = outputDialect(schema);
    let result: Compiled;
    if (dialect === undefined) result = { error: 'unsupported $schema' };
    else {
      const engine = this.engine(dialect);
      try {
        result = { validate: engine.compile(schema) };
      } catch (error) {
        result = { error: error instanceof Error ? error.message : String(error) };
      } finally {
        // Left registered, an `$id` would clash with the next tool's, and the engine would hold every schema.
        engine.removeSchema(schema);
      }
    }
    this.compiled.set(schema, result);
    return result;
  }

  private engine(dialect: Dialect): Ajv {
    let engine = this.engines.get(dialect);
    if (engine === undefined) {
      engine = newAjv(dialect, OUTPUT_OPTIONS);
      addFormats(engine as never);
      this.engines.set(dialect, engine);
    }
    return engine;
  }
}

/** `/n must be integer; (root) missing required property "x"`, at most {@link MAX_LISTED}. */
function mismatchList(violations: readonly Violation[]): string {
  const listed = violations.slice(0, MAX_LISTED).map((v) => `${v.path === '' ? '(root)' : v.path} ${v.message}`);
  if (violations.length > MAX_LISTED) listed.push(`…and ${violations.length - MAX_LISTED} more`);
  return listed.join('; ');
}
