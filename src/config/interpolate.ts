/**
 * `${VAR}` expansion in every string of a parsed config. Pure: the environment is passed in,
 * never read from `process.env`. Source: docs/configuration.md (a missing variable is named).
 *
 * Grammar of a string, read once from left to right by a small scanner:
 *
 *   text        = { "$${" | placeholder | any other character }
 *   placeholder = "${" NAME "}"                  value of NAME; unset is a problem
 *               | "${" NAME ":-" default "}"     value of NAME, or the default when NAME is unset or empty
 *   default     = { "$${" | inner | any character but "}" }
 *   inner       = "${" NAME "}" | "${" NAME ":-" { "$${" | any character but "}" or "${" } "}"
 *   NAME        = [A-Za-z_][A-Za-z0-9_]*
 *
 * - `$${` is always the literal `${`; a `$` anywhere else is literal, as is `}` outside a placeholder.
 * - Set-but-empty is set: `${E}` with `E=""` gives `""`. Only `:-` treats empty as unset, like the shell.
 * - Defaults nest one level (`${A:-${B}}`, `${A:-${B:-b}}`) and are expanded only when used.
 * - A default cannot contain `}`: the first `}` not closing an inner placeholder ends it.
 * - Substituted values are emitted as they are, never scanned again (`S='x$${y}'` stays `x$${y}`).
 * - Any other `${` (`${}`, `${A`, `${A-b}`, a third level of nesting) is a "malformed placeholder".
 *
 * A string with a problem (malformed or missing variable) is left as written; the problem carries
 * the string's JSON path. Object keys are never expanded. Objects are rebuilt with own data
 * properties only ({@link setOwn}), so a key such as `__proto__` stays an ordinary key.
 */
import type { ConfigProblem } from './types.js';

/** Environment to expand from: name to value, `undefined` for unset. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Result of expansion: the new value, its problems by JSON path, and the original text of each changed string. */
export interface Interpolated {
  readonly value: unknown;
  readonly problems: readonly ConfigProblem[];
  /** JSON path to the string as written, for every string whose value expansion changed. */
  readonly sources: ReadonlyMap<string, string>;
}

/**
 * Expands placeholders (module header grammar) in every string value of `value`, at any depth.
 * `path` is the JSON Pointer of `value` itself (empty for the document root).
 */
export function interpolate(value: unknown, env: Environment, path = ''): Interpolated {
  const problems: ConfigProblem[] = [];
  const sources = new Map<string, string>();
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string') {
      const expanded = expandString(node, env);
      if (typeof expanded !== 'string') {
        problems.push(...expanded.map((message) => ({ path: at || '/', message })));
        return node;
      }
      if (expanded !== node) sources.set(at || '/', node);
      return expanded;
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}/${i}`));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) setOwn(out, key, walk(child, `${at}/${escapePointer(key)}`));
      return out;
    }
    return node;
  };
  return { value: walk(value, path), problems, sources };
}

/**
 * Sets `target[key] = value` as an own, enumerable data property. Unlike plain assignment it never
 * reaches a setter on `Object.prototype`, so a key read from a file (`__proto__`) cannot change the
 * object's prototype or vanish.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Escapes a key for a JSON Pointer segment (RFC 6901). */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One parsed piece of a string: literal text or a placeholder. */
type Piece = string | Placeholder;

interface Placeholder {
  readonly name: string;
  /** Pieces of the `:-` default; absent for a plain `${NAME}`. */
  readonly fallback?: readonly Piece[];
}

/** What a reader parsed and the index where it stopped (each reader says which), or why the text is malformed. */
type Parsed = { readonly pieces: Piece[]; readonly end: number } | { readonly malformed: string };

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
/** Placeholders inside a default may not hold placeholders themselves: two levels in all. */
const DEEPEST_LEVEL = 2;
/** Ends the problem for a `${` that is no placeholder. */
const LITERAL_HINT = ' (write $${ for a literal ${)';
/** Longest excerpt of a malformed placeholder quoted in a problem. */
const EXCERPT_CHARS = 40;

/** The expanded string, or the problem messages that keep it from expanding. */
function expandString(text: string, env: Environment): string | string[] {
  const parsed = parsePieces(text, 0, 0, 0);
  if ('malformed' in parsed) return [parsed.malformed];
  const missing = new Set<string>();
  const value = evaluate(parsed.pieces, env, missing);
  return missing.size > 0 ? [...missing].map((name) => `environment variable \${${name}} is not set`) : value;
}

/**
 * Reads pieces from `from`. At `level` 0 the text runs to its end and `}` is literal; inside a
 * default (`level` ≥ 1) it stops at the first `}` that does not close an inner placeholder.
 * `origin` is where the outermost placeholder around `from` starts, for quoting in problems.
 */
function parsePieces(text: string, from: number, level: number, origin: number): Parsed {
  const pieces: Piece[] = [];
  let literal = '';
  let i = from;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      if (level >= DEEPEST_LEVEL) return malformed(text, origin, closingBrace(text, i), 'defaults nest at most one level deep');
      const placeholder = parsePlaceholder(text, i, level, level === 0 ? i : origin);
      if ('malformed' in placeholder) return placeholder;
      if (literal) pieces.push(literal);
      literal = '';
      pieces.push(...placeholder.pieces);
      i = placeholder.end;
    } else if (level > 0 && text[i] === '}') {
      break;
    } else {
      literal += text.charAt(i);
      i += 1;
    }
  }
  if (literal) pieces.push(literal);
  return { pieces, end: i };
}

/** Reads the placeholder whose `${` is at `start`; `end` is the index just past its `}`. */
function parsePlaceholder(text: string, start: number, level: number, origin: number): Parsed {
  NAME.lastIndex = start + 2;
  const name = NAME.exec(text)?.[0];
  if (name === undefined) return malformed(text, start, start + 3, `expected a variable name after "\${"${LITERAL_HINT}`);
  const after = start + 2 + name.length;
  if (text[after] === '}') return { pieces: [{ name }], end: after + 1 };
  if (!text.startsWith(':-', after)) {
    return after >= text.length
      ? malformed(text, start, after, `no closing "}"${LITERAL_HINT}`)
      : malformed(text, start, after + 1, `expected "}" or ":-" after the name ${name}${LITERAL_HINT}`);
  }
  const fallback = parsePieces(text, after + 2, level + 1, origin);
  if ('malformed' in fallback) return fallback;
  if (fallback.end >= text.length) return malformed(text, start, text.length, `no closing "}"${LITERAL_HINT}`);
  return { pieces: [{ name, fallback: fallback.pieces }], end: fallback.end + 1 };
}

/** Index just past the first `}` at or after `from`, or the text's length. */
function closingBrace(text: string, from: number): number {
  const brace = text.indexOf('}', from);
  return brace < 0 ? text.length : brace + 1;
}

/** A malformed-placeholder problem quoting `text[start, stop)`, shortened to {@link EXCERPT_CHARS}. */
function malformed(text: string, start: number, stop: number, reason: string): { malformed: string } {
  const excerpt = text.slice(start, Math.min(stop, start + EXCERPT_CHARS)) + (stop - start > EXCERPT_CHARS ? '…' : '');
  return { malformed: `malformed placeholder "${excerpt}": ${reason}` };
}

/** Concatenates `pieces` with their values; unset variables that are needed are added to `missing`. */
function evaluate(pieces: readonly Piece[], env: Environment, missing: Set<string>): string {
  let out = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      out += piece;
      continue;
    }
    const found = env[piece.name];
    if (piece.fallback === undefined) {
      if (found === undefined) missing.add(piece.name);
      else out += found;
    } else {
      out += found !== undefined && found !== '' ? found : evaluate(piece.fallback, env, missing);
    }
  }
  return out;
}
