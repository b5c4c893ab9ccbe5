/**
 * The official MCP server conformance suite against `toolshelf --http` (scripts/conformance.mjs):
 * the scenarios that fail are exactly those in conformance/expected-failures.json, each with its
 * reason, so a new failure fails here and a fixed one must leave the list. Offline, from the
 * lockfile; bounded at 120 s. Source: docs/robustness.md.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/gateway.js';

interface Summary {
  readonly scenarios: number;
  readonly failed: string[];
  readonly details: Record<string, string[]>;
  readonly gatewayExit: number | null;
}

const expected = JSON.parse(readFileSync(join(repoRoot, 'conformance/expected-failures.json'), 'utf8')) as Record<string, unknown>;

/** Runs the script; it exits 1 on a mismatch, so the JSON is read from stdout either way. */
async function runConformance(): Promise<Summary> {
  const run = promisify(execFile)(process.execPath, [join(repoRoot, 'scripts/conformance.mjs'), '--json', '--timeout-s', '100'], { cwd: repoRoot, timeout: 120_000 });
  const { stdout } = await run.catch((error: { stdout?: string; stderr?: string }) => {
    if (!error.stdout) throw new Error(`conformance run broke: ${error.stderr ?? String(error)}`);
    return { stdout: error.stdout };
  });
  return JSON.parse(stdout) as Summary;
}

describe('MCP conformance suite', () => {
  it('every expected failure names its reason', () => {
    for (const [scenario, reason] of Object.entries(expected)) expect(reason, scenario).toMatch(/\S{3,}/);
  });

  it('the failed scenarios are exactly the expected ones, and toolshelf shuts down cleanly after', async () => {
    const summary = await runConformance();
    expect(summary.scenarios).toBeGreaterThanOrEqual(30);
    const unexpected = Object.fromEntries(summary.failed.filter((s) => !(s in expected)).map((s) => [s, summary.details[s]]));
    expect(unexpected, 'failed but not in conformance/expected-failures.json').toEqual({});
    expect(Object.keys(expected).filter((s) => !summary.failed.includes(s)), 'pass now: remove from conformance/expected-failures.json').toEqual([]);
    expect(summary.gatewayExit).toBe(0);
  }, 130_000);
});
