// After tsc: marks the built CLI executable so `npx toolshelf` and the package bin work, copies the
// dashboard's page (HTML, script, styles: served as they are, no bundler) into dist/, compiles the
// config schema's validator to standalone code (dist/config/configValidator.cjs), so a process that
// only checks its config never loads ajv, and bundles the stdio relay into dist/cli.js (below).
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
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

// The stdio relay of a shared instance is dist/cli.js and nothing else: src/cli.ts with src/relay.ts
// and what it imports are bundled into that one file (every further module a Node process loads
// costs memory; docs/performance.md, "Memory"). What cli.ts and relay.ts import on demand (each
// command, config validation) stays in its own file, loaded as before. An inlined module's
// import.meta.url is cli.js's, so only modules at the top of src/ (cli.js's folder) may use it.
const { rolldown } = await import('rolldown');
const entry = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const top = dirname(entry);
const bundle = await rolldown({
  input: entry,
  platform: 'node',
  plugins: [
    {
      name: 'toolshelf-relay-bundle',
      resolveDynamicImport: (specifier) => (specifier === './relay.js' ? null : { id: specifier, external: true }),
      transform(code, id) {
        if (id.startsWith(`${top}${sep}`) && dirname(id) !== top && code.includes('import.meta')) throw new Error(`${id} uses import.meta and would be bundled into dist/cli.js, whose folder is another`);
        return null;
      },
    },
  ],
});
const { output } = await bundle.generate({ format: 'esm', codeSplitting: false });
await bundle.close();
writeFileSync(entry, output[0].code);
chmodSync(entry, 0o755);
