// Proxy overhead bench (not a test): the latency toolshelf adds to one tool call
// over stdio, gateway vs direct to the same upstream, both eras, in one run:
//   - legacy: a 2025-11-25 SDK Client → server-everything `echo`, straight and through toolshelf;
//   - modern: a 2026-07-28 SDK Client (pinned) → the modern-only fixture's `echo` (a v2 server that
//     refuses `initialize`), straight and through toolshelf.
// toolshelf runs over stdio twice: unshared (`--no-share`: client → gateway → upstream) and shared
// (the default over stdio: client → stdio front → Unix socket → shared instance → upstream). A bare
// Node relay (bench/fixtures/relay.mjs: parse and re-serialise each line, nothing else) is the floor
// of any Node process in the middle on the same machine.
// What is measured is the steady state of a long-lived process, so each path is first warmed up
// (--warmup calls, one path after the other): V8 compiles a path's per-call code as it runs, and the
// gateway's CPU per call only settles after about 4,000 calls (500 µs per call over its first 1,000,
// 90 µs from its 5,000th on, on the 2-core machine of the README figures); the p50 of each path's first
// 1,000 warm-up calls is printed beside the steady figures, so that cost is not hidden.
// Calls are one at a time, in interleaved rounds (each round runs every path for --batch calls), so a
// busy machine slows every path alike; a path idle while the seven others run comes back cold, so
// batches are long (with 50-call batches that cold start lands on a large share of the calls of every
// path and doubles every added figure). The added latency is the gateway path's p50 minus the direct
// path's p50 of the same era, and, paired by round, the median over rounds of that difference within
// each round (drift between rounds cancels out). Latency on a shared machine is noisy, so the CPU time
// each path's process tree spent per call (utime + stime from /proc, over the measured rounds) is
// printed beside it: the work toolshelf adds, whatever else runs. The shared instance outlives the
// front that started it and serves others, so the shared rows show latency only. Unique payloads;
// exits 1 unless every call returned its own payload.
// Run after a build: `npm run bench:overhead` (options: --rounds 6 --batch 1000 --warmup 6000).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { tree } from './fixtures/procs.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const modernOnly = join(root, 'test/fixtures/servers/modernOnly.mjs');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    batch: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '6000' },
  },
});
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);
const WARMUP = Number(values.warmup);
/** How many of a path's first warm-up calls make the cold-start column. */
const FIRST = 1000;
const state = mkdtempSync(join(tmpdir(), 'toolshelf-overhead-'));
const env = { ...process.env, TOOLSHELF_STATE_DIR: state, TOOLSHELF_SHARE: '1' };

const ERAS = {
  legacy: { server: [everything, 'stdio'], tool: 'echo', arg: 'message', expect: (p) => `Echo: ${p}`, client: {} },
  modern: { server: [modernOnly], tool: 'echo', arg: 'text', expect: (p) => `modern echo: ${p}`, client: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
};

function gatewayConfig(era) {
  const file = join(state, `${era}.config.json`);
  const spec = ERAS[era];
  const protocol = era === 'modern' ? 'modern' : 'legacy';
  writeFileSync(file, JSON.stringify({ mcpServers: { up: { command: process.execPath, args: spec.server, protocol, tools: { [spec.tool]: { exposure: 'direct' } } } } }));
  return file;
}

const relay = join(root, 'bench/fixtures/relay.mjs');

async function connect(era, via) {
  const spec = ERAS[era];
  const client = new Client({ name: `overhead-${era}-${via}`, version: '1.0.0' }, spec.client);
  const args = via === 'direct' ? spec.server : via === 'relay' ? [relay, process.execPath, ...spec.server] : [join(root, 'dist/cli.js'), '--config', gatewayConfig(era), '--log-level', 'error', ...(via === 'unshared' ? ['--no-share'] : ['--share'])];
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  await client.connect(transport);
  const tool = via === 'direct' || via === 'relay' ? spec.tool : `up__${spec.tool}`;
  const listed = (await client.listTools()).tools.map((t) => t.name);
  if (!listed.includes(tool)) throw new Error(`${era} ${via}: ${tool} not listed (${listed.join(', ')})`);
  return { era, via, client, tool, pid: transport.pid, latencies: [], rounds: [], first: [], wrong: 0 };
}

async function calls(path, n, record) {
  const spec = ERAS[path.era];
  const batch = [];
  for (let i = 0; i < n; i += 1) {
    const payload = `${path.era}-${path.via}-${i}-${Math.random().toString(36).slice(2)}`;
    const t0 = performance.now();
    const result = await path.client.callTool({ name: path.tool, arguments: { [spec.arg]: payload } });
    const ms = performance.now() - t0;
    if (result.isError || result.content?.[0]?.text !== spec.expect(payload)) path.wrong += 1;
    if (record) batch.push(ms);
    else if (path.first.length < FIRST) path.first.push(ms);
  }
  if (record) {
    path.latencies.push(...batch);
    path.rounds.push(batch.sort((a, b) => a - b));
  }
}

/** CPU time (user + system) of `pid` and its descendants so far, in ms (/proc/<pid>/stat, 100 ticks/s). */
function treeCpuMs(pid) {
  let ticks = 0;
  for (const p of tree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Ended while we read.
    }
  }
  return ticks * 10;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
/** Median over rounds of (this path's round p50 − the direct path's p50 in the same round): drift between rounds cancels out. */
const pairedAdded = (path, direct) => pct(path.rounds.map((batch, r) => pct(batch, 50) - pct(direct.rounds[r], 50)).sort((a, b) => a - b), 50);
const f = (n) => n.toFixed(3);

const paths = [];
try {
  for (const era of Object.keys(ERAS)) for (const via of ['direct', 'relay', 'unshared', 'shared']) paths.push(await connect(era, via));
  for (const path of paths) await calls(path, WARMUP, false);
  for (const path of paths) path.cpuMs = -treeCpuMs(path.pid);
  for (let r = 0; r < ROUNDS; r += 1) for (const path of paths) await calls(path, BATCH, true);
  for (const path of paths) path.cpuMs += treeCpuMs(path.pid);
  const stats = new Map(paths.map((p) => {
    const sorted = [...p.latencies].sort((a, b) => a - b);
    return [`${p.era}/${p.via}`, { p50: pct(sorted, 50), p90: pct(sorted, 90), p99: pct(sorted, 99), cpuUs: (1000 * p.cpuMs) / sorted.length, first: pct([...p.first].sort((a, b) => a - b), 50) }];
  }));
  const label = { direct: 'direct', relay: 'bare Node relay (the floor)', unshared: 'through toolshelf (`--no-share`)', shared: 'through toolshelf (shared, the stdio default)' };
  const lines = [
    `One call at a time over stdio, ${ROUNDS} interleaved rounds × ${BATCH} calls per path (${WARMUP} warm-up calls each first); Node ${process.version}.`,
    '',
    `| era | path | p50 ms | p90 ms | p99 ms | added p50 ms | added p50, paired by round | p50 ratio | CPU per call µs | added CPU µs | first ${FIRST} calls: p50 ms | added |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of paths) {
    const s = stats.get(`${p.era}/${p.via}`);
    const base = stats.get(`${p.era}/direct`);
    const added = p.via === 'direct' ? '—' : f(s.p50 - base.p50);
    const paired = p.via === 'direct' ? '—' : f(pairedAdded(p, paths.find((q) => q.era === p.era && q.via === 'direct')));
    const ratio = p.via === 'direct' ? '—' : `${(s.p50 / base.p50).toFixed(2)}×`;
    const cpu = p.via === 'shared' ? '—' : String(Math.round(s.cpuUs));
    const addedCpu = p.via === 'unshared' || p.via === 'relay' ? String(Math.round(s.cpuUs - base.cpuUs)) : '—';
    lines.push(`| ${p.era} | ${label[p.via]} | ${f(s.p50)} | ${f(s.p90)} | ${f(s.p99)} | ${added} | ${paired} | ${ratio} | ${cpu} | ${addedCpu} | ${f(s.first)} | ${p.via === 'direct' ? '—' : f(s.first - base.first)} |`);
  }
  console.log(lines.join('\n'));
  const wrong = paths.reduce((n, p) => n + p.wrong, 0);
  if (wrong) console.error(`${wrong} calls did not return their own payload`);
  process.exitCode = wrong ? 1 : 0;
} finally {
  await Promise.all(paths.map((p) => p.client.close()));
  endSharedInstances();
}

/** Ends the shared instances this run started (they would stay until idle): those serving `state`. */
function endSharedInstances() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('--shared-instance') && cmdline.includes(state)) process.kill(Number(entry), 'SIGTERM');
    } catch {
      // Ended while we read.
    }
  }
}
