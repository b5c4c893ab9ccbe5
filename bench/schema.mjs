// Schema benchmark (docs/tools.md, docs/benchmarks.md): for each shared catalogue, the tools/list schema and
// description bytes canonical vs projected under the third-party budget (1,000 B / 5,000 B), the
// compaction rungs used, and the in-process cost of projection and admission per tool.
// Run after a build: `npx tsc -p tsconfig.json && node bench/schema.mjs`. Prints markdown to stdout.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Admission } from '../dist/schema/admit.js';
import { estimateTokens, jsonBytes, textBytes } from '../dist/schema/measure.js';
import { projectTool } from '../dist/schema/project.js';

const CATALOGS = fileURLToPath(new URL('../../shared/data/catalogs/', import.meta.url));
if (!existsSync(CATALOGS)) {
  console.error(`bench/schema.mjs needs the shared catalogues at ${CATALOGS}`);
  process.exit(1);
}
const OPTIONS = {
  prepare: { resolveRefs: false, stripKeywords: false, strict: false },
  compaction: { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 },
};
/** Repetitions per tool for timings: enough to get past JIT warm-up on small catalogues. */
const REPEAT = 20;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const micros = (ms) => `${(ms * 1000).toFixed(1)} µs`;

/** Sorted per-tool times in ms of `run(tool, state)` over REPEAT passes; `setup()` makes each pass's state, untimed. */
function timePerTool(tools, run, setup = () => undefined) {
  const samples = [];
  for (let r = 0; r < REPEAT; r++) {
    const state = setup();
    for (const tool of tools) {
      const started = performance.now();
      run(tool, state);
      samples.push(performance.now() - started);
    }
  }
  return samples.sort((a, b) => a - b);
}

function wireBytes(tools) {
  return jsonBytes({ tools });
}

function row(file) {
  const tools = JSON.parse(readFileSync(CATALOGS + file, 'utf8'));
  const projected = tools.map((tool) => ({ tool, p: projectTool(tool, OPTIONS) }));
  const canonical = wireBytes(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
  const onWire = wireBytes(projected.map(({ tool, p }) => ({ name: tool.name, description: p.description, inputSchema: p.inputSchema })));
  const rungs = projected.filter(({ p }) => p.rung > 0).map(({ tool, p }) => `${tool.name} (rung ${p.rung}: ${p.canonicalBytes} → ${p.projectedBytes} B)`);
  const clipped = projected.filter(({ tool }) => typeof tool.description === 'string' && textBytes(tool.description) > 1000).length;
  const project = timePerTool(tools, (tool) => projectTool(tool, OPTIONS));
  // A fresh Admission per pass, its ajv engines created beforehand: the first check of a tool is its compilation.
  const warmAdmission = () => {
    const fresh = new Admission();
    for (const $schema of ['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2020-12/schema']) fresh.check('warm-up', { $schema }, {});
    return fresh;
  };
  const compileMs = timePerTool(tools, (tool, fresh) => fresh.check(tool.name, tool.inputSchema, {}), warmAdmission);
  const admission = new Admission();
  const check = timePerTool(tools, (tool) => admission.check(tool.name, tool.inputSchema, {}));
  return {
    line: `| ${file} | ${tools.length} | ${canonical} | ${estimateTokens(canonical)} | ${onWire} | ${estimateTokens(onWire)} | ${clipped} | ${rungs.length} | ${micros(percentile(project, 50))} / ${micros(percentile(project, 99))} | ${micros(percentile(compileMs, 50))} | ${micros(percentile(check, 50))} |`,
    rungs,
  };
}

const files = readdirSync(CATALOGS).filter((f) => f.endsWith('.json')).sort();
const lines = [
  '| catalogue | tools | tools/list bytes, canonical | tokens | projected bytes | tokens | descriptions clipped | schemas compacted | projection p50 / p99 per tool | admission compile p50 | admission check p50 (cached) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const notes = [];
for (const file of files) {
  const { line, rungs } = row(file);
  lines.push(line);
  for (const r of rungs) notes.push(`- ${file}: ${r}`);
}
console.log(['## Schemas on the wire (third-party budget: 1,000 B description, 5,000 B schema)', '', ...lines, '', 'Compacted schemas:', ...notes].join('\n'));
