// Runs the official MCP conformance suite's `client` scenarios (@modelcontextprotocol/conformance:
// every auth/* scenario and the rest) one at a time against toolshelf as the client under test,
// through conformance/client-wrapper.mjs, and compares the failed scenarios with
// conformance/expected-client-failures.json ({ scenario: reason }). A scenario fails when the suite
// reports a failed or warned check, a timeout, or a client error. Exits 0 when the failures are
// exactly the expected ones, 1 when one failed unexpectedly or an expected failure now passes
// (remove it from the list), 2 when the run itself broke. Offline: everything is in node_modules.
// Needs a build (dist/cli.js).
// Usage: node scripts/conformance-client.mjs [--json] [--scenario NAME] [--timeout-s 90]  (a per-scenario upper bound; a scenario ends as soon as it is done)
// Source: docs/robustness.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const suiteBin = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const suite = ['--import', join(root, 'conformance/preload.mjs'), suiteBin];
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, scenario: { type: 'string', multiple: true }, 'timeout-s': { type: 'string', default: '90' } } });

/** Client scenario names from the suite's `list`. */
function clientScenarios() {
  const listed = spawnSync(process.execPath, [...suite, 'list'], { cwd: root, encoding: 'utf8' });
  const section = listed.stdout.split(/Client scenarios[^\n]*\n/)[1] ?? '';
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

/** Runs one scenario; resolves with whether it passed and the failed checks, from the suite's checks.json. */
function runScenario(scenario, outDir) {
  const timeoutMs = Number(values['timeout-s']) * 1000;
  const args = [...suite, 'client', '--command', `${process.execPath} ${join(root, 'conformance/client-wrapper.mjs')}`, '--scenario', scenario, '--timeout', String(timeoutMs), '-o', outDir];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ passed: code === 0, failedChecks: failedChecks(outDir, scenario), tail: code === 0 ? '' : output.slice(-1500) });
    });
  });
}

function failedChecks(outDir, scenario) {
  try {
    const parent = join(outDir, ...scenario.split('/').slice(0, -1));
    const leaf = scenario.split('/').at(-1);
    const folder = readdirSync(parent).find((f) => f.startsWith(`${leaf}-`) && /\d{4}-\d\d-\d\dT/.test(f.slice(leaf.length + 1)));
    const checks = JSON.parse(readFileSync(join(parent, folder, 'checks.json'), 'utf8'));
    return checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);
  } catch {
    return [];
  }
}

const expected = JSON.parse(readFileSync(join(root, 'conformance/expected-client-failures.json'), 'utf8'));
const scenarios = values.scenario ?? clientScenarios();
if (scenarios.length === 0) {
  console.error('the suite listed no client scenario');
  process.exit(2);
}
const outDir = mkdtempSync(join(tmpdir(), 'toolshelf-conformance-client-'));
const started = Date.now();
const results = {};
try {
  for (const scenario of scenarios) results[scenario] = await runScenario(scenario, outDir);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
const failed = Object.keys(results).filter((s) => !results[s].passed).sort();
const unexpected = failed.filter((s) => !(s in expected));
const stale = values.scenario ? [] : Object.keys(expected).filter((s) => !failed.includes(s)).sort();
const seconds = Math.round((Date.now() - started) / 1000);
if (values.json) {
  const details = Object.fromEntries(failed.map((s) => [s, results[s].failedChecks.length > 0 ? results[s].failedChecks : [results[s].tail]]));
  console.log(JSON.stringify({ scenarios: scenarios.length, failed, unexpected, stale, details, seconds }));
} else {
  console.log(`${scenarios.length} client scenarios in ${seconds} s, ${failed.length} failed (${Object.keys(expected).length} expected)`);
  for (const s of unexpected) console.log(`UNEXPECTED FAILURE ${s}: ${results[s].failedChecks.join('; ') || results[s].tail}`);
  for (const s of stale) console.log(`NOW PASSES (remove from conformance/expected-client-failures.json) ${s}`);
}
process.exitCode = unexpected.length === 0 && stale.length === 0 ? 0 : 1;
