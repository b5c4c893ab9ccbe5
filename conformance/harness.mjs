// Process plumbing shared by the conformance runs (scripts/conformance.mjs for the pinned 0.1.x suite,
// scripts/conformance-next.mjs for 0.2.x): start a server that announces its URL on stderr, stop it,
// run one suite invocation with a deadline, read the per-scenario results. Offline; needs a build
// (dist/cli.js, dist/gateway/fronts/webBridge.js). Source: docs/robustness.md.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../', import.meta.url));

/**
 * Spawns `node …args` and resolves with the child and the first capture group of `announce` matched
 * on its stderr. `stdin` 'pipe' lets a fixture that ends on stdin close go with this process. Rejects
 * after 30 s or when the child exits first, with its stderr.
 */
export function startAnnounced(args, announce, label, stdin = 'pipe') {
  const child = spawn(process.execPath, args, { stdio: [stdin, 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start in 30 s:\n${stderr}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = announce.exec(stderr);
      if (match) resolve((clearTimeout(timer), { child, url: match[1] }));
    });
    child.once('exit', (code) => reject(new Error(`${label} exited ${code}:\n${stderr}`)));
  });
}

/** Starts `toolshelf --http` on a free loopback port with `config`; resolves with the child and its /mcp URL. */
export function startGateway(config = join(root, 'conformance/servers.config.json')) {
  return startAnnounced([join(root, 'dist/cli.js'), '--config', config, '--http', '127.0.0.1:0'], /serving Streamable HTTP at (\S+)/, 'toolshelf', 'ignore');
}

/** SIGTERM, then SIGKILL after 5 s; resolves with the exit code (null when killed). */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  return exited.finally(() => clearTimeout(timer));
}

/**
 * Runs the suite at `suiteBin` with `args` (Node 20's missing fs.globSync preloaded), killed at
 * `deadline` (epoch ms). Resolves with its exit code and combined output.
 */
export function runSuite(suiteBin, args, deadline) {
  const child = spawn(process.execPath, ['--import', join(root, 'conformance/preload.mjs'), suiteBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`conformance suite over its time limit:\n${output.slice(-2000)}`))), Math.max(0, deadline - Date.now()));
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output })));
  });
}

/** scenario → failed checks (`id: message`), from `<outDir>/server-<scenario>-<ISO time>/checks.json`. */
export function readResults(outDir) {
  const results = new Map();
  for (const folder of readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(folder)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(join(outDir, folder, 'checks.json'), 'utf8'));
    results.set(scenario, checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? ''}`));
  }
  return results;
}

/** Failed, unexpected and stale scenarios of one run against `expected` ({ scenario: reason }). */
export function compare(results, expected) {
  const failed = [...results].filter(([, checks]) => checks.length > 0).map(([s]) => s).sort();
  return {
    scenarios: results.size,
    failed,
    unexpected: failed.filter((s) => !(s in expected)),
    stale: Object.keys(expected).filter((s) => !failed.includes(s)).sort(),
    details: Object.fromEntries([...results].filter(([, c]) => c.length > 0)),
  };
}
