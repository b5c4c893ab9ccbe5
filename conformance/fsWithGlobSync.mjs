// `node:fs` plus `globSync(pattern, { cwd })` for Node 20, backed by tinyglobby. Like Node 22's
// fs.globSync it returns paths relative to `cwd` (default: the process's working directory).
import { globSync as tinyGlobSync } from 'tinyglobby';

export * from 'node:fs';
export { default } from 'node:fs';

/** Paths under `options.cwd` matching `pattern` (a string or an array of them). */
export function globSync(pattern, options = {}) {
  return tinyGlobSync(pattern, { cwd: options.cwd ?? process.cwd() });
}
