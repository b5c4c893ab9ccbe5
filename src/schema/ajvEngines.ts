/**
 * ajv engines made on first use. ajv is CommonJS, so a synchronous `require` loads it when the first
 * schema is compiled: a process that compiles none (a gateway with no upstreams, one serving from
 * its catalogue cache until the first call) never loads its ~100 modules, about 8 MiB of RSS
 * (docs/performance.md, "Memory").
 */
import { createRequire } from 'node:module';
import type { Ajv, Options } from 'ajv';

/** The JSON Schema dialects toolshelf validates with, each with its ajv class. */
export type Dialect = 'draft-07' | '2019-09' | '2020-12';

const require = createRequire(import.meta.url);

/** A new ajv engine for `dialect` with `options`; loads ajv the first time. */
export function newAjv(dialect: Dialect, options: Options): Ajv {
  if (dialect === '2020-12') return new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020(options);
  if (dialect === '2019-09') return new (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019(options);
  return new (require('ajv') as typeof import('ajv')).Ajv(options);
}
