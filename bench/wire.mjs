// Wire benchmark (docs/tools.md, docs/benchmarks.md): what a client pays on its first tools/list, measured on the
// real gateway. For the bundled servers.config.json (real upstreams) and for every shared catalogue
// (served by bench/fixtures/catalogServer.mjs), each run side by side in one process:
//   - upstreams direct: what a client receives with every upstream registered directly, one tools/list
//     result `{"tools":[…]}` per upstream, summed (pages merged): the same "all-direct" figure as the
//     gateway's start-up summary and `inspect` (src/shelf/summary.ts, docs/operations.md);
//   - the built CLI over stdio with an SDK Client, in five configs: all tools direct (verbatim, and
//     compacted), as configured / deferred (verbatim, and compacted = the default "third-party"), and
//     deferred in `client` discovery mode (every deferred tool listed, compacted, with its
//     searchHint, for a client that searches tools itself, e.g. Claude Code).
// Sizes are UTF-8 bytes of the compact JSON of the tools/list result as received; tokens are o200k_base
// counts of that JSON (gpt-tokenizer, the encoding the manifest budget uses). Also: projectTool time per
// tool (in process) and the time from spawning the gateway to its first tools/list answer.
// Run: `npm run bench` (builds first). Prints markdown to stdout; progress goes to stderr.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { NO_PREPARATION, THIRD_PARTY_BUDGET } from '../dist/config/defaults.js';
import { loadConfig } from '../dist/config/load.js';
import { jsonBytes, textBytes } from '../dist/schema/measure.js';
import { projectTool } from '../dist/schema/project.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const CATALOG_SERVER = join(ROOT, 'bench', 'fixtures', 'catalogServer.mjs');
const BUNDLED = join(ROOT, 'servers.config.json');
// The bundled config names its servers by their bins. `npm run` puts node_modules/.bin on PATH; so does
// this, for `node bench/wire.mjs` and for the gateways it runs on configs written to a temp folder.
process.env.PATH = [join(ROOT, 'node_modules/.bin'), process.env.PATH].filter(Boolean).join(delimiter);
const CATALOGS = fileURLToPath(new URL('../../shared/data/catalogs/', import.meta.url));
/** Start-up samples per catalogue (the two deferred runs plus extra ones); the median is reported. */
const START_RUNS = 3;
/** projectTool passes over each catalogue for the per-tool timing: enough to get past JIT warm-up. */
const PROJECT_PASSES = 20;
/** docs/benchmarks.md: first tools/list must be ≥ 90% smaller than all-direct on a ≥ 100-tool catalogue. */
const MUST_SAVE = 0.9;
const MUST_MIN_TOOLS = 100;

const tmp = mkdtempSync(join(tmpdir(), 'toolshelf-bench-'));
const progress = (text) => process.stderr.write(`bench: ${text}\n`);
const n = (value) => value.toLocaleString('en-US');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Bytes and o200k tokens of a tools/list result as JSON. */
function size(result) {
  return { bytes: jsonBytes(result), tokens: countTokens(JSON.stringify(result)) };
}

/**
 * One upstream's own tools/list over raw JSON-RPC (every page), and the ms from spawn to the first
 * page's answer. `server` is a stdio entry with an absolute or ROOT-relative cwd.
 */
async function upstreamList(server) {
  const child = spawn(server.command, server.args ?? [], { cwd: server.cwd ?? ROOT, env: { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'ignore'] });
  const started = performance.now();
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const tools = [];
  let firstMs;
  try {
    // The capabilities toolshelf declares upstream (src/upstream/relay.ts): a server may list tools only
    // for clients that can sample, elicit or give roots (server-everything does), so both sides see the same tools.
    send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { sampling: {}, elicitation: {}, roots: {} }, clientInfo: { name: 'toolshelf-bench', version: '1' } } });
    for await (const line of createInterface({ input: child.stdout })) {
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (message.id === 0) {
        send({ method: 'notifications/initialized' });
        send({ id: 1, method: 'tools/list', params: {} });
      } else if (typeof message.id === 'number' && message.result?.tools) {
        firstMs ??= performance.now() - started;
        tools.push(...message.result.tools);
        if (!message.result.nextCursor) break;
        send({ id: message.id + 1, method: 'tools/list', params: { cursor: message.result.nextCursor } });
      }
    }
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  }
  return { tools, ms: firstMs ?? NaN };
}

/**
 * Spawns the built CLI on `config` with an SDK Client, and returns the first tools/list result exactly
 * as received (tapped before the SDK parses it), its size, and the ms from spawn to that answer.
 */
async function gatewayList(config, label) {
  const path = join(tmp, `${label.replace(/\W+/g, '-')}.json`);
  writeFileSync(path, JSON.stringify(config));
  // A gateway of its own (--no-share) with an empty state folder: every start is a first start (no
  // catalogue cache, era probes included) and none is left running after the bench.
  const state = mkdtempSync(join(tmp, 'state-'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', path, '--log-level', 'error', '--no-share'], stderr: 'pipe', env: { ...process.env, TOOLSHELF_STATE_DIR: state } });
  const stderr = [];
  transport.stderr?.on('data', (chunk) => stderr.push(chunk.toString('utf8')));
  const client = new Client({ name: 'toolshelf-bench', version: '1.0.0' });
  const started = performance.now();
  let raw;
  try {
    await client.connect(transport);
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (message.result?.tools) raw = message.result;
      onmessage?.(message, extra);
    };
    await client.listTools();
  } catch (error) {
    throw new Error(`${label}: ${error.message}\n${stderr.join('')}`);
  }
  const ms = performance.now() - started;
  await client.close();
  return { ...size(raw), tools: raw.tools.length, ms };
}

/** The all-direct figure: each upstream's tools/list result `{"tools":[…]}`, bytes and tokens summed (src/shelf/summary.ts `allDirectBytes`). */
function directSize(upstreams) {
  const each = upstreams.filter((u) => u.tools.length > 0).map((u) => size({ tools: u.tools }));
  return { bytes: each.reduce((sum, s) => sum + s.bytes, 0), tokens: each.reduce((sum, s) => sum + s.tokens, 0) };
}

/** Server entries with every exposure rule removed, so each tool is decided by the global setting alone. */
function withoutRules(servers) {
  return Object.fromEntries(Object.entries(servers).map(([key, { tools: _rules, exposure: _exposure, ...rest }]) => [key, rest]));
}

/**
 * Every measurement for one catalogue. `configured` is the config as a user would write it (stdio
 * servers with absolute cwd); `loaded` the same after interpolation, for spawning upstreams directly.
 */
async function measure(label, configured, loaded) {
  progress(label);
  const upstreams = await Promise.all(Object.values(loaded.mcpServers).map((server) => upstreamList(server)));
  const canonical = upstreams.flatMap((u) => u.tools);
  const verbatim = { compaction: false };
  const allDirect = { ...configured, mcpServers: withoutRules(configured.mcpServers), exposure: 'direct' };
  const runs = {
    directVerbatim: await gatewayList({ ...allDirect, schemas: verbatim }, `${label}-direct-verbatim`),
    directCompacted: await gatewayList(allDirect, `${label}-direct-compacted`),
    deferredVerbatim: await gatewayList({ ...configured, schemas: verbatim }, `${label}-deferred-verbatim`),
    deferredCompacted: await gatewayList(configured, `${label}-deferred-compacted`),
    clientMode: await gatewayList({ ...configured, discovery: { ...configured.discovery, mode: 'client' } }, `${label}-client-mode`),
  };
  const starts = [runs.deferredVerbatim.ms, runs.deferredCompacted.ms];
  while (starts.length < START_RUNS) starts.push((await gatewayList(configured, `${label}-start`)).ms);
  return {
    label,
    tools: canonical.length,
    canonical: directSize(upstreams),
    runs,
    upstreamStartMs: Math.max(...upstreams.map((u) => u.ms)),
    gatewayStartMs: median(starts),
    projection: projectionStats(canonical),
  };
}

/** projectTool under the default budget: per-tool time (µs, p50/p99) and what compaction did. */
function projectionStats(tools) {
  const options = { prepare: NO_PREPARATION, compaction: THIRD_PARTY_BUDGET };
  const samples = [];
  for (let pass = 0; pass < PROJECT_PASSES; pass++) {
    for (const tool of tools) {
      const started = performance.now();
      projectTool(tool, options);
      samples.push((performance.now() - started) * 1000);
    }
  }
  samples.sort((a, b) => a - b);
  const projected = tools.map((tool) => projectTool(tool, options));
  return {
    p50Us: percentile(samples, 50),
    p99Us: percentile(samples, 99),
    compacted: projected.filter((p) => p.rung > 0).length,
    maxRung: Math.max(0, ...projected.map((p) => p.rung)),
    clipped: tools.filter((t) => typeof t.description === 'string' && textBytes(t.description) > THIRD_PARTY_BUDGET.maxDescriptionBytes).length,
    overBudget: projected.filter((p) => !p.withinBudget).length,
  };
}

/** The bundled config with each stdio server pinned to the repository root (its relative paths). */
function bundledScenario() {
  const text = readFileSync(BUNDLED, 'utf8');
  const { $schema: _schema, ...configured } = JSON.parse(text);
  for (const server of Object.values(configured.mcpServers)) server.cwd ??= ROOT;
  const loaded = loadConfig(BUNDLED, process.env);
  if (!loaded.ok) throw new Error(`servers.config.json: ${JSON.stringify(loaded.error)}`);
  return ['bundled servers.config.json', configured, loaded.value];
}

/** A catalogue file served by the fixture upstream under the server key of its file name. */
function catalogScenario(file) {
  const key = basename(file, '.json');
  const configured = { mcpServers: { [key]: { command: process.execPath, args: [CATALOG_SERVER, join(CATALOGS, file)], cwd: ROOT } } };
  return [file, configured, configured];
}

const cell = (s) => `${n(s.bytes)} (${n(s.tokens)})`;
const saved = (from, to) => `${((1 - to / from) * 100).toFixed(1)}%`;

function wireTable(rows) {
  return [
    '| catalogue | tools | upstreams registered directly | gateway, all direct, verbatim | gateway, all direct, compacted | deferred, verbatim | deferred, compacted (default) | deferred+compacted vs direct | client mode (compacted) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const { directVerbatim, directCompacted, deferredVerbatim, deferredCompacted, clientMode } = r.runs;
      return `| ${r.label} | ${r.tools} | ${cell(r.canonical)} | ${cell(directVerbatim)} | ${cell(directCompacted)} | ${cell(deferredVerbatim)} | ${cell(deferredCompacted)} | ${saved(r.canonical.bytes, deferredCompacted.bytes)} smaller (${(r.canonical.bytes / deferredCompacted.bytes).toFixed(1)}×) | ${cell(clientMode)} |`;
    }),
  ];
}

function compactionTable(rows) {
  const us = (v) => `${v.toFixed(1)}`;
  return [
    `| catalogue | tools | schemas compacted (highest rung) | descriptions clipped | surface over budget | projectTool p50 / p99 µs per tool | slowest upstream, own first tools/list | gateway, spawn → first tools/list (median of ${START_RUNS}) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const p = r.projection;
      return `| ${r.label} | ${r.tools} | ${p.compacted} (${p.maxRung}) | ${p.clipped} | ${p.overBudget} | ${us(p.p50Us)} / ${us(p.p99Us)} | ${Math.round(r.upstreamStartMs)} ms | ${Math.round(r.gatewayStartMs)} ms |`;
    }),
  ];
}

/** docs/benchmarks.md's first-tools/list figure, stated plainly for each catalogue. */
function verdicts(rows) {
  return rows.map((r) => {
    const ratio = 1 - r.runs.deferredCompacted.bytes / r.canonical.bytes;
    const pct = `${(ratio * 100).toFixed(1)}%`;
    if (r.tools < MUST_MIN_TOOLS) return `- ${r.label}: ${pct} smaller with ${r.tools} tools (the ≥ 90% "must" applies to catalogues of ≥ 100 tools; ${ratio >= MUST_SAVE ? 'met anyway' : 'below 90%'}).`;
    return `- ${r.label}: ${pct} smaller with ${r.tools} tools: ${ratio >= MUST_SAVE ? 'meets' : 'MISSES'} the ≥ 90% must${ratio >= 0.95 ? ' and the ≥ 95% goal' : ''}.`;
  });
}

async function main() {
  if (!existsSync(CATALOGS)) throw new Error(`bench/wire.mjs needs the shared catalogues at ${CATALOGS}`);
  const started = performance.now();
  const scenarios = [bundledScenario(), ...readdirSync(CATALOGS).filter((f) => f.endsWith('.json')).sort().map(catalogScenario)];
  const rows = [];
  for (const [label, configured, loaded] of scenarios) rows.push(await measure(label, configured, loaded));
  const floors = [];
  while (floors.length < START_RUNS) floors.push((await gatewayList({ mcpServers: {} }, 'no-upstreams')).ms);
  console.log(
    [
      '## First tools/list: bytes (o200k tokens)',
      '',
      'Compact JSON of the tools/list result as the client receives it. "Deferred" is the config as written (bundled) or every tool deferred (catalogues); its list holds the direct tools, tool_search with the manifest, and call_tool. Compacted = the default third-party budget (1,000 B description, 5,000 B schema).',
      '',
      ...wireTable(rows),
      '',
      ...verdicts(rows),
      '',
      'Client mode (`discovery.mode: "client"`, the `auto` choice for Codex) lists every deferred tool with its compacted schema and searchHint and no tool_search: those bytes cross the wire once, and the client keeps the schemas out of the prompt until its own search loads one.',
      '',
      'Compaction changes what is advertised in full (direct and promoted tools, tool_search results); the first deferred list carries only the direct tools, tool_search and call_tool, so its two columns differ only when a direct tool needs compacting. The all-direct columns show compaction alone.',
      '',
      '## Compaction and start-up',
      '',
      ...compactionTable(rows),
      '',
      `Gateway with no upstreams, spawn → first tools/list: ${Math.round(median(floors))} ms (median of ${START_RUNS}): the floor of the start-up column (Node start and module loading).`,
      `Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)} at the end; ${Math.round((performance.now() - started) / 1000)} s in all.`,
    ].join('\n'),
  );
}

try {
  await main();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
