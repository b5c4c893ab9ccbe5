// Load bench (not a test): N concurrent Streamable HTTP sessions make M echo calls in
// total through toolshelf to a real upstream (server-everything over stdio), each with a unique
// payload, checking that every call is answered exactly once with its own payload; p50/p90/p99
// latency and the gateway's RSS (VmRSS from /proc) before and after. The same load runs straight
// at server-everything twice, as the baselines for the gateway's added latency:
//   - direct HTTP: its own server code behind the SDK's Streamable HTTP transport, one server per
//     session (bench/load-direct-server.mjs): the same client side as through the gateway, so the
//     difference is the gateway hop (its HTTP front, dispatch, admission, the stdio leg);
//   - direct stdio: one SDK Client over stdio with N calls in flight: the upstream leg alone.
// With --modern the gateway path runs a second time with modern (2026-07-28) clients: no sessions,
// each call a request of its own (modern-era HTTP calls/s next to legacy-era).
// Each path then makes --sequential calls one at a time on one session: the latency without queueing.
// Loopback only, bounded in calls and time (exits 2 past --limit-s). Prints markdown tables; exits 1
// unless every call was answered exactly once with its own payload.
// Run after a build: `npm run bench:load`
// (options: --calls 10000 --sessions 50 --warmup 500 --sequential 1000 --limit-s 600).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const root = fileURLToPath(new URL('../', import.meta.url));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '10000' },
    sessions: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '500' },
    sequential: { type: 'string', default: '1000' },
    'limit-s': { type: 'string', default: '600' },
    modern: { type: 'boolean', default: false },
  },
});
const CALLS = Number(values.calls);
const SESSIONS = Number(values.sessions);
const WARMUP = Number(values.warmup);
const SEQUENTIAL = Number(values.sequential);
const children = [];

/** Starts a child and resolves with the first stderr match of `pattern` (group 1). */
function startChild(args, pattern) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'] });
  children.push(child);
  let text = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}: ${text}`)));
  });
}

/** Resident set size of `pid` in MiB (VmRSS in /proc/<pid>/status). */
function rssMiB(pid) {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/**
 * Opens `count` HTTP sessions to `url`; each Client counts responses it cannot match (duplicates)
 * and other transport errors. Read the tally before closing: close() aborts the GET streams.
 */
async function httpClients(url, count, tally, era = 'legacy') {
  const clients = [];
  for (let i = 0; i < count; i += 1) {
    const client = new Client({ name: `load-${i}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    client.onerror = (error) => void (/unknown message ID/i.test(error.message) ? (tally.duplicates += 1) : (tally.transportErrors += 1));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
  }
  return clients;
}

/**
 * `calls` echo calls spread over `clients` (one call in flight per worker; worker i uses
 * clients[i % clients.length]). Returns latencies in ms and the outcome counts.
 */
async function load(label, clients, workers, calls, tool) {
  const latencies = [];
  const counts = { ok: 0, wrongPayload: 0, errors: 0 };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const client = clients[w % clients.length];
      for (let k = w; k < calls; k += workers) {
        const payload = `${label}:w${w}:c${k}:${Math.random().toString(36).slice(2)}`;
        const t0 = performance.now();
        try {
          const result = await client.callTool({ name: tool, arguments: { message: payload } });
          latencies.push(performance.now() - t0);
          if (result.content?.[0]?.text === `Echo: ${payload}` && !result.isError) counts.ok += 1;
          else counts.wrongPayload += 1;
        } catch {
          counts.errors += 1;
        }
      }
    }),
  );
  return { latencies, counts, wallMs: performance.now() - started };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summarize(path, run, tally) {
  const sorted = [...run.latencies].sort((a, b) => a - b);
  const calls = run.counts.ok + run.counts.wrongPayload + run.counts.errors;
  return {
    path,
    calls,
    ...run.counts,
    ...tally,
    wallS: run.wallMs / 1000,
    perS: calls / (run.wallMs / 1000),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
  };
}

async function directStdio() {
  const tally = { duplicates: 0, transportErrors: 0 };
  const client = new Client({ name: 'load-direct-stdio', version: '1.0.0' });
  client.onerror = (error) => void (/unknown message ID/i.test(error.message) ? (tally.duplicates += 1) : (tally.transportErrors += 1));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }));
  await load('warm', [client], SESSIONS, WARMUP, 'echo');
  const run = await load('stdio', [client], SESSIONS, CALLS, 'echo');
  const one = await load('stdio-seq', [client], 1, SEQUENTIAL, 'echo');
  const path = 'direct, stdio (1 connection)';
  const summary = { loaded: summarize(path, run, tally), sequential: summarize(path, one, tally) };
  await client.close();
  return summary;
}

async function directHttp() {
  const { child, url } = await startChild([join(root, 'bench/load-direct-server.mjs')], /listening (\S+)/);
  const tally = { duplicates: 0, transportErrors: 0 };
  const clients = await httpClients(url, SESSIONS, tally);
  await load('warm', clients, SESSIONS, WARMUP, 'echo');
  const run = await load('http', clients, SESSIONS, CALLS, 'echo');
  const one = await load('http-seq', clients, 1, SEQUENTIAL, 'echo');
  const summary = { loaded: summarize(`direct, HTTP (${SESSIONS} sessions)`, run, tally), sequential: summarize('direct, HTTP (1 session)', one, tally) };
  await Promise.all(clients.map((c) => c.close()));
  child.kill('SIGTERM');
  return summary;
}

async function throughGateway(era = 'legacy') {
  const dir = mkdtempSync(join(tmpdir(), 'toolshelf-load-'));
  const config = join(dir, 'servers.config.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: 'node', args: [everything, 'stdio'], tools: { echo: { exposure: 'direct' } } } } }));
  const { child, url } = await startChild([join(root, 'dist/cli.js'), '--config', config, '--http', '127.0.0.1:0'], /serving Streamable HTTP at (\S+)/);
  const rss = { idle: rssMiB(child.pid) };
  const tally = { duplicates: 0, transportErrors: 0 };
  const clients = await httpClients(url, SESSIONS, tally, era);
  rss.sessionsOpen = rssMiB(child.pid);
  await load('warm', clients, SESSIONS, WARMUP, 'everything__echo');
  const run = await load('gateway', clients, SESSIONS, CALLS, 'everything__echo');
  rss.afterCalls = rssMiB(child.pid);
  const one = await load('gateway-seq', clients, 1, SEQUENTIAL, 'everything__echo');
  const summary = {
    loaded: summarize(era === 'modern' ? `through toolshelf, HTTP, modern (${SESSIONS} clients)` : `through toolshelf, HTTP (${SESSIONS} sessions)`, run, tally),
    sequential: summarize(era === 'modern' ? 'through toolshelf, HTTP, modern (1 client)' : 'through toolshelf, HTTP (1 session)', one, tally),
    rss,
  };
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((r) => setTimeout(r, 2000));
  rss.sessionsClosed = rssMiB(child.pid);
  child.kill('SIGTERM');
  return summary;
}

const ms = (n) => n.toFixed(2);

function resultTable(title, rows) {
  return [
    `**${title}**`,
    '',
    '| path | calls | answered once, own payload | wrong payload | errors | unmatched responses | transport errors | wall s | calls/s | p50 ms | p90 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.path} | ${r.calls} | ${r.ok} | ${r.wrongPayload} | ${r.errors} | ${r.duplicates} | ${r.transportErrors} | ${r.wallS.toFixed(1)} | ${Math.round(r.perS)} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.max)} |`),
    '',
  ];
}

function addedTable(loaded, sequential) {
  const out = ['**toolshelf added latency (through toolshelf minus direct)**', '', '| load | baseline | p50 ms | p90 ms | p99 ms |', '|---|---|---:|---:|---:|'];
  for (const [load, [stdio, http, gateway]] of [[`${SESSIONS} concurrent`, loaded], ['1 at a time', sequential]]) {
    for (const [label, base] of [['direct stdio', stdio], ['direct HTTP', http]]) {
      out.push(`| ${load} | ${label} | ${ms(gateway.p50 - base.p50)} | ${ms(gateway.p90 - base.p90)} | ${ms(gateway.p99 - base.p99)} |`);
    }
  }
  return [...out, ''];
}

function rssTable(rss) {
  return [
    '**toolshelf RSS (VmRSS)**',
    '',
    '| when | MiB |',
    '|---|---:|',
    `| after start, no session | ${rss.idle.toFixed(1)} |`,
    `| ${SESSIONS} sessions open | ${rss.sessionsOpen.toFixed(1)} |`,
    `| after the ${CALLS.toLocaleString('en')} calls | ${rss.afterCalls.toFixed(1)} |`,
    `| 2 s after closing the sessions | ${rss.sessionsClosed.toFixed(1)} |`,
  ];
}

function print(paths, rss) {
  const cpus = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length;
  const loaded = paths.map((p) => p.loaded);
  const sequential = paths.map((p) => p.sequential);
  console.log(
    [
      `Upstream: server-everything \`echo\`, unique payloads; ${WARMUP} warm-up calls per path; Node ${process.version}, ${cpus} CPUs; client, gateway and upstream on the same machine.`,
      '',
      ...resultTable(`${CALLS.toLocaleString('en')} calls, ${SESSIONS} in flight`, loaded),
      ...resultTable(`${SEQUENTIAL.toLocaleString('en')} calls, one at a time`, sequential),
      ...addedTable(loaded, sequential),
      ...rssTable(rss),
    ].join('\n'),
  );
  return [...loaded, ...sequential].every((r) => r.ok === r.calls && r.duplicates === 0 && r.transportErrors === 0);
}

const limit = setTimeout(() => {
  console.error(`bench:load: over the ${values['limit-s']} s limit; stopping`);
  process.exit(2);
}, Number(values['limit-s']) * 1000);
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
try {
  const stdio = await directStdio();
  const http = await directHttp();
  const gateway = await throughGateway();
  const modern = values.modern ? [await throughGateway('modern')] : [];
  const allAnswered = print([stdio, http, gateway, ...modern], gateway.rss);
  process.exitCode = allAnswered ? 0 : 1;
} finally {
  clearTimeout(limit);
}
