/**
 * `${VAR}` expansion in every string of a parsed config. Pure: the environment is passed in,
 * never read from `process.env`. Source: DESIGN §12 (a missing variable is named).
 */
import type { ConfigProblem } from './types.js';

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Result of expansion: the new value plus one problem per missing variable, located by JSON path. */
export interface Interpolated {
  readonly value: unknown;
  readonly problems: readonly ConfigProblem[];
}

/**
 * Expands `${VAR}` and `${VAR:-default}` in every string value (not in object keys) of `value`.
 * `$${VAR}` is left as the literal `${VAR}`. A variable that is unset and has no default is a
 * problem naming it; the placeholder is then left as written.
 */
export function interpolate(value: unknown, env: Readonly<Record<string, string | undefined>>, path = ''): Interpolated {
  const problems: ConfigProblem[] = [];
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string') return expandString(node, env, at, problems);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}/${i}`));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) out[key] = walk(child, `${at}/${escapePointer(key)}`);
      return out;
    }
    return node;
  };
  return { value: walk(value, path), problems };
}

function expandString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  at: string,
  problems: ConfigProblem[],
): string {
  return text.replace(PLACEHOLDER, (whole: string, name: string, fallback: string | undefined, offset: number) => {
    if (offset > 0 && text[offset - 1] === '$') return whole;
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    problems.push({ path: at || '/', message: `environment variable \${${name}} is not set` });
    return whole;
  }).replace(/\$\$\{/g, '${');
}

/** Escapes a key for a JSON Pointer segment (RFC 6901). */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
