/**
 * The connection's lifecycle (src/upstream/lifecycle.ts) as a table: every event in every state, each
 * a test of its own, with the next state or the refusal; then the retry policy's branches (backoff,
 * lazy back-off, one-shot and retiring connections, recovery after a minute up) and the `status`
 * others read. The diagram: docs/robustness.md, "The connection's lifecycle".
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, LAZY_MAX_ATTEMPTS } from '../../src/upstream/backoff.js';
import { msUntilRetry, nextState, PENDING, startsOnUse, statusOf, type Lifecycle, type LifecycleEvent, type LifecyclePolicy } from '../../src/upstream/lifecycle.js';

const NOW = 10_000;
const eager: LifecyclePolicy = { lazy: false, retry: true, backoff: DEFAULT_BACKOFF };
const lazy: LifecyclePolicy = { ...eager, lazy: true };
const oneShot: LifecyclePolicy = { ...eager, retry: false };

/** One sample of each state; `failures` 2 where it has them (a backed-off one has at least LAZY_MAX_ATTEMPTS). */
const states = {
  pending: PENDING,
  held: { kind: 'held' },
  idle: { kind: 'idle', failures: 2 },
  starting: { kind: 'starting', failures: 2, backedOff: false },
  ready: { kind: 'ready', failures: 2, upSince: NOW - 9_000 },
  retrying: { kind: 'retrying', failures: 2, wasUp: true, retryAt: NOW + 500 },
  backedOff: { kind: 'backedOff', failures: LAZY_MAX_ATTEMPTS, wasUp: false },
  unretried: { kind: 'unretried', failures: 2, wasUp: true },
  needsSignIn: { kind: 'needsSignIn', failures: 2 },
  closed: { kind: 'closed' },
} as const satisfies { [K in Lifecycle['kind']]: Extract<Lifecycle, { kind: K }> };
type Kind = keyof typeof states;

/** One sample of each event: at NOW, jitter 0.5 (3/4 of each backoff ceiling). */
const events = {
  rest: { type: 'rest' },
  hold: { type: 'hold' },
  start: { type: 'start' },
  started: { type: 'started', now: NOW },
  startFailed: { type: 'startFailed', wasUp: true, now: NOW, jitter: 0.5 },
  startRefused: { type: 'startRefused' },
  crashed: { type: 'crashed', now: NOW, jitter: 0.5 },
  callRefused: { type: 'callRefused' },
  idleStop: { type: 'idleStop', now: NOW },
  retire: { type: 'retire' },
  close: { type: 'close' },
} as const satisfies { [T in LifecycleEvent['type']]: Extract<LifecycleEvent, { type: T }> };
type EventType = keyof typeof events;

/** The third failure in a row at NOW: attempt 3 of the schedule, 1,500 ms with jitter 0.5. */
const thirdFailure = { kind: 'retrying', failures: 3, wasUp: true, retryAt: NOW + 1_500 } as const;

/** The expected next state of each event in each state an event applies to; every other state refuses it. */
const table: { [T in EventType]: Partial<Record<Kind, Lifecycle>> } = {
  rest: { pending: { kind: 'idle', failures: 0 } },
  hold: { pending: { kind: 'held' } },
  start: {
    pending: { kind: 'starting', failures: 0, backedOff: false },
    held: { kind: 'starting', failures: 0, backedOff: false },
    idle: { kind: 'starting', failures: 2, backedOff: false },
    ready: { kind: 'starting', failures: 2, backedOff: false },
    retrying: { kind: 'starting', failures: 2, backedOff: false },
    backedOff: { kind: 'starting', failures: LAZY_MAX_ATTEMPTS, backedOff: true },
    unretried: { kind: 'starting', failures: 2, backedOff: false },
    needsSignIn: { kind: 'starting', failures: 2, backedOff: false },
  },
  started: { starting: { kind: 'ready', failures: 2, upSince: NOW } },
  startFailed: { starting: thirdFailure },
  startRefused: { starting: { kind: 'needsSignIn', failures: 2 } },
  crashed: { ready: thirdFailure },
  callRefused: { ready: { kind: 'needsSignIn', failures: 2 }, needsSignIn: { kind: 'needsSignIn', failures: 2 } },
  idleStop: { ready: { kind: 'idle', failures: 2 } },
  retire: {
    pending: states.pending,
    held: states.held,
    idle: states.idle,
    starting: states.starting,
    ready: states.ready,
    retrying: { kind: 'unretried', failures: 2, wasUp: true },
    backedOff: states.backedOff,
    unretried: states.unretried,
    needsSignIn: states.needsSignIn,
  },
  close: Object.fromEntries(Object.keys(states).map((kind) => [kind, { kind: 'closed' }])),
};

const cases = (Object.keys(events) as EventType[]).flatMap((event) =>
  (Object.keys(states) as Kind[]).map((kind) => ({ event, kind, expected: table[event][kind] })),
);

describe('every event in every state', () => {
  it.each(cases.filter((c) => c.expected !== undefined))('$event in $kind moves on', ({ event, kind, expected }) => {
    expect(nextState(states[kind], events[event], eager)).toEqual({ ok: true, state: expected });
  });

  it.each(cases.filter((c) => c.expected === undefined))('$event in $kind is refused and says why', ({ event, kind }) => {
    const step = nextState(states[kind], events[event], eager);
    expect(step).toEqual({ ok: false, refused: expect.stringMatching(/\w/) });
  });
});

describe('after a failure', () => {
  it('a failed start is retried at attempt failures + 1 of the backoff schedule', () => {
    const starting: Lifecycle = { kind: 'starting', failures: 0, backedOff: false };
    expect(nextState(starting, { type: 'startFailed', wasUp: false, now: NOW, jitter: 0.5 }, eager)).toEqual({ ok: true, state: { kind: 'retrying', failures: 1, wasUp: false, retryAt: NOW + 375 } });
  });

  it('an eager upstream is retried however many times it failed', () => {
    const starting: Lifecycle = { kind: 'starting', failures: 1_000, backedOff: false };
    expect(nextState(starting, events.startFailed, eager)).toEqual({ ok: true, state: { kind: 'retrying', failures: 1_001, wasUp: true, retryAt: NOW + 22_500 } });
  });

  it('a lazy upstream is retried until its failures reach LAZY_MAX_ATTEMPTS', () => {
    const starting: Lifecycle = { kind: 'starting', failures: LAZY_MAX_ATTEMPTS - 2, backedOff: false };
    expect(nextState(starting, events.startFailed, lazy)).toMatchObject({ ok: true, state: { kind: 'retrying', failures: LAZY_MAX_ATTEMPTS - 1 } });
  });

  it('a lazy upstream at LAZY_MAX_ATTEMPTS failures backs off, and says it backs off now', () => {
    const starting: Lifecycle = { kind: 'starting', failures: LAZY_MAX_ATTEMPTS - 1, backedOff: false };
    expect(nextState(starting, events.startFailed, lazy)).toEqual({ ok: true, state: { kind: 'backedOff', failures: LAZY_MAX_ATTEMPTS, wasUp: true }, backingOff: true });
  });

  it('a start a use made after backing off that fails again backs off without saying so again', () => {
    const starting: Lifecycle = { kind: 'starting', failures: LAZY_MAX_ATTEMPTS, backedOff: true };
    expect(nextState(starting, events.startFailed, lazy)).toEqual({ ok: true, state: { kind: 'backedOff', failures: LAZY_MAX_ATTEMPTS + 1, wasUp: true } });
  });

  it('a lazy upstream that crashes for the LAZY_MAX_ATTEMPTS-th time in a row backs off', () => {
    const ready: Lifecycle = { kind: 'ready', failures: LAZY_MAX_ATTEMPTS - 1, upSince: NOW - 1_000 };
    expect(nextState(ready, events.crashed, lazy)).toEqual({ ok: true, state: { kind: 'backedOff', failures: LAZY_MAX_ATTEMPTS, wasUp: true }, backingOff: true });
  });

  it('a one-shot command’s failed start is not retried and not counted', () => {
    expect(nextState(states.starting, { ...events.startFailed, wasUp: false }, oneShot)).toEqual({ ok: true, state: { kind: 'unretried', failures: 2, wasUp: false } });
  });

  it('a crash of a connection that is not retried leaves it down', () => {
    expect(nextState(states.ready, events.crashed, oneShot)).toEqual({ ok: true, state: { kind: 'unretried', failures: 2, wasUp: true } });
  });

  it('a crash after the upstream stayed up resetAfterMs starts the count over, and says it recovered', () => {
    const ready: Lifecycle = { kind: 'ready', failures: 4, upSince: NOW - DEFAULT_BACKOFF.resetAfterMs };
    expect(nextState(ready, events.crashed, eager)).toEqual({ ok: true, state: { kind: 'retrying', failures: 1, wasUp: true, retryAt: NOW + 375 }, recovered: true });
  });

  it('an idle stop after the upstream stayed up resetAfterMs starts the count over; one before keeps it', () => {
    // A lazy upstream that failed 5 times, then served for an hour, used to back off after one new failure.
    const upAnHour: Lifecycle = { kind: 'ready', failures: LAZY_MAX_ATTEMPTS - 1, upSince: NOW - 3_600_000 };
    expect(nextState(upAnHour, events.idleStop, lazy)).toEqual({ ok: true, state: { kind: 'idle', failures: 0 } });
    const upAMoment: Lifecycle = { kind: 'ready', failures: LAZY_MAX_ATTEMPTS - 1, upSince: NOW - DEFAULT_BACKOFF.resetAfterMs + 1 };
    expect(nextState(upAMoment, events.idleStop, lazy)).toEqual({ ok: true, state: { kind: 'idle', failures: LAZY_MAX_ATTEMPTS - 1 } });
  });

  it('a crash a moment before resetAfterMs keeps counting', () => {
    const ready: Lifecycle = { kind: 'ready', failures: 4, upSince: NOW - DEFAULT_BACKOFF.resetAfterMs + 1 };
    expect(nextState(ready, events.crashed, eager)).toMatchObject({ ok: true, state: { kind: 'retrying', failures: 5 } });
  });

  it('a recovered crash of a connection that is not retried is counted from zero', () => {
    const ready: Lifecycle = { kind: 'ready', failures: 4, upSince: NOW - DEFAULT_BACKOFF.resetAfterMs };
    expect(nextState(ready, events.crashed, oneShot)).toEqual({ ok: true, state: { kind: 'unretried', failures: 0, wasUp: true }, recovered: true });
  });
});

describe('the status others read', () => {
  it.each([
    ['pending', 'starting'],
    ['held', 'starting'],
    ['idle', 'idle'],
    ['starting', 'starting'],
    ['ready', 'ready'],
    ['retrying', 'down'],
    ['backedOff', 'failed'],
    ['unretried', 'down'],
    ['needsSignIn', 'needs_sign_in'],
    ['closed', 'closed'],
  ] as const)('%s shows as %s', (kind, status) => {
    expect(statusOf(states[kind])).toBe(status);
  });

  it('a down state without a listing of its own shows as failed, with one as down', () => {
    for (const kind of ['retrying', 'backedOff', 'unretried'] as const) {
      expect(statusOf({ ...states[kind], wasUp: false })).toBe('failed');
      expect(statusOf({ ...states[kind], wasUp: true })).toBe('down');
    }
  });
});

describe('what a caller is told', () => {
  it('the time left until a scheduled restart, 0 once it is due', () => {
    expect(msUntilRetry(states.retrying, NOW)).toBe(500);
    expect(msUntilRetry(states.retrying, NOW + 800)).toBe(0);
  });

  it('no retry time where no restart is scheduled', () => {
    for (const kind of Object.keys(states) as Kind[]) if (kind !== 'retrying') expect(msUntilRetry(states[kind], NOW)).toBeUndefined();
  });

  it('a use starts an idle or backed-off upstream, and no other', () => {
    expect((Object.keys(states) as Kind[]).filter((kind) => startsOnUse(states[kind]))).toEqual(['idle', 'backedOff']);
  });
});
