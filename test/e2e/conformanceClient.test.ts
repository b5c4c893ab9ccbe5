/**
 * The official MCP conformance suite's client scenarios (every auth/* one and the rest), one at a
 * time, with toolshelf as the client under test (scripts/conformance-client.mjs through
 * conformance/client-wrapper.mjs): the scenarios that fail are exactly those in
 * conformance/expected-client-failures.json, each with its reason. About 3 s of CPU per scenario
 * (26 scenarios); the wall time grows with the machine's load, so the limit is wide. Source:
 * docs/robustness.md, "Conformance".
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
  readonly unexpected: string[];
  readonly stale: string[];
  readonly details: Record<string, string[]>;
}

const expected = JSON.parse(readFileSync(join(repoRoot, 'conformance/expected-client-failures.json'), 'utf8')) as Record<string, unknown>;
const LIMIT_MS = 1_200_000;

describe('MCP conformance suite, client scenarios', () => {
  it('every expected failure names its reason', () => {
    for (const [scenario, reason] of Object.entries(expected)) expect(reason, scenario).toMatch(/\S{3,}/);
  });

  it(
    'the failed client scenarios are exactly the expected ones',
    async () => {
      const run = promisify(execFile)(process.execPath, [join(repoRoot, 'scripts/conformance-client.mjs'), '--json'], { cwd: repoRoot, timeout: LIMIT_MS, maxBuffer: 16 << 20 });
      const { stdout } = await run.catch((error: { stdout?: string; stderr?: string }) => {
        if (!error.stdout) throw new Error(`conformance run broke: ${error.stderr ?? String(error)}`);
        return { stdout: error.stdout };
      });
      const summary = JSON.parse(stdout) as Summary;
      expect(summary.scenarios).toBeGreaterThanOrEqual(20);
      expect(summary.failed.filter((s) => s.startsWith('auth/')).length).toBeLessThan(summary.scenarios);
      expect({ unexpected: summary.unexpected, details: summary.details }).toEqual({ unexpected: [], details: expect.anything() });
      expect(summary.stale).toEqual([]);
    },
    LIMIT_MS + 30_000,
  );
});
