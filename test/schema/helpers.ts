/** Shared test helpers for the schema folder: an ajv compile check for projected schemas. */

import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject } from '../../src/catalog/types.js';
import { schemaDialect } from '../../src/schema/admit.js';

const options = { strict: false, validateFormats: false, logger: false } as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);

/** True when ajv compiles `schema` with the dialect admission would pick (its `$schema` removed). */
export function compiles(schema: JsonObject): boolean {
  const { $schema: _ignored, ...body } = schema;
  const engine = schemaDialect(schema) === 'draft-07' ? draft07 : draft2020;
  try {
    engine.compile(body);
    return true;
  } catch {
    return false;
  } finally {
    engine.removeSchema(body);
  }
}
