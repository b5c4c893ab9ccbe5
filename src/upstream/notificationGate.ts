/**
 * class NotificationGate: bounds what one upstream's notifications cost the clients. Bursts of
 * resources/prompts `list_changed` are coalesced into one per {@link COALESCE_MS}; every other
 * notification (log messages, resource updates) passes at most {@link MAX_PER_SECOND} a second, and
 * while some are dropped one log message a second says how many. Tool `list_changed` never comes
 * here (the connection re-lists instead). Timers use the global clock, so tests drive them with
 * fake timers. Source: `test/upstream/notificationGate.test.ts` (100,000 `notifications/message` forwarded: gateway RSS
 * ~500 MB, other calls stalled); MCP spec, Utilities › Logging (servers should rate-limit messages).
 */

import type { RequestOrigin } from './types.js';

/** A notification as the SDK delivers it. */
export interface UpstreamNotification {
  readonly method: string;
  readonly params?: Record<string, unknown>;
  /** The request it was sent during, when that is known and its client takes it alone (a log message). */
  readonly origin?: RequestOrigin;
}

/** Notifications passed per second and upstream; the rest of that second's are dropped. */
export const MAX_PER_SECOND = 50;
/** Window in ms within which repeated list_changed notifications are delivered once. */
export const COALESCE_MS = 100;

const WINDOW_MS = 1000;
const COALESCED = new Set(['notifications/resources/list_changed', 'notifications/prompts/list_changed']);

/** Rate limit and coalescing for the notifications of one upstream, named `key` in drop reports. */
export class NotificationGate {
  private windowStart = Number.NEGATIVE_INFINITY;
  private passed = 0;
  private droppedLogs = 0;
  private droppedOther = 0;
  private reportTimer: NodeJS.Timeout | undefined;
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly key: string,
    private readonly deliver: (notification: UpstreamNotification) => void,
  ) {}

  /** Delivers `notification` now, once at the end of its coalescing window, or drops it (counted). */
  push(notification: UpstreamNotification): void {
    if (COALESCED.has(notification.method)) return this.coalesce(notification.method);
    const now = Date.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.passed = 0;
    }
    if (this.passed < MAX_PER_SECOND) {
      this.passed += 1;
      return this.deliver(notification);
    }
    if (notification.method === 'notifications/message') this.droppedLogs += 1;
    else this.droppedOther += 1;
    this.reportTimer ??= unref(setTimeout(() => this.report(), this.windowStart + WINDOW_MS - now));
  }

  /** Stops every timer; nothing pending is delivered. */
  close(): void {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private coalesce(method: string): void {
    if (this.pending.has(method)) return;
    const timer = setTimeout(() => {
      this.pending.delete(method);
      this.deliver({ method });
    }, COALESCE_MS);
    this.pending.set(method, unref(timer));
  }

  /** One log message for the window's drops, e.g. `1234 log messages from "o" dropped (more than 50 a second)`. */
  private report(): void {
    this.reportTimer = undefined;
    const total = this.droppedLogs + this.droppedOther;
    const what = this.droppedOther === 0 ? 'log messages' : 'notifications';
    this.droppedLogs = 0;
    this.droppedOther = 0;
    const data = `${total} ${what} from "${this.key}" dropped (more than ${MAX_PER_SECOND} a second)`;
    this.deliver({ method: 'notifications/message', params: { level: 'warning', data } });
  }
}

function unref(timer: NodeJS.Timeout): NodeJS.Timeout {
  timer.unref();
  return timer;
}
