// Memory bench (not a test): RSS (VmRSS from /proc) of toolshelf's processes and the time from
// spawning a client's toolshelf to its first tools/list answer, printed as two tables in one run.
// 1. A gateway of the client's own (--no-share), for three configs — no upstreams, the bundled
//    servers.config.json, and one upstream with 10,000 tools (test/fixtures/servers/thousands.mjs) —
//    each cold (empty state folder: upstreams listed, manifest fitted with the o200k tokenizer) and
//    from the catalogue cache (second start; the bundled and 10,000-tool upstreams are lazy there,
//    so nothing is spawned). RSS after the first tools/list, after one tool_search, and 3 s later.
// 2. The default shared mode, for no upstreams and 10,000 tools: the stdio relay each client runs
//    (a second client's, the instance already up; after its tool_search, and after 1,000 more
//    tools/list through it) and the shared instance it relays to, after the first client's
//    tools/list, after a tool_search, and 3 s later (the tokenizer worker ended).
// One run per cell, in a temp state folder. Run: `npm run bench:memory` (builds first).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, rssMiB, startGateway } from './fixtures/procs.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const tmp = mkdtempSync(join(tmpdir(), 'toolshelf-bench-memory-'));
const progress = (text) => process.stderr.write(`bench: ${text}\n`);
// The bundled config names its servers by their bins, as an installed toolshelf finds them.
const PATH = `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`;

/** The bundled config with paths made absolute, so it runs from the temp folder. */
function bundled(lazy) {
  const config = JSON.parse(readFileSync(join(ROOT, 'servers.config.json'), 'utf8'));
  delete config.$schema;
  for (const server of Object.values(config.mcpServers)) if (server.args) server.args = server.args.map((a) => (a.startsWith('node_modules') || a === 'sandbox' ? join(ROOT, a) : a));
  return { ...config, lazy };
}

const thousands = (lazy) => ({ mcpServers: { many: { command: 'node', args: [join(ROOT, 'test/fixtures/servers/thousands.mjs')], env: { TOOL_COUNT: '10000' } } }, lazy });

const scenarios = [
  { name: 'no upstreams', config: () => ({ mcpServers: {} }) },
  { name: 'bundled config (4 upstreams)', config: bundled },
  { name: '10,000 tools (1 upstream)', config: thousands },
];

const slug = (name) => name.replace(/\W+/g, '-');
// Past the o200k tokenizer worker's idle end (src/discovery/o200k.ts IDLE_MS, 2 s).
const settle = () => new Promise((resolve) => setTimeout(resolve, 3000));
// A relay that has moved this many requests and answers more than the bench's first few (a working session's worth).
const RELAYED_MESSAGES = 1000;
const search = (client) => client.callTool({ name: 'tool_search', arguments: { query: 'read a file' } }).catch(() => undefined);

const rows = [];
for (const scenario of scenarios) {
  const state = join(tmp, slug(scenario.name));
  const path = join(tmp, `${slug(scenario.name)}.json`);
  writeFileSync(path, JSON.stringify(scenario.config(true)));
  for (const phase of ['cold', 'cached']) {
    progress(`${scenario.name}, ${phase}`);
    const env = { ...process.env, PATH, TOOLSHELF_STATE_DIR: state };
    const gateway = await startGateway(CLI, ['--config', path, '--no-share'], env);
    const listed = rssMiB(gateway.pid);
    await search(gateway.client);
    const searched = rssMiB(gateway.pid);
    await settle();
    rows.push({ scenario: scenario.name, phase, tools: gateway.tools.length, firstListMs: gateway.firstListMs, listed, searched, settled: rssMiB(gateway.pid) });
    await gateway.client.close();
  }
}

/** The pid in the one `*.pid` file under `dir` (the shared instance's). */
function instancePid(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.pid')) return Number(readFileSync(join(entry.parentPath ?? entry.path, entry.name), 'utf8').trim());
  }
  return undefined;
}

const shared = [];
for (const scenario of scenarios.filter((s) => s.name !== 'bundled config (4 upstreams)')) {
  progress(`${scenario.name}, shared`);
  const state = join(tmp, `shared-${slug(scenario.name)}`);
  const path = join(tmp, `shared-${slug(scenario.name)}.json`);
  writeFileSync(path, JSON.stringify(scenario.config(false)));
  const env = { ...process.env, PATH, TOOLSHELF_STATE_DIR: state };
  const first = await startGateway(CLI, ['--config', path, '--share'], env);
  const pid = instancePid(state);
  const listed = rssMiB(pid);
  await search(first.client);
  const searched = rssMiB(pid);
  await settle();
  const settled = rssMiB(pid);
  const second = await startGateway(CLI, ['--config', path, '--share'], env);
  await search(second.client);
  const relay = rssMiB(second.pid);
  for (let i = 0; i < RELAYED_MESSAGES; i += 1) await second.client.listTools();
  shared.push({ scenario: scenario.name, relay, relayUsed: rssMiB(second.pid), listed, searched, settled, secondListMs: second.firstListMs });
  await Promise.all([first.client.close(), second.client.close()]);
  process.kill(pid, 'SIGTERM');
}
rmSync(tmp, { recursive: true, force: true });

console.log('A gateway of its own (--no-share):\n');
console.log('| config | start | spawn → first tools/list (ms) | gateway RSS after tools/list (MiB) | after a tool_search (MiB) | 3 s later (MiB) |');
console.log('|---|---|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.scenario} | ${r.phase} | ${fmt(r.firstListMs)} | ${fmt(r.listed, 1)} | ${fmt(r.searched, 1)} | ${fmt(r.settled, 1)} |`);
const empty = rows.find((r) => r.scenario === 'no upstreams' && r.phase === 'cached');
for (const r of rows.filter((x) => x.phase === 'cached' && x !== empty)) {
  console.log(`\n${r.scenario}, cached start: ${fmt(r.firstListMs / empty.firstListMs, 2)} × a gateway with no upstreams (goal ≤ 1.2)`);
}
console.log('\nShared (the default over stdio):\n');
console.log(`| config (cold) | stdio relay RSS (MiB) | relay after ${fmt(RELAYED_MESSAGES)} more tools/list (MiB) | shared instance RSS after tools/list (MiB) | after a tool_search (MiB) | 3 s later (MiB) | second client: spawn → first tools/list (ms) |`);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of shared) console.log(`| ${r.scenario} | ${fmt(r.relay, 1)} | ${fmt(r.relayUsed, 1)} | ${fmt(r.listed, 1)} | ${fmt(r.searched, 1)} | ${fmt(r.settled, 1)} | ${fmt(r.secondListMs)} |`);
