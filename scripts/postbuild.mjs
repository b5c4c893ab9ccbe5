// After tsc: marks the built CLI executable so `npx toolshelf` and the package bin work, copies the
// dashboard's page (HTML, script, styles: served as they are, no bundler) into dist/, and compiles
// the config schema's validator to standalone code (dist/config/configValidator.cjs), so a process
// that only checks its config (the stdio relay of a shared instance) never loads ajv.
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CONFIG_AJV_OPTIONS, CONFIG_SCHEMA_URL, PRECOMPILED_VALIDATOR, schemaTextHash } from '../dist/config/validate.js';

chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
cpSync(new URL('../src/dashboard/page/', import.meta.url), new URL('../dist/dashboard/page/', import.meta.url), { recursive: true });

const require = createRequire(import.meta.url);
const { Ajv } = require('ajv');
const standaloneCode = require('ajv/dist/standalone').default;
const text = readFileSync(CONFIG_SCHEMA_URL, 'utf8');
const ajv = new Ajv({ ...CONFIG_AJV_OPTIONS, code: { source: true } });
const code = standaloneCode(ajv, ajv.compile(JSON.parse(text)));
const hash = `module.exports.schemaHash = ${JSON.stringify(schemaTextHash(text))};\n`;
writeFileSync(new URL(PRECOMPILED_VALIDATOR, new URL('../dist/config/', import.meta.url)), `${code}\n${hash}`);
