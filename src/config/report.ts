/**
 * A config problem as one printable line, `  /json/path: message`. The path is the config's own keys,
 * which can be anything: each segment is clipped to {@link MAX_SEGMENT_CHARS} and control characters
 * are escaped, so a 2 MB misspelt key or one holding a newline cannot flood or split the problem list.
 * Pure. Source: docs/configuration.md (every problem listed by path).
 */
import type { ConfigProblem } from './types.js';

/** Longest path segment printed, in characters; a longer one ends with `…`. */
export const MAX_SEGMENT_CHARS = 80;

/** `  <path>: <message>` for one problem, the path made printable. */
export function problemLine(problem: ConfigProblem): string {
  return `  ${printablePath(problem.path)}: ${problem.message}`;
}

/** `path` (a JSON path) with each segment clipped to {@link MAX_SEGMENT_CHARS} and control characters escaped. */
export function printablePath(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      const clipped = segment.length > MAX_SEGMENT_CHARS ? `${segment.slice(0, MAX_SEGMENT_CHARS)}…` : segment;
      return clipped.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    })
    .join('/');
}
