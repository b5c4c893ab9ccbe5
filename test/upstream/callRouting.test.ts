/**
 * The routing rule for upstream requests: by the related call when the transport
 * names it, else by the only client whose calls wait; refused otherwise, never guessed.
 */
import { describe, expect, it } from 'vitest';
import { CallRouter, outsideCalls, ownerOf } from '../../src/upstream/callRouting.js';
import type { RequestOrigin } from '../../src/upstream/types.js';

const origin = (session: string): RequestOrigin => ({ session, ask: async () => ({ from: session }) });
const [a1, a2, b1] = [origin('A'), origin('A'), origin('B')];

describe('ownerOf', () => {
  it('follows the related call, even when another client’s call also waits', () => {
    expect(ownerOf(a1, [b1, a1])).toEqual({ ok: true, origin: a1 });
  });
  it('refuses when the related call has ended, even with exactly one other call waiting', () => {
    expect(ownerOf('ended', [b1])).toMatchObject({ ok: false, reason: expect.stringMatching(/already ended/) });
  });
  it('without a related call, picks the oldest call of the one client waiting', () => {
    expect(ownerOf(undefined, [a1])).toEqual({ ok: true, origin: a1 });
    expect(ownerOf(undefined, [a2, a1])).toEqual({ ok: true, origin: a2 });
  });
  it('without a related call, refuses with no call or with two clients’ calls waiting', () => {
    expect(ownerOf(undefined, [])).toMatchObject({ ok: false, reason: expect.stringMatching(/no client call/) });
    expect(ownerOf(undefined, [a1, b1])).toMatchObject({ ok: false, reason: expect.stringMatching(/calls from 2 clients/) });
  });
});

describe('ownerOf with parked calls (held for their client’s input_required retry)', () => {
  const parked = (session: string): RequestOrigin => ({ ...origin(session), parked: () => true });
  it('a parked call of another client does not make a running call’s request ambiguous', () => {
    const p = parked('P');
    expect(ownerOf(undefined, [p, a1])).toEqual({ ok: true, origin: a1 });
    expect(ownerOf(undefined, [p, parked('Q'), a1])).toEqual({ ok: true, origin: a1 });
  });
  it('parked calls still count when nothing else waits, and two clients’ running calls are still refused', () => {
    const p = parked('P');
    expect(ownerOf(undefined, [p])).toEqual({ ok: true, origin: p });
    expect(ownerOf(undefined, [p, parked('Q')])).toMatchObject({ ok: false, reason: expect.stringMatching(/calls from 2 clients/) });
    expect(ownerOf(undefined, [p, a1, b1])).toMatchObject({ ok: false, reason: expect.stringMatching(/calls from 2 clients/) });
  });
  it('says when no call waits at all (roots/list then gets an empty list, relay.ts)', () => {
    expect(ownerOf(undefined, [])).toMatchObject({ ok: false, idle: true });
  });
});

describe('ownerOf with abandoned calls', () => {
  it('refuses while another client’s cancelled or timed-out call may still run upstream; the same client’s is no obstacle', () => {
    expect(ownerOf(undefined, [b1], [a1])).toMatchObject({ ok: false, reason: expect.stringMatching(/cancelled or gave up on/) });
    expect(ownerOf(undefined, [a2], [a1])).toEqual({ ok: true, origin: a2 });
    expect(ownerOf(undefined, [], [a1])).toMatchObject({ ok: false, reason: expect.stringMatching(/no client call/) });
  });
});

describe('CallRouter', () => {
  it('keeps a call the upstream never answered (cancelled, timed out) as abandoned: another client’s call is then not taken for its cause (A cancels, its sampling reached B)', async () => {
    const router = new CallRouter(false);
    await router.track(a1, async () => 'cancelled', (value) => value === 'cancelled');
    let releaseB!: () => void;
    const b = router.track(b1, () => new Promise<void>((resolve) => (releaseB = resolve)));
    expect(router.owner()).toMatchObject({ ok: false, reason: expect.stringMatching(/cancelled or gave up on/) });
    releaseB();
    await b;
    router.forgetAbandoned();
    const b2 = router.track(b1, () => new Promise<void>((resolve) => (releaseB = resolve)));
    expect(router.owner()).toEqual({ ok: true, origin: b1 });
    releaseB();
    await b2;
  });

  it('does not keep a call the upstream answered (an error included) as abandoned', async () => {
    const router = new CallRouter(false);
    await router.track(a1, async () => 'error', (value) => value === 'cancelled');
    let releaseB!: () => void;
    const b = router.track(b1, () => new Promise<void>((resolve) => (releaseB = resolve)));
    expect(router.owner()).toEqual({ ok: true, origin: b1 });
    releaseB();
    await b;
  });

  it('knows the related call inside it, and by the waiting calls outside any call', async () => {
    const router = new CallRouter();
    let releaseB!: () => void;
    const b = router.track(b1, () => new Promise<void>((resolve) => (releaseB = resolve)));
    const insideA = await router.track(a1, async () => router.owner());
    expect(insideA).toEqual({ ok: true, origin: a1 });
    expect(outsideCalls(() => router.owner())).toEqual({ ok: true, origin: b1 });
    releaseB();
    await b;
    expect(router.owner()).toMatchObject({ ok: false });
  });

  it('takes a request that comes after its call ended (its context kept alive) as ended, not as the call now waiting', async () => {
    const router = new CallRouter();
    let late!: Promise<ReturnType<CallRouter['owner']>>;
    // A continuation that A's call created and that runs after it ended (e.g. a stream it opened).
    await router.track(a1, async () => {
      late = new Promise((resolve) => setTimeout(() => resolve(router.owner()), 0));
    });
    let releaseB!: () => void;
    const b = router.track(b1, () => new Promise<void>((resolve) => (releaseB = resolve)));
    expect(await late).toMatchObject({ ok: false, reason: expect.stringMatching(/already ended/) });
    releaseB();
    await b;
  });

  it('on a transport that names no related call (stdio), decides by the waiting calls only', async () => {
    const router = new CallRouter(false);
    let releaseB!: () => void;
    const b = router.track(b1, () => new Promise<void>((resolve) => (releaseB = resolve)));
    expect(await router.track(a1, async () => router.owner())).toMatchObject({ ok: false, reason: expect.stringMatching(/calls from 2 clients/) });
    releaseB();
    await b;
    expect(await router.track(a1, async () => router.owner())).toEqual({ ok: true, origin: a1 });
  });

  it('a request made without an origin (toolshelf’s own) is not tracked', async () => {
    const router = new CallRouter();
    expect(await router.track(undefined, async () => router.owner())).toMatchObject({ ok: false, reason: expect.stringMatching(/no client call/) });
  });
});

describe('CallRouter client turns (a call waiting on its client is not idle)', () => {
  it('clientActiveAt is now while an ask to that client is open, then when it was answered; other clients are untouched; forgotten once the calls end', async () => {
    const router = new CallRouter(false);
    const a = origin('A');
    let release!: () => void;
    const call = router.track(a, () => new Promise<void>((resolve) => (release = resolve)));
    let answer!: (v: string) => void;
    const asked = router.asking(a, () => new Promise<string>((resolve) => (answer = resolve)));
    const before = performance.now();
    expect(router.clientActiveAt(a)).toBeGreaterThanOrEqual(before);
    expect(router.clientActiveAt(origin('B'))).toBe(0);
    expect(router.clientActiveAt(undefined)).toBe(0);
    answer('ok');
    expect(await asked).toBe('ok');
    const answeredAt = router.clientActiveAt(a);
    await new Promise((r) => setTimeout(r, 20));
    expect(router.clientActiveAt(a)).toBe(answeredAt);
    release();
    await call;
    expect(router.clientActiveAt(a)).toBe(0);
  });
});
