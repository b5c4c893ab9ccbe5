// Runs the official MCP server conformance suite (@modelcontextprotocol/conformance, every server
// scenario: the active suite and the pending one)
// against `toolshelf --http` fronting conformance/upstream.mjs and server-everything
// (conformance/servers.config.json), and compares the failed scenarios with
// conformance/expected-failures.json ({ scenario: reason }). Exits 0 when they are equal and
// toolshelf then shuts down cleanly, 1 when a scenario failed unexpectedly, an expected failure now
// passes (remove it from the list) or the shutdown was not clean, 2 when the run itself broke. Offline: everything comes from node_modules. Needs a build (dist/cli.js).
// Usage: node scripts/conformance.mjs [--json] [--timeout-s 120]
// Source: issue 5 item 8.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const suiteBin = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, 'timeout-s': { type: 'string', default: '120' } } });
const deadline = Date.now() + Number(values['timeout-s']) * 1000;

/** Starts toolshelf over HTTP on a free loopback port; resolves with the child and its /mcp URL. */
function startGateway() {
  const child = spawn(process.execPath, [join(root, 'dist/cli.js'), '--config', join(root, 'conformance/servers.config.json'), '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`toolshelf did not start in 30 s:\n${stderr}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving Streamable HTTP at (\S+)/.exec(stderr);
      if (match) resolve((clearTimeout(timer), { child, url: match[1] }));
    });
    child.once('exit', (code) => reject(new Error(`toolshelf exited ${code}:\n${stderr}`)));
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves with the exit code (null when killed). */
function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  return exited.finally(() => clearTimeout(timer));
}

/** Runs the suite's `server` command against `url`, writing one folder per scenario under `outDir`. */
function runSuite(url, outDir) {
  const args = ['--import', join(root, 'conformance/preload.mjs'), suiteBin, 'server', '--url', url, '--suite', 'all', '-o', outDir];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`conformance suite over its time limit:\n${output.slice(-2000)}`))), Math.max(0, deadline - Date.now()));
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output })));
  });
}

/** scenario → failed check ids, from `<outDir>/server-<scenario>-<ISO time>/checks.json`. */
function readResults(outDir) {
  const results = new Map();
  for (const folder of readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(folder)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(join(outDir, folder, 'checks.json'), 'utf8'));
    results.set(scenario, checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? ''}`));
  }
  return results;
}

/** Failed, unexpected and stale scenarios against the checked-in list. */
function compare(results, expected) {
  const failed = [...results].filter(([, checks]) => checks.length > 0).map(([s]) => s).sort();
  return {
    scenarios: results.size,
    failed,
    unexpected: failed.filter((s) => !(s in expected)),
    stale: Object.keys(expected).filter((s) => !failed.includes(s)).sort(),
    details: Object.fromEntries([...results].filter(([, c]) => c.length > 0)),
  };
}

function report(summary, expected) {
  const lines = [`${summary.scenarios} scenarios, ${summary.failed.length} failed (${Object.keys(expected).length} expected)`];
  for (const s of summary.unexpected) lines.push(`UNEXPECTED FAILURE ${s}: ${summary.details[s].join('; ')}`);
  for (const s of summary.stale) lines.push(`NOW PASSES (remove from conformance/expected-failures.json) ${s}`);
  return lines.join('\n');
}

const expected = JSON.parse(readFileSync(join(root, 'conformance/expected-failures.json'), 'utf8'));
const outDir = mkdtempSync(join(tmpdir(), 'toolshelf-conformance-'));
const gateway = await startGateway().catch((error) => {
  console.error(error.message);
  process.exit(2);
});
let exitCode = 2;
try {
  const run = await runSuite(gateway.url, outDir);
  const summary = compare(readResults(outDir), expected);
  if (summary.scenarios === 0) throw new Error(`the suite ran no scenario (exit ${run.code}):\n${run.output.slice(-2000)}`);
  const gatewayExit = await stop(gateway.child);
  console.log(values.json ? JSON.stringify({ ...summary, gatewayExit }) : `${report(summary, expected)}\ntoolshelf exited ${gatewayExit}`);
  exitCode = summary.unexpected.length === 0 && summary.stale.length === 0 && gatewayExit === 0 ? 0 : 1;
} catch (error) {
  console.error(error.message);
} finally {
  if (gateway.child.exitCode === null) await stop(gateway.child);
  rmSync(outDir, { recursive: true, force: true });
}
process.exitCode = exitCode;
