/**
 * Upstreams that misbehave on their output streams never take the gateway down: garbage lines on
 * stdout between valid messages, a result over the 64 MiB stdio message limit, megabytes of stderr.
 * Each test shows the other upstreams keep serving and that no process is left behind.
 * Source: docs/robustness.md.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startStdio, textOf, writeConfig, type Connected } from '../helpers/gateway.js';
import { closeAndExpectNoOrphans, expectChildren } from '../upstream/e2eHelpers.js';

/** Resident set size of `pid` in MiB. */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

describe('upstreams with hostile output', () => {
  let gw: Connected;
  const counterAnswers = async (): Promise<void> => {
    const answer = await gw.client.callTool({ name: 'counter__set_mode', arguments: { mode: 'turbo' } });
    expect(textOf(answer)).toBe('mode=turbo');
  };
  beforeAll(async () => {
    const path = writeConfig({
      mcpServers: {
        garbage: { command: 'node', args: [fixture('garbage.mjs')], exposure: 'direct' },
        oversized: { command: 'node', args: [fixture('oversized.mjs')], exposure: 'direct' },
        flood: { command: 'node', args: [fixture('stderrFlood.mjs')], exposure: 'direct' },
        counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
      },
    });
    gw = await startStdio(path);
  });
  afterAll(() => closeAndExpectNoOrphans(gw));

  it('skips garbage on stdout (text, broken JSON, non-JSON-RPC, control bytes, 1 MB lines) between valid messages', async () => {
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('garbage__echo');
    for (let i = 0; i < 5; i++) {
      const echo = await gw.client.callTool({ name: 'garbage__echo', arguments: { text: `ping ${i}` } });
      expect(echo.isError).toBeFalsy();
      expect(textOf(echo)).toBe(`ping ${i}`);
    }
    await counterAnswers();
    await expectChildren(gw, 4);
  });

  it('fails a result over the 64 MiB stdio limit at once, id first or last, and keeps serving', async () => {
    for (const tool of ['huge', 'huge_id_last']) {
      // The reason names the size limit, not a timeout: it failed when the message was dropped (no wall-clock bound).
      const [huge] = await Promise.all([gw.client.callTool({ name: `oversized__${tool}`, arguments: {} }), counterAnswers()]);
      expect(huge.isError).toBe(true);
      expect(textOf(huge)).toMatch(
        new RegExp(`^upstream server "oversized" \\(tool "${tool}"\\) failed: the upstream sent a message of 671\\d{5} bytes, over the stdio limit of 67108864 bytes$`),
      );
    }
    expect(textOf(await gw.client.callTool({ name: 'oversized__echo', arguments: {} }))).toBe('small and fine');
    await counterAnswers();
    await expectChildren(gw, 4);
  });

  it('drains megabytes of stderr (lines and a newline-less megabyte) and answers others meanwhile, in bounded memory', async () => {
    const rssBefore = rssMiB(gw.pid);
    let flooding = true;
    const flood = gw.client.callTool({ name: 'flood__flood', arguments: { mb: 20 } });
    void flood.finally(() => (flooding = false));
    // Counted, not timed: answers from another upstream while the flood is drained.
    let answeredMeanwhile = 0;
    for (let i = 0; i < 5; i++) {
      await counterAnswers();
      if (flooding) answeredMeanwhile += 1;
    }
    const result = await flood;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('wrote 20 MB to stderr');
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(1);
    expect(rssMiB(gw.pid) - rssBefore).toBeLessThan(64);
    await expectChildren(gw, 4);
  });
});
