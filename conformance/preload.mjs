// Node 20 support for @modelcontextprotocol/conformance, which imports `globSync` from `fs` (added in
// Node 22). Loaded with `node --import ./conformance/preload.mjs`; on Node 22+ it does nothing.
// Registers hooks.mjs, which hands the conformance package an `fs` that also exports globSync.
import * as fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./hooks.mjs', import.meta.url);
