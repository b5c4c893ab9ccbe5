// Scale bench (not a test): 20 upstreams (bench/fixtures/catalogServer.mjs over the
// shared catalogues, four copies of each) × 3 stdio clients, one run side by side:
//   - today: each client runs its own gateway and its own 20 upstreams (--no-share, eager);
//   - shared + lazy: the clients share one background instance whose upstreams are lazy, started
//     from the catalogue cache (filled by one eager --no-share start beforehand, not measured).
// Reports processes (every process tree: the clients' gateways or relays, the shared instance, the
// upstreams), their total RSS (VmRSS from /proc, MiB), spawn → first tools/list per client, and the
// first call's latency through call_tool to one upstream (lazy: its start included), all after the
// three clients listed and before any of them left. Each mode runs in a temp state folder of its own.
// Run: `npm run bench:scale` (builds first). Markdown to stdout; progress on stderr.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, startGateway, treesRss } from './fixtures/procs.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const CATALOG_SERVER = join(ROOT, 'bench', 'fixtures', 'catalogServer.mjs');
const CATALOGS = fileURLToPath(new URL('../../shared/data/catalogs/', import.meta.url));
const UPSTREAMS = 20;
const CLIENTS = 3;
const tmp = mkdtempSync(join(tmpdir(), 'toolshelf-bench-scale-'));
const progress = (text) => process.stderr.write(`bench: ${text}\n`);

const files = readdirSync(CATALOGS).filter((f) => f.endsWith('.json')).sort();
const servers = {};
for (let i = 0; i < UPSTREAMS; i += 1) {
  const file = files[i % files.length];
  servers[`${basename(file, '.json').replace(/\W+/g, '_')}_${Math.floor(i / files.length) + 1}`] = { command: 'node', args: [CATALOG_SERVER, join(CATALOGS, file)] };
}
// The first call goes to a tool of the last upstream that needs no arguments (admission passes).
const lastKey = Object.keys(servers).at(-1);
const lastTools = JSON.parse(readFileSync(servers[lastKey].args[1], 'utf8'));
const target = lastTools.find((t) => !(t.inputSchema?.required?.length > 0));

function writeConfig(name, extra) {
  const path = join(tmp, `${name}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: servers, share: { idleExitMs: 1000 }, ...extra }));
  return path;
}

async function run(mode, path, flags, state) {
  const env = { ...process.env, TOOLSHELF_STATE_DIR: state, TOOLSHELF_SHARE: '' };
  const clients = [];
  for (let i = 0; i < CLIENTS; i += 1) {
    progress(`${mode}: client ${i + 1}`);
    clients.push(await startGateway(CLI, ['--config', path, ...flags], env, `bench-${i + 1}`));
  }
  const sharedDir = join(state, 'shared');
  const instances = existsSync(sharedDir)
    ? readdirSync(sharedDir).filter((f) => f.endsWith('.pid')).map((f) => Number(readFileSync(join(sharedDir, f), 'utf8')))
    : [];
  const name = clients[0].tools.some((t) => t.name === 'call_tool') ? 'call_tool' : undefined;
  const qualified = `${lastKey}__${target.name}`;
  const started = performance.now();
  const result = await clients[0].client.callTool(name ? { name, arguments: { name: qualified, arguments: {} } } : { name: qualified, arguments: {} });
  const firstCallMs = performance.now() - started;
  if (result.isError) throw new Error(`${mode}: first call failed: ${JSON.stringify(result.content)}`);
  const { processes, rss } = treesRss([...clients.map((c) => c.pid), ...instances]);
  for (const c of clients) await c.client.close();
  return { mode, processes, rss, firstList: clients.map((c) => c.firstListMs), firstCallMs };
}

const today = await run('today (--no-share, eager)', writeConfig('today', {}), ['--no-share'], join(tmp, 'today'));
const lazyPath = writeConfig('shared', { lazy: true });
progress('filling the catalogue cache for shared + lazy');
const primer = await startGateway(CLI, ['--config', lazyPath, '--no-share'], { ...process.env, TOOLSHELF_STATE_DIR: join(tmp, 'shared') });
await primer.client.close();
const shared = await run('shared + lazy (cached catalogue)', lazyPath, [], join(tmp, 'shared'));
// Let the shared instance notice its last client left and end its upstreams before the folder goes.
await new Promise((r) => setTimeout(r, 3000));
rmSync(tmp, { recursive: true, force: true });

console.log(`${UPSTREAMS} upstreams (${files.map((f) => basename(f, '.json')).join(', ')}; ${Object.values(servers).reduce((n, s) => n + JSON.parse(readFileSync(s.args[1], 'utf8')).length, 0)} tools) × ${CLIENTS} stdio clients\n`);
console.log('| mode | processes | total RSS (MiB) | spawn → first tools/list per client (ms) | first call to the last upstream (ms) |');
console.log('|---|---:|---:|---|---:|');
for (const r of [today, shared]) console.log(`| ${r.mode} | ${r.processes} | ${fmt(r.rss)} | ${r.firstList.map((ms) => fmt(ms)).join(' / ')} | ${fmt(r.firstCallMs)} |`);
console.log(`\nshared + lazy against today: RSS ${fmt((100 * shared.rss) / today.rss)}%, processes ${shared.processes} vs ${today.processes} (the target: RSS ≤ 40%, processes ≤ 1 + upstreams used; here 1 + 1 beside the ${CLIENTS} relays)`);
