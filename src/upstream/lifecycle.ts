/**
 * The lifecycle of one upstream connection as named states, and {@link nextState}, the one function
 * that moves between them. Pure: no clock, no timers, no I/O. The connection (connection.ts) passes
 * the time and the jitter in, does the I/O a new state asks for (the start, the SDK Client, the retry
 * timer, the logs) and shows {@link statusOf} as its `status`. The state diagram is in
 * docs/robustness.md ("The connection's lifecycle"); each transition and each refusal has a test in
 * test/upstream/lifecycle.test.ts.
 */
import { backoffDelayMs, LAZY_MAX_ATTEMPTS, type BackoffOptions } from './backoff.js';
import type { UpstreamStatus } from './types.js';

/**
 * Where one upstream connection is in its life. `failures` counts failed starts and crashes in a
 * row, counted from the last time the upstream stayed up {@link BackoffOptions.resetAfterMs}: the
 * attempt number of the backoff schedule (backoff.ts). `wasUp` says whether the tools kept are a
 * listing's (status `down`) or there are none or only the catalogue cache's (status `failed`).
 */
export type Lifecycle =
  /** Constructed: not opened yet, or waiting for the connection it replaces to end (a reload). */
  | { readonly kind: 'pending' }
  /** An eager upstream served from the cached listing, its start held until the gateway has served (toolshelf.ts `CACHED_START_DELAY_MS`) or a use needs it. */
  | { readonly kind: 'held' }
  /** Nothing running: a lazy upstream served from its last listing until a call or search needs it, or one stopped after its idle time. */
  | { readonly kind: 'idle'; readonly failures: number }
  /** Connecting and listing tools within the start timeout. `backedOff`: a use started a lazy upstream that had backed off. */
  | { readonly kind: 'starting'; readonly failures: number; readonly backedOff: boolean }
  /** Connected and listed; `upSince` in ms since the epoch. */
  | { readonly kind: 'ready'; readonly failures: number; readonly upSince: number }
  /** Down, with a restart due at `retryAt` (ms since the epoch). */
  | { readonly kind: 'retrying'; readonly failures: number; readonly wasUp: boolean; readonly retryAt: number }
  /** A lazy upstream down {@link LAZY_MAX_ATTEMPTS} times in a row: no restart is scheduled, the next use starts it. */
  | { readonly kind: 'backedOff'; readonly failures: number; readonly wasUp: boolean }
  /** Down and never restarted by itself: a one-shot command (`inspect`, `search`), or a connection a reload retires. */
  | { readonly kind: 'unretried'; readonly failures: number; readonly wasUp: boolean }
  /** A remote upstream that refused its credentials: no restart until the user signs in (docs/sign-in.md). */
  | { readonly kind: 'needsSignIn'; readonly failures: number }
  /** Closed for good: every later event but `close` is refused. */
  | { readonly kind: 'closed' };

/** What happens to a connection. Times in ms since the epoch; `jitter` in [0, 1) (backoff.ts). */
export type LifecycleEvent =
  /** Opened with a cached listing as a lazy upstream: nothing is spawned. */
  | { readonly type: 'rest' }
  /** Opened with a cached listing as an eager upstream whose start waits for a gate. */
  | { readonly type: 'hold' }
  /** A start begins: opened without a cached listing, a gate or a use, a retry due, a sign-in, or an expired remote session renewed. */
  | { readonly type: 'start' }
  /** The start connected and listed the tools. */
  | { readonly type: 'started'; readonly now: number }
  /** The start failed or timed out; `wasUp` as in {@link Lifecycle}. */
  | { readonly type: 'startFailed'; readonly wasUp: boolean; readonly now: number; readonly jitter: number }
  /** The start met credentials the upstream refused. */
  | { readonly type: 'startRefused' }
  /** The connection of a ready upstream closed (the process exited, the stream ended). */
  | { readonly type: 'crashed'; readonly now: number; readonly jitter: number }
  /** A call met credentials the upstream refused. */
  | { readonly type: 'callRefused' }
  /** Nothing used a lazy upstream for its idle time. */
  | { readonly type: 'idleStop'; readonly now: number }
  /** A reload replaced or removed the entry: no restart from now on (the policy's `retry` is false too). */
  | { readonly type: 'retire' }
  | { readonly type: 'close' };

/** What the connection's options and config say at the time of an event. */
export interface LifecyclePolicy {
  /** The upstream is lazy: it backs off to waiting for a use after {@link LAZY_MAX_ATTEMPTS} failures in a row. */
  readonly lazy: boolean;
  /** Failures are retried: false for a one-shot command and for a retiring connection. */
  readonly retry: boolean;
  readonly backoff: BackoffOptions;
}

/**
 * The answer of {@link nextState}: the next state, or why the event does not apply in this state
 * (the connection then changes nothing). `backingOff`: the upstream backs off now, not again (the
 * connection says so once). `recovered`: it had stayed up long enough for its failure count to start
 * over (a cause logged before is logged again).
 */
export type Transition =
  | { readonly ok: true; readonly state: Lifecycle; readonly backingOff?: true; readonly recovered?: true }
  | { readonly ok: false; readonly refused: string };

/** The state a new connection begins in. */
export const PENDING: Extract<Lifecycle, { kind: 'pending' }> = { kind: 'pending' };

/**
 * The state after `event` in `state` under `policy`. Total: every event in every state gives a
 * state or a refusal. Retries follow backoff.ts: attempt `failures` waits
 * {@link backoffDelayMs}(failures, jitter); a lazy upstream at {@link LAZY_MAX_ATTEMPTS} failures
 * backs off instead (docs/operations.md, "Retries and lazy back-off").
 */
export function nextState(state: Lifecycle, event: LifecycleEvent, policy: LifecyclePolicy): Transition {
  if (event.type === 'close') return moved({ kind: 'closed' });
  if (state.kind === 'closed') return refused('the connection is closed');
  switch (event.type) {
    case 'rest':
      return state.kind === 'pending' ? moved({ kind: 'idle', failures: 0 }) : refused('only a connection being opened can rest');
    case 'hold':
      return state.kind === 'pending' ? moved({ kind: 'held' }) : refused('only a connection being opened can hold its start');
    case 'start':
      if (state.kind === 'starting') return refused('a start is under way');
      return moved({ kind: 'starting', failures: failuresOf(state), backedOff: state.kind === 'backedOff' });
    case 'started':
      return state.kind === 'starting' ? moved({ kind: 'ready', failures: state.failures, upSince: event.now }) : refused('no start is under way');
    case 'startFailed':
      return state.kind === 'starting' ? afterFailure(state.failures, event.wasUp, state.backedOff, event, policy) : refused('no start is under way');
    case 'startRefused':
      return state.kind === 'starting' ? moved({ kind: 'needsSignIn', failures: state.failures }) : refused('no start is under way');
    case 'crashed': {
      if (state.kind !== 'ready') return refused('the upstream is not up');
      const recovered = event.now - state.upSince >= policy.backoff.resetAfterMs;
      const next = afterFailure(recovered ? 0 : state.failures, true, false, event, policy);
      return recovered && next.ok ? { ...next, recovered: true } : next;
    }
    case 'callRefused':
      // While it starts, restarts or is down, its next start meets the credentials and decides.
      return state.kind === 'ready' || state.kind === 'needsSignIn' ? moved({ kind: 'needsSignIn', failures: state.failures }) : refused('the upstream is not up');
    case 'idleStop':
      // Up for resetAfterMs counts as recovered however it ends (docs/operations.md): a crash or an idle stop.
      return state.kind === 'ready' ? moved({ kind: 'idle', failures: event.now - state.upSince >= policy.backoff.resetAfterMs ? 0 : state.failures }) : refused('the upstream is not up');
    case 'retire':
      return state.kind === 'retrying' ? moved({ kind: 'unretried', failures: state.failures, wasUp: state.wasUp }) : moved(state);
  }
}

/** The `status` others read (inspect, the dashboard, summaries, traces) for `state`. */
export function statusOf(state: Lifecycle): UpstreamStatus {
  switch (state.kind) {
    case 'pending':
    case 'held':
    case 'starting':
      return 'starting';
    case 'retrying':
    case 'backedOff':
    case 'unretried':
      return state.wasUp ? 'down' : 'failed';
    case 'needsSignIn':
      return 'needs_sign_in';
    default:
      return state.kind;
  }
}

/** In how many ms the restart of `state` is due at time `now` (0 when overdue); undefined when none is scheduled. */
export function msUntilRetry(state: Lifecycle, now: number): number | undefined {
  return state.kind === 'retrying' ? Math.max(0, state.retryAt - now) : undefined;
}

/** Whether a call, request or search that needs the upstream starts it: it is idle, or backed off. */
export function startsOnUse(state: Lifecycle): boolean {
  return state.kind === 'idle' || state.kind === 'backedOff';
}

/** After a failed start or a crash: retried on the backoff schedule, backed off (lazy), or left down. */
function afterFailure(failures: number, wasUp: boolean, backedOff: boolean, event: { readonly now: number; readonly jitter: number }, policy: LifecyclePolicy): Transition {
  if (!policy.retry) return moved({ kind: 'unretried', failures, wasUp });
  const attempt = failures + 1;
  if (policy.lazy && attempt >= LAZY_MAX_ATTEMPTS) return { ok: true, state: { kind: 'backedOff', failures: attempt, wasUp }, ...(backedOff ? {} : { backingOff: true as const }) };
  return moved({ kind: 'retrying', failures: attempt, wasUp, retryAt: event.now + backoffDelayMs(attempt, event.jitter, policy.backoff) });
}

function failuresOf(state: Exclude<Lifecycle, { kind: 'closed' }>): number {
  return 'failures' in state ? state.failures : 0;
}

function moved(state: Lifecycle): Transition {
  return { ok: true, state };
}

function refused(reason: string): Transition {
  return { ok: false, refused: reason };
}
