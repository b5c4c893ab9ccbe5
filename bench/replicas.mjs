// Replicas bench (not a test): N toolshelf replicas with the same config, each on
// its own loopback port (`--http 127.0.0.1:PORT`), behind HAProxy: sticky by `Mcp-Session-Id` for
// legacy (2025-11-25) sessions — the stick table learns the header from the initialize response and
// routes every later request carrying it to the same replica — and plain round-robin for modern
// (2026-07-28) requests, which carry no session. A fixed number of `echo` calls (unique payloads) from
// concurrent SDK clients of each era, for 1 and then 2 replicas; prints calls/s side by side as a
// markdown table, with the 1-replica load also run straight at the replica (the load balancer's cost). A legacy call landing on the wrong replica would get 404 (unknown session), so
// "errors 0" also shows the stickiness held. Modern clients run only when the build serves
// 2026-07-28 (a pinned client connects), else that row says why it was skipped.
// Needs `haproxy` on PATH (Debian: apt-get install -y haproxy); without it, prints why and exits 0.
// Loopback only; every process started is ended. Exits 1 unless every call got its own payload back.
// Run after a build: `npm run bench:replicas` (options: --calls 1000 --clients 20 --limit-s 600).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const root = fileURLToPath(new URL('../', import.meta.url));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const { values } = parseArgs({ options: { calls: { type: 'string', default: '1000' }, clients: { type: 'string', default: '20' }, 'limit-s': { type: 'string', default: '600' } } });
const CALLS = Number(values.calls);
const CLIENTS = Number(values.clients);
const TOOL = 'everything__echo';

/** Path of the haproxy binary, or undefined when it is not installed. */
function findHaproxy() {
  try {
    return execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A free loopback TCP port (HAProxy needs a number in its config). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a child; resolves once `pattern` matches its stderr (group 1, or true without a group). */
function startChild(children, command, args, pattern) {
  const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'] });
  children.push(child);
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start in 30 s: ${text}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) resolve((clearTimeout(timer), match[1] ?? true));
    });
    child.once('exit', (code) => reject(new Error(`${command} exited ${code}: ${text}`)));
  });
}

/**
 * HAProxy config: one frontend on `port`, one backend over `replicas` (host:port). Long client/server
 * timeouts because a legacy session's GET stream stays open; the stick table keys on the session id.
 */
export function haproxyConfig(port, replicas) {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout http-keep-alive 10s',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend toolshelf',
    'backend toolshelf',
    '  balance roundrobin',
    '  stick-table type string len 64 size 100k expire 30m',
    '  stick on req.hdr(mcp-session-id)',
    '  stick store-response res.hdr(mcp-session-id)',
    ...replicas.map((address, i) => `  server replica${i + 1} ${address}`),
    '',
  ].join('\n');
}

/** Opens `count` clients of `era` through `url`; undefined when the build does not serve that era. */
async function openClients(url, era, count) {
  const clients = [];
  const options = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  for (let i = 0; i < count; i += 1) {
    const client = new Client({ name: `replicas-${era}-${i}`, version: '1.0.0' }, options);
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    } catch (error) {
      if (i === 0 && era === 'modern') return { skipped: error.message };
      throw error;
    }
    clients.push(client);
  }
  return { clients };
}

/** `CALLS` echo calls, one in flight per client; outcome counts and wall time in ms. */
async function load(clients, label) {
  const counts = { ok: 0, wrong: 0, errors: 0, firstError: '' };
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, w) => {
      for (let k = w; k < CALLS; k += clients.length) {
        const payload = `${label}:w${w}:c${k}:${Math.random().toString(36).slice(2)}`;
        try {
          const result = await client.callTool({ name: TOOL, arguments: { message: payload } });
          if (!result.isError && result.content?.[0]?.text === `Echo: ${payload}`) counts.ok += 1;
          else counts.wrong += 1;
        } catch (error) {
          counts.errors += 1;
          counts.firstError ||= error.message;
        }
      }
    }),
  );
  return { ...counts, wallMs: performance.now() - started };
}

/** Starts `n` replicas and HAProxy in front, runs each era's load, stops everything. */
async function runWith(haproxy, config, n) {
  const children = [];
  try {
    const replicas = [];
    for (let i = 0; i < n; i += 1) {
      const port = await freePort();
      await startChild(children, process.execPath, [join(root, 'dist/cli.js'), '--config', config, '--http', `127.0.0.1:${port}`], /serving Streamable HTTP at (\S+)/);
      replicas.push(`127.0.0.1:${port}`);
    }
    const port = await freePort();
    const cfg = join(config, '..', `haproxy-${n}.cfg`);
    writeFileSync(cfg, haproxyConfig(port, replicas));
    children.push(spawn(haproxy, ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'inherit'] }));
    await waitForPort(port);
    const targets = [[`http://127.0.0.1:${port}/mcp`, 'haproxy']];
    // With one replica, the same load straight at it too: the cost of the load balancer hop.
    if (n === 1) targets.unshift([`http://${replicas[0]}/mcp`, 'none']);
    const rows = [];
    for (const [url, via] of targets) {
      for (const era of ['legacy', 'modern']) {
        const opened = await openClients(url, era, CLIENTS);
        if (opened.skipped) {
          rows.push({ n, era, via, skipped: opened.skipped });
          continue;
        }
        await load(opened.clients, 'warm');
        rows.push({ n, era, via, ...(await load(opened.clients, `${era}-${n}-${via}`)) });
        await Promise.all(opened.clients.map((c) => c.close()));
      }
    }
    return rows;
  } finally {
    for (const child of children.reverse()) await stop(child);
  }
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port` (10 s at most). */
async function waitForPort(port) {
  const { connect } = await import('node:net');
  for (let i = 0; i < 100; i += 1) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve((socket.end(), true))).once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

/** SIGTERM, SIGKILL after 5 s. */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  return exited.finally(() => clearTimeout(timer));
}

function table(rows) {
  const lines = [
    `**${CALLS} echo calls from ${CLIENTS} concurrent clients through HAProxy to toolshelf replicas**`,
    '',
    '| era | load balancer | replicas | answered, own payload | wrong | errors | wall s | calls/s |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const routing = r.via === 'none' ? 'none (straight to the replica)' : r.era === 'legacy' ? 'HAProxy, sticky by Mcp-Session-Id' : 'HAProxy, round-robin';
    if (r.skipped) lines.push(`| ${r.era} | ${routing} | ${r.n} | skipped: ${r.skipped.replace(/\|/g, '/').slice(0, 80)} | | | | |`);
    else lines.push(`| ${r.era} | ${routing} | ${r.n} | ${r.ok} | ${r.wrong} | ${r.errors} | ${(r.wallMs / 1000).toFixed(1)} | ${Math.round(r.ok / (r.wallMs / 1000))} |`);
  }
  return lines.join('\n');
}

const haproxy = findHaproxy();
if (!haproxy) {
  console.log('bench:replicas skipped: haproxy is not installed (Debian: apt-get install -y haproxy).');
} else {
  const limit = setTimeout(() => (console.error(`over --limit-s ${values['limit-s']}`), process.exit(2)), Number(values['limit-s']) * 1000);
  const dir = mkdtempSync(join(tmpdir(), 'toolshelf-replicas-'));
  const config = join(dir, 'servers.config.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: 'node', args: [everything, 'stdio'], tools: { echo: { exposure: 'direct' } } } } }));
  try {
    const rows = [...(await runWith(haproxy, config, 1)), ...(await runWith(haproxy, config, 2))];
    rows.sort((a, b) => a.era.localeCompare(b.era) || a.n - b.n || (a.via === 'none' ? -1 : 1));
    console.log(table(rows));
    for (const r of rows) if (r.firstError) console.log(`${r.era}, ${r.n} replica(s) via ${r.via}, first error: ${r.firstError}`);
    process.exitCode = rows.every((r) => r.skipped || (r.wrong === 0 && r.errors === 0)) ? 0 : 1;
  } finally {
    clearTimeout(limit);
    rmSync(dir, { recursive: true, force: true });
  }
}
