/**
 * The 0.2.x MCP server conformance suite (scripts/conformance-next.mjs) for both protocol revisions,
 * 2025-11-25 and 2026-07-28, run directly against conformance/upstream.mjs over HTTP and through
 * `toolshelf --http` in front of it: for each target × revision the failed scenarios are exactly
 * those in conformance/expected-failures-0.2.json, each with its reason, so a new failure fails here
 * and a fixed one must leave the list. One gateway for the whole run; offline, from the lockfile;
 * bounded at 240 s (50–80 s measured on 2 shared cores at load average 15–20). Source: docs/robustness.md.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/gateway.js';

interface Run {
  readonly target: 'upstream' | 'gateway';
  readonly revision: string;
  readonly scenarios: number;
  readonly failed: string[];
  readonly details: Record<string, string[]>;
}

interface Summary {
  readonly runs: Run[];
  readonly gatewayExit: number | null;
}

type Expected = Record<string, Record<string, Record<string, string>>>;

const expected = JSON.parse(readFileSync(join(repoRoot, 'conformance/expected-failures-0.2.json'), 'utf8')) as Expected;
const REVISIONS = ['2025-11-25', '2026-07-28'];

/** Runs the script; it exits 1 on a mismatch, so the JSON is read from stdout either way. */
async function runConformance(): Promise<Summary> {
  const run = promisify(execFile)(process.execPath, [join(repoRoot, 'scripts/conformance-next.mjs'), '--json', '--timeout-s', '240'], { cwd: repoRoot, timeout: 270_000 });
  const { stdout } = await run.catch((error: { stdout?: string; stderr?: string }) => {
    if (!error.stdout) throw new Error(`conformance run broke: ${error.stderr ?? String(error)}`);
    return { stdout: error.stdout };
  });
  return JSON.parse(stdout) as Summary;
}

describe('MCP conformance suite 0.2.x, both revisions, direct and through toolshelf', () => {
  it('the list covers both targets and both revisions, and every expected failure names its reason', () => {
    for (const target of ['upstream', 'gateway']) {
      expect(Object.keys(expected[target] ?? {}).sort(), target).toEqual(REVISIONS);
      for (const [revision, failures] of Object.entries(expected[target] ?? {})) {
        for (const [scenario, reason] of Object.entries(failures)) expect(reason, `${target} ${revision} ${scenario}`).toMatch(/\S{3,}/);
      }
    }
  });

  it('for each target and revision the failed scenarios are exactly the expected ones; toolshelf shuts down cleanly after', async () => {
    const summary = await runConformance();
    expect(summary.runs.map((r) => `${r.target} ${r.revision}`)).toEqual(['upstream 2025-11-25', 'upstream 2026-07-28', 'gateway 2025-11-25', 'gateway 2026-07-28']);
    for (const run of summary.runs) {
      const label = `${run.target} ${run.revision}`;
      const list = expected[run.target]?.[run.revision] ?? {};
      expect(run.scenarios, label).toBeGreaterThanOrEqual(30);
      const unexpected = Object.fromEntries(run.failed.filter((s) => !(s in list)).map((s) => [s, run.details[s]]));
      expect(unexpected, `${label}: failed but not in conformance/expected-failures-0.2.json`).toEqual({});
      expect(Object.keys(list).filter((s) => !run.failed.includes(s)), `${label}: pass now, remove from conformance/expected-failures-0.2.json`).toEqual([]);
    }
    expect(summary.gatewayExit).toBe(0);
  }, 280_000);
});
