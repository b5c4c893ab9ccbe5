/**
 * UpstreamConnection on a fake clock against an in-process upstream: the restart schedule, what calls
 * get meanwhile, re-listing after a return, start timeout, list_changed throttling, timeouts,
 * progress, total cap, cancellation and expired remote sessions. Source: docs/tools.md, docs/robustness.md.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamConnection } from '../../src/upstream/connection.js';
import type { ListingStore } from '../../src/upstream/listingCache.js';
import { createLogger } from '../../src/trace/log.js';
import { LAZY_MAX_ATTEMPTS } from '../../src/upstream/backoff.js';
import type { CallOutcome } from '../../src/upstream/types.js';
import { fakeServer, FakeUpstream, tool } from './fakeUpstream.js';

let fake: FakeUpstream;
let conn: UpstreamConnection;

beforeEach(() => {
  vi.useFakeTimers();
  fake = new FakeUpstream();
});
afterEach(async () => {
  await conn?.close();
  vi.useRealTimers();
});

async function started(options = fake.options(), server = fakeServer()): Promise<UpstreamConnection> {
  conn = new UpstreamConnection('up', server, options);
  const start = conn.start();
  await vi.advanceTimersByTimeAsync(0);
  await start;
  return conn;
}

/** Offsets of connection attempts after the first, in ms from `from`. */
const offsets = (from: number): number[] => fake.attempts.slice(1).map((t) => t - from);

describe('restart after a crash', () => {
  it('restarts on the exponential schedule with jitter, each failed restart doubling the delay', async () => {
    await started();
    expect(conn.status).toBe('ready');
    fake.plan.push('fail', 'fail', 'fail');
    const crashedAt = Date.now();
    await fake.crash();
    expect(conn.status).toBe('down');
    await vi.advanceTimersByTimeAsync(10_000);
    // random 0.5 → 3/4 of each ceiling: 375, then +750, +1500, +3000.
    expect(offsets(crashedAt)).toEqual([375, 375 + 750, 375 + 750 + 1500, 375 + 750 + 1500 + 3000]);
    expect(conn.status).toBe('ready');
  });

  it('never waits more than the cap between attempts and never gives up', async () => {
    await started();
    fake.plan.push(...Array<'fail'>(20).fill('fail'));
    await fake.crash();
    await vi.advanceTimersByTimeAsync(600_000);
    const gaps = fake.attempts.slice(2).map((t, i) => t - (fake.attempts[i + 1] as number));
    expect(Math.max(...gaps)).toBe(22_500);
    expect(fake.attempts.length).toBe(22);
    expect(conn.status).toBe('ready');
  });

  it('backs a lazy upstream that keeps failing off to idle, says so once, and starts it again on the next call', async () => {
    const lines: string[] = [];
    fake.plan.push(...Array<'fail'>(LAZY_MAX_ATTEMPTS + 1).fill('fail'));
    await started(fake.options({ logger: createLogger('warn', (line) => lines.push(line)) }), { ...fakeServer(), lazy: true });
    await vi.advanceTimersByTimeAsync(600_000);
    expect(fake.attempts).toHaveLength(LAZY_MAX_ATTEMPTS); // the first start and the retries, then no more
    expect(lines.filter((line) => line.includes('no longer retried'))).toHaveLength(1);
    expect(await conn.callTool('echo', {})).toMatchObject({ kind: 'unavailable' }); // one more start, failed
    expect(fake.attempts).toHaveLength(LAZY_MAX_ATTEMPTS + 1);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(fake.attempts).toHaveLength(LAZY_MAX_ATTEMPTS + 1);
    expect(await conn.callTool('echo', {})).toEqual({ kind: 'ok', result: { content: [{ type: 'text', text: 'echo ok' }] } });
    expect(lines.filter((line) => line.includes('no longer retried'))).toHaveLength(1);
  });

  it('never retries for a one-shot command, and says nothing of retries', async () => {
    const lines: string[] = [];
    fake.plan.push('fail');
    await started(fake.options({ retry: false, logger: createLogger('info', (line) => lines.push(line)) }));
    await vi.advanceTimersByTimeAsync(600_000);
    expect(fake.attempts).toHaveLength(1);
    expect(lines.join('')).not.toMatch(/retried/);
  });

  it('answers calls while down with isError material: the reason and when it will be retried', async () => {
    await started();
    fake.plan.push('fail');
    await fake.crash();
    await vi.advanceTimersByTimeAsync(100);
    expect(await conn.callTool('echo', {})).toEqual({ kind: 'unavailable', reason: 'the server exited', retryInMs: 275 });
    await vi.advanceTimersByTimeAsync(275);
    const second = await conn.callTool('echo', {});
    expect(second).toMatchObject({ kind: 'unavailable', retryInMs: 750 });
    expect((second as { reason: string }).reason).toMatch(/spawn fake ENOENT/);
    await vi.advanceTimersByTimeAsync(750);
    expect(await conn.callTool('echo', {})).toEqual({ kind: 'ok', result: { content: [{ type: 'text', text: 'echo ok' }] } });
  });

  it('fails a call in flight when the server dies, saying when it will be retried', async () => {
    await started();
    const call = conn.callTool('slow', { ms: 5000 });
    await vi.advanceTimersByTimeAsync(10);
    await fake.crash();
    expect(await call).toEqual({ kind: 'unavailable', reason: 'the connection closed during the call', retryInMs: 375 });
  });

  it('re-lists after a return and reports a change, but not an unchanged list', async () => {
    const changed: string[] = [];
    await started(fake.options({ onToolsChanged: (key) => changed.push(key) }));
    expect(changed.splice(0)).toEqual(['up']); // the first listing
    await fake.crash();
    await vi.advanceTimersByTimeAsync(375);
    expect(conn.status).toBe('ready');
    expect(changed).toEqual([]);
    fake.tools = [tool('echo'), tool('added_after_restart')];
    await fake.crash();
    await vi.advanceTimersByTimeAsync(750);
    expect(conn.tools.map((t) => t.name)).toEqual(['echo', 'added_after_restart']);
    expect(changed).toEqual(['up']);
  });

  it('keeps the last tools while down so the catalogue does not shrink', async () => {
    await started();
    fake.plan.push('fail');
    await fake.crash();
    await vi.advanceTimersByTimeAsync(400);
    expect(conn.status).toBe('down');
    expect(conn.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('starts the schedule over once the upstream stayed up for a minute, not before', async () => {
    await started();
    await fake.crash();
    await vi.advanceTimersByTimeAsync(375);
    await vi.advanceTimersByTimeAsync(1000);
    let crashedAt = Date.now();
    await fake.crash();
    await vi.advanceTimersByTimeAsync(5000);
    expect(fake.attempts.at(-1)! - crashedAt).toBe(750);
    await vi.advanceTimersByTimeAsync(60_000);
    crashedAt = Date.now();
    await fake.crash();
    await vi.advanceTimersByTimeAsync(5000);
    expect(fake.attempts.at(-1)! - crashedAt).toBe(375);
  });

  it('stops restarting once closed', async () => {
    await started();
    fake.plan.push('fail');
    await fake.crash();
    await conn.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.attempts).toHaveLength(1);
    expect(conn.status).toBe('closed');
  });
});

describe('start-up', () => {
  it('gives up on a server that never answers initialize after the start timeout, and retries it', async () => {
    fake.plan.push('hang');
    conn = new UpstreamConnection('up', fakeServer(), fake.options({ startTimeoutMs: 2000 }));
    let done = false;
    const start = conn.start().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await start;
    expect(conn.status).toBe('failed');
    expect(conn.lastError).toBe('did not finish starting within 2 s (startTimeoutMs)');
    expect(await conn.callTool('echo', {})).toMatchObject({ kind: 'unavailable', retryInMs: 375 });
    await vi.advanceTimersByTimeAsync(375);
    expect(conn.status).toBe('ready');
  });

  it('announces the first listing, so a caller that stopped waiting for start() learns of the tools', async () => {
    const changed: string[] = [];
    fake.plan.push('hang');
    conn = new UpstreamConnection('up', fakeServer(), fake.options({ startTimeoutMs: 2000, onToolsChanged: (key) => changed.push(key) }));
    void conn.start();
    await vi.advanceTimersByTimeAsync(2000 + 375);
    expect(conn.status).toBe('ready');
    expect(changed).toEqual(['up']);
    await conn.close();
    const empty = new FakeUpstream();
    empty.tools = [];
    conn = new UpstreamConnection('up', fakeServer(), empty.options({ onToolsChanged: (key) => changed.push(key) }));
    void conn.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(conn.status).toBe('ready');
    expect(changed).toEqual(['up']);
  });

  it('reports a failed first start as failed with the reason, and comes up on a later attempt', async () => {
    const changed: string[] = [];
    fake.plan.push('fail');
    await started(fake.options({ onToolsChanged: (key) => changed.push(key) }));
    expect(conn.status).toBe('failed');
    expect(conn.lastError).toBe('spawn fake ENOENT');
    await vi.advanceTimersByTimeAsync(375);
    expect(conn.status).toBe('ready');
    expect(changed).toEqual(['up']);
  });
});

describe('an eager upstream served from the cache, held until the gateway has served', () => {
  /** A catalogue cache that knows the fake upstream's tools: `open` serves them without connecting. */
  const cached: ListingStore = { load: () => ({ tools: [tool('echo')] }), save: () => {} };
  const never = new Promise<void>(() => {});
  /** A connection to the fake upstream, opened from the cache with its start held by `gate`. */
  async function openHeld(gate: Promise<void>): Promise<void> {
    conn = new UpstreamConnection('up', fakeServer(), fake.options({ cache: cached }));
    await conn.open(gate);
  }

  it('connects nothing before the gate opens, and starts once it does', async () => {
    let openGate: () => void = () => {};
    await openHeld(new Promise<void>((resolve) => (openGate = resolve)));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.attempts).toHaveLength(0);
    expect(conn.status).toBe('starting');
    expect(conn.tools.map((t) => t.name)).toEqual(['echo']);
    openGate();
    await conn.startEnded();
    expect(fake.attempts).toHaveLength(1);
    expect(conn.status).toBe('ready');
  });

  it('starts at once for a call, and the call is answered', async () => {
    await openHeld(never);
    const outcome = await conn.callTool('echo', {});
    expect(outcome.kind).toBe('ok');
    expect(fake.attempts).toHaveLength(1);
  });

  it('starts at once when a search finds its tools (warm)', async () => {
    await openHeld(never);
    conn.warm();
    await conn.startEnded();
    expect(fake.attempts).toHaveLength(1);
    expect(conn.status).toBe('ready');
  });

  it('closes without ever connecting, and its start counts as ended', async () => {
    await openHeld(never);
    await conn.close();
    await conn.startEnded();
    expect(fake.attempts).toHaveLength(0);
    expect(conn.status).toBe('closed');
  });
});

describe('list_changed', () => {
  it('re-lists once for a burst of hundreds of notifications', async () => {
    const changed: string[] = [];
    await started(fake.options({ onToolsChanged: (key) => changed.push(key) }));
    changed.length = 0;
    const before = fake.listCalls;
    fake.tools = [tool('echo'), tool('second')];
    await fake.announce(500);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.listCalls - before).toBe(1);
    expect(changed).toEqual(['up']);
  });

  it('is not starved by an endless stream: re-lists at most every 100 ms', async () => {
    await started();
    const before = fake.listCalls;
    for (let i = 0; i < 40; i++) {
      await fake.announce();
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(fake.listCalls - before).toBeGreaterThanOrEqual(15);
    expect(fake.listCalls - before).toBeLessThanOrEqual(21);
  });
});

describe('no list update is lost', () => {
  const names = (): string[] => conn.tools.map((t) => t.name);

  it('a list_changed that arrives while the first tools/list is in flight is re-listed after it', async () => {
    const changed: string[] = [];
    fake.holdLists = true;
    conn = new UpstreamConnection('up', fakeServer(), fake.options({ onToolsChanged: (key) => changed.push(key) }));
    const start = conn.start();
    await vi.waitFor(() => expect(fake.listCalls).toBe(1));
    // The upstream adds a tool and announces it while its answer (the old list) is held back.
    fake.tools = [tool('echo'), tool('late')];
    await fake.announce();
    await vi.advanceTimersByTimeAsync(500);
    expect(fake.listCalls).toBe(1);
    fake.releaseLists();
    await start;
    expect(names()).toEqual(['echo']);
    await vi.advanceTimersByTimeAsync(500);
    expect(names()).toEqual(['echo', 'late']);
    expect(fake.listCalls).toBe(2);
    expect(changed).toEqual(['up', 'up']);
  });

  it('a list_changed during a re-list in flight is followed by exactly one more re-list', async () => {
    await started();
    fake.tools = [tool('echo'), tool('second')];
    fake.holdLists = true;
    await fake.announce();
    await vi.advanceTimersByTimeAsync(200);
    expect(fake.listCalls).toBe(2);
    fake.tools = [tool('echo'), tool('second'), tool('third')];
    await fake.announce(5);
    await vi.advanceTimersByTimeAsync(500);
    expect(fake.listCalls).toBe(2);
    fake.releaseLists();
    await vi.advanceTimersByTimeAsync(500);
    expect(names()).toEqual(['echo', 'second', 'third']);
    expect(fake.listCalls).toBe(3);
  });

  it('without a change during the listing, no extra re-list is made', async () => {
    await started();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.listCalls).toBe(1);
  });
});

describe('calls: timeout, progress, total cap, cancellation', () => {
  it('times out after the server’s timeoutMs and tells the upstream to cancel', async () => {
    await started(fake.options(), fakeServer({ timeoutMs: 1000 }));
    const call = conn.callTool('slow', { ms: 5000 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await call).toEqual({ kind: 'timeout', ms: 1000 });
    expect(fake.cancelled).toEqual(['slow']);
  });

  it('defaults the timeout to 60 s', async () => {
    await started();
    let outcome: CallOutcome | undefined;
    void conn.callTool('slow', { ms: 120_000 }).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toEqual({ kind: 'timeout', ms: 60_000 });
  });

  it('forwards progress and lets it reset the timeout', async () => {
    await started(fake.options(), fakeServer({ timeoutMs: 1000 }));
    const updates: number[] = [];
    const call = conn.callTool('ticks', { ticks: 10, everyMs: 600 }, { onProgress: (p) => updates.push(p.progress) });
    await vi.advanceTimersByTimeAsync(6000);
    expect(await call).toMatchObject({ kind: 'ok' });
    expect(updates).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('lets progress reset the timeout even when the caller did not ask for progress', async () => {
    await started(fake.options(), fakeServer({ timeoutMs: 1000 }));
    const call = conn.callTool('ticks', { ticks: 5, everyMs: 600 });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await call).toMatchObject({ kind: 'ok' });
  });

  it('ends a call at the total cap even while progress keeps coming, and cancels it upstream', async () => {
    await started(fake.options(), fakeServer({ timeoutMs: 1000 }));
    let outcome: CallOutcome | undefined;
    void conn.callTool('ticks', { ticks: 1000, everyMs: 500 }, { maxTotalMs: 3000 }).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(2999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toEqual({ kind: 'timeout', ms: 3000 });
    expect(fake.cancelled).toEqual(['ticks']);
  });

  it('passes the caller’s cancellation upstream', async () => {
    await started();
    const controller = new AbortController();
    const call = conn.callTool('slow', { ms: 5000 }, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort('user pressed stop');
    expect(await call).toEqual({ kind: 'cancelled' });
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.cancelled).toEqual(['slow']);
  });

  it('sends no cancellation for a call that completed', async () => {
    await started();
    const call = conn.callTool('slow', { ms: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect(await call).toMatchObject({ kind: 'ok' });
    await vi.advanceTimersByTimeAsync(700_000);
    expect(fake.cancelled).toEqual([]);
  });
});

describe('expired remote session', () => {
  it('reconnects and sends the call once more', async () => {
    const changed: string[] = [];
    await started(fake.options({ onToolsChanged: (key) => changed.push(key) }));
    changed.length = 0;
    fake.expireSession();
    const outcome = await conn.callTool('echo', {});
    expect(outcome).toEqual({ kind: 'ok', result: { content: [{ type: 'text', text: 'echo ok' }] } });
    expect(fake.attempts).toHaveLength(2);
    expect(changed).toEqual([]);
  });

  it('shares one reconnection between concurrent calls and generic requests', async () => {
    await started();
    fake.expireSession();
    const outcomes = await Promise.all([conn.callTool('echo', {}), conn.callTool('echo', {}), conn.request('tools/list', {})]);
    expect(outcomes.map((o) => ('kind' in o ? o.kind : o.ok))).toEqual(['ok', 'ok', true]);
    expect(fake.attempts).toHaveLength(2);
  });

  it('reports the server unavailable when reconnecting fails, with the retry time', async () => {
    await started();
    fake.expireSession();
    fake.plan.push('fail');
    const outcome = await conn.callTool('echo', {});
    expect(outcome).toMatchObject({ kind: 'unavailable', retryInMs: 375 });
  });
});
