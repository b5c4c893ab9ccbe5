/**
 * Upstream lifecycle through the built CLI: a stdio upstream that crashes is restarted with backoff,
 * calls meanwhile get an isError saying it is unavailable and when it will be retried, and after it
 * returns its new tools reach the client with list_changed; a remote upstream whose session expired
 * is reconnected and the call retried once. Every test ends with an orphan check.
 * Source: docs/robustness.md, docs/tools.md.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, fixture, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';
import { closeAndExpectNoOrphans, expectChildren, startHttpFixture, structuredOf, upstreamPids } from '../upstream/e2eHelpers.js';

describe('a stdio upstream that crashes', () => {
  let gw: Connected;
  beforeAll(async () => {
    const dir = tempDir();
    const path = writeConfig(
      {
        mcpServers: {
          crashy: { command: 'node', args: [fixture('crashy.mjs')], env: { CRASHY_STATE: join(dir, 'starts') }, exposure: 'direct' },
          counter: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
        },
      },
      dir,
    );
    gw = await startStdio(path);
  });
  afterAll(() => closeAndExpectNoOrphans(gw));

  it('is restarted; meanwhile calls say it is unavailable and when it is retried; its new tools reach the client', async () => {
    const [firstPid] = upstreamPids(gw, 'crashy.mjs');
    expect((await gw.client.listTools()).tools.map((t) => t.name)).not.toContain('crashy__added_after_restart');
    let changed = 0;
    gw.client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));

    const crash = await gw.client.callTool({ name: 'crashy__crash', arguments: {} });
    expect(crash.isError).toBe(true);
    expect(textOf(crash)).toMatch(/^upstream server "crashy" \(tool "crash"\) is unavailable: the connection closed during the call\. It will be retried in about 1 s\.$/);
    const meanwhile = await gw.client.callTool({ name: 'crashy__echo', arguments: { text: 'hi' } });
    expect(meanwhile.isError).toBe(true);
    // What the server printed as it exited is in the log only: it may quote another client's call.
    expect(textOf(meanwhile)).toMatch(/is unavailable: the server exited\. It will be retried in about 1 s\./);
    expect(gw.stderr.join('\n')).toContain('upstream "crashy" disconnected; the server exited: fixture: fatal error, exiting');
    expect(textOf(await gw.client.callTool({ name: 'counter__call_count', arguments: {} }))).toBe('1');

    expect(await waitFor(() => changed > 0, 5000)).toBe(true);
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('crashy__added_after_restart');
    expect(textOf(await gw.client.callTool({ name: 'crashy__starts', arguments: {} }))).toBe('2');
    expect(textOf(await gw.client.callTool({ name: 'crashy__echo', arguments: { text: 'back' } }))).toBe('back');
    expect(alive(firstPid as number)).toBe(false);
    await expectChildren(gw, 2);
  });

  it('backs off further on each crash soon after a restart, within the jitter bounds', async () => {
    const returns = (): number => gw.stderr.filter((line) => line.includes('upstream "crashy" is back')).length;
    for (let crash = 0; crash < 2; crash++) {
      const before = returns();
      await gw.client.callTool({ name: 'crashy__crash', arguments: {} });
      expect(await waitFor(() => returns() > before, 8000)).toBe(true);
    }
    const schedule = gw.stderr
      .map((line) => /upstream "crashy" will be retried in ([\d.]+) s \(attempt (\d+)\)/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ seconds: Number(m[1]), attempt: Number(m[2]) }));
    expect(schedule.map((s) => s.attempt)).toEqual([1, 2, 3]);
    schedule.forEach(({ seconds, attempt }) => {
      const ceiling = 0.5 * 2 ** (attempt - 1);
      expect(seconds).toBeGreaterThanOrEqual(ceiling / 2 - 0.05);
      expect(seconds).toBeLessThanOrEqual(ceiling + 0.05);
    });
    expect(textOf(await gw.client.callTool({ name: 'crashy__starts', arguments: {} }))).toBe('4');
    await expectChildren(gw, 2);
  });
});

describe('a remote upstream whose session expires', () => {
  let gw: Connected;
  let remote: ChildProcess;
  beforeAll(async () => {
    const server = await startHttpFixture(fixture('httpSessions.mjs'));
    remote = server.child;
    gw = await startStdio(writeConfig({ mcpServers: { remote: { url: server.url, exposure: 'direct' } } }));
  });
  afterAll(async () => {
    await closeAndExpectNoOrphans(gw);
    remote.kill('SIGTERM');
  });

  it('is reconnected on HTTP 404 and the call retried once, invisibly to the client', async () => {
    type State = { session: string; initializations: number; calls: number };
    const first = structuredOf<State>(await gw.client.callTool({ name: 'remote__whoami', arguments: {} }));
    expect(first.initializations).toBe(1);
    await gw.client.callTool({ name: 'remote__forget', arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    const after = await gw.client.callTool({ name: 'remote__whoami', arguments: {} });
    expect(after.isError).toBeFalsy();
    const second = structuredOf<State>(after);
    expect(second.initializations).toBe(2);
    expect(second.session).not.toBe(first.session);
    expect(second.calls).toBe(3);
    expect(gw.stderr.join('\n')).toMatch(/upstream "remote": session expired; reconnecting/);
  });
});
