// Runs the 0.2.x MCP server conformance suite (@modelcontextprotocol/conformance, installed as the
// `conformance-next` alias beside the pinned 0.1.x) for both protocol revisions, 2025-11-25 (stateful,
// initialize handshake) and 2026-07-28 (stateless, per-request _meta), selected with the suite's
// `--spec-version` over `--suite all`, against two targets: conformance/upstream.mjs served directly
// over HTTP (`--http`), and `toolshelf --http` fronting it and server-everything
// (conformance/servers.config.json; one gateway for the whole run). The failed scenarios of each
// target × revision are compared with conformance/expected-failures-0.2.json
// ({ target: { revision: { scenario: reason } } }).
// Exits 0 when every run equals its list and toolshelf then shuts down cleanly; 1 when a scenario
// failed unexpectedly, an expected failure now passes (remove it from the list) or the shutdown was
// not clean; 2 when the run itself broke. Offline; needs a build (dist/).
// Usage: node scripts/conformance-next.mjs [--json] [--timeout-s 240]
// Source: docs/robustness.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compare, readResults, root, runSuite, startAnnounced, startGateway, stop } from '../conformance/harness.mjs';

const suiteBin = join(root, 'node_modules/conformance-next/dist/index.js');
const REVISIONS = ['2025-11-25', '2026-07-28'];
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, 'timeout-s': { type: 'string', default: '240' } } });
const deadline = Date.now() + Number(values['timeout-s']) * 1000;
const expected = JSON.parse(readFileSync(join(root, 'conformance/expected-failures-0.2.json'), 'utf8'));
const outDir = mkdtempSync(join(tmpdir(), 'toolshelf-conformance-next-'));

/** One suite run at `revision` against `url`; its comparison with `expected[target][revision]`. */
async function runOne(target, url, revision) {
  const dir = join(outDir, `${target}-${revision}`);
  const run = await runSuite(suiteBin, ['server', '--url', url, '--suite', 'all', '--spec-version', revision, '-o', dir], deadline);
  const summary = compare(readResults(dir), expected[target]?.[revision] ?? {});
  if (summary.scenarios === 0) throw new Error(`${target} ${revision}: the suite ran no scenario (exit ${run.code}):\n${run.output.slice(-2000)}`);
  return { target, revision, ...summary };
}

function report(runs, gatewayExit) {
  const lines = [];
  for (const r of runs) {
    lines.push(`${r.target} ${r.revision}: ${r.scenarios} scenarios, ${r.failed.length} failed (${Object.keys(expected[r.target]?.[r.revision] ?? {}).length} expected)`);
    for (const s of r.unexpected) lines.push(`  UNEXPECTED FAILURE ${s}: ${r.details[s].join('; ')}`);
    for (const s of r.stale) lines.push(`  NOW PASSES (remove from conformance/expected-failures-0.2.json) ${s}`);
  }
  return `${lines.join('\n')}\ntoolshelf exited ${gatewayExit}`;
}

const children = [];
let exitCode = 2;
try {
  const upstream = await startAnnounced([join(root, 'conformance/upstream.mjs'), '--http'], /listening (\S+)/, 'conformance upstream');
  children.push(upstream.child);
  const gateway = await startGateway();
  children.push(gateway.child);
  const runs = [];
  for (const [target, url] of [['upstream', upstream.url], ['gateway', gateway.url]]) {
    for (const revision of REVISIONS) runs.push(await runOne(target, url, revision));
  }
  const gatewayExit = await stop(gateway.child);
  console.log(values.json ? JSON.stringify({ runs, gatewayExit }) : report(runs, gatewayExit));
  exitCode = runs.every((r) => r.unexpected.length === 0 && r.stale.length === 0) && gatewayExit === 0 ? 0 : 1;
} catch (error) {
  console.error(error.message);
} finally {
  for (const child of children) await stop(child);
  rmSync(outDir, { recursive: true, force: true });
}
process.exitCode = exitCode;
