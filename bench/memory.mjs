// Memory bench (issue #11 point 4; not a test): RSS of the gateway process (VmRSS from /proc) and the
// time from spawning it to its first tools/list answer, for three configs — no upstreams, the bundled
// servers.config.json, and one upstream with 10,000 tools (test/fixtures/servers/thousands.mjs) — each
// cold (empty state folder: upstreams listed, manifest fitted with the o200k tokenizer) and from the
// catalogue cache (second start; the bundled and 10,000-tool upstreams are lazy there, so nothing is
// spawned). RSS is read after the first tools/list and again after one tool_search. One run per cell,
// gateways started with --no-share in a temp state folder. Run: `npm run bench:memory` (builds first).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, rssMiB, startGateway } from './fixtures/procs.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const tmp = mkdtempSync(join(tmpdir(), 'toolshelf-bench-memory-'));
const progress = (text) => process.stderr.write(`bench: ${text}\n`);

/** The bundled config with paths made absolute, so it runs from the temp folder. */
function bundled(lazy) {
  const config = JSON.parse(readFileSync(join(ROOT, 'servers.config.json'), 'utf8'));
  delete config.$schema;
  for (const server of Object.values(config.mcpServers)) server.args = server.args.map((a) => (a.startsWith('node_modules') || a === 'sandbox' ? join(ROOT, a) : a));
  return { ...config, lazy };
}

const thousands = (lazy) => ({ mcpServers: { many: { command: 'node', args: [join(ROOT, 'test/fixtures/servers/thousands.mjs')], env: { TOOL_COUNT: '10000' } } }, lazy });

const scenarios = [
  { name: 'no upstreams', config: () => ({ mcpServers: {} }) },
  { name: 'bundled config (4 upstreams)', config: bundled },
  { name: '10,000 tools (1 upstream)', config: thousands },
];

const rows = [];
for (const scenario of scenarios) {
  const state = join(tmp, scenario.name.replace(/\W+/g, '-'));
  const path = join(tmp, `${scenario.name.replace(/\W+/g, '-')}.json`);
  writeFileSync(path, JSON.stringify(scenario.config(true)));
  for (const phase of ['cold', 'cached']) {
    progress(`${scenario.name}, ${phase}`);
    const env = { ...process.env, TOOLSHELF_STATE_DIR: state };
    const gateway = await startGateway(CLI, ['--config', path, '--no-share'], env);
    const listed = rssMiB(gateway.pid);
    await gateway.client.callTool({ name: 'tool_search', arguments: { query: 'read a file' } }).catch(() => undefined);
    const searched = rssMiB(gateway.pid);
    rows.push({ scenario: scenario.name, phase, tools: gateway.tools.length, firstListMs: gateway.firstListMs, listed, searched });
    await gateway.client.close();
  }
}
rmSync(tmp, { recursive: true, force: true });

console.log('| config | start | spawn → first tools/list (ms) | gateway RSS after tools/list (MiB) | after a tool_search (MiB) |');
console.log('|---|---|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.scenario} | ${r.phase} | ${fmt(r.firstListMs)} | ${fmt(r.listed, 1)} | ${fmt(r.searched, 1)} |`);
const empty = rows.find((r) => r.scenario === 'no upstreams' && r.phase === 'cached');
for (const r of rows.filter((x) => x.phase === 'cached' && x !== empty)) {
  console.log(`\n${r.scenario}, cached start: ${fmt(r.firstListMs / empty.firstListMs, 2)} × a gateway with no upstreams (issue #11 asks ≤ 1.2)`);
}
