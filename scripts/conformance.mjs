// Runs the official MCP server conformance suite (@modelcontextprotocol/conformance, every server
// scenario: the active suite and the pending one)
// against `toolshelf --http` fronting conformance/upstream.mjs and server-everything
// (conformance/servers.config.json), and compares the failed scenarios with
// conformance/expected-failures.json ({ scenario: reason }). Exits 0 when they are equal and
// toolshelf then shuts down cleanly, 1 when a scenario failed unexpectedly, an expected failure now
// passes (remove it from the list) or the shutdown was not clean, 2 when the run itself broke. Offline: everything comes from node_modules. Needs a build (dist/cli.js).
// Usage: node scripts/conformance.mjs [--json] [--timeout-s 120]
// Source: docs/robustness.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compare, readResults, root, runSuite as runSuiteAt, startGateway, stop } from '../conformance/harness.mjs';

const suiteBin = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, 'timeout-s': { type: 'string', default: '120' } } });
const deadline = Date.now() + Number(values['timeout-s']) * 1000;

/** Runs the suite's `server` command against `url`, writing one folder per scenario under `outDir`. */
const runSuite = (url, outDir) => runSuiteAt(suiteBin, ['server', '--url', url, '--suite', 'all', '-o', outDir], deadline);

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
