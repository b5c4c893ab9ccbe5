/**
 * The idle stop of a lazy upstream: the calls and requests under way are
 * counted, and once none is and the upstream has been unused for its idle time, it is stopped (it
 * starts again on first use). Holds the count and the timer only; the connection says when it may
 * stop and does the stopping.
 */

/** What the idle stop asks of its connection. */
export interface IdleStopHost {
  /** The idle time in ms before a stop; 0 or less never stops (an eager upstream, or `idleStopMs: 0`). */
  idleMs(): number;
  /** Whether the upstream is up and could be stopped now. */
  ready(): boolean;
  /** Stops the upstream; called only when {@link IdleStopHost.ready} and nothing is in use. */
  stop(): void;
}

/** Counts the uses of one upstream and stops it once it was left unused for its idle time. */
export class IdleStop {
  private inUse = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Told once nothing is in use ({@link unused}). */
  private waiters: (() => void)[] = [];

  constructor(private readonly host: IdleStopHost) {}

  /** A call or request begins: no stop while it runs. */
  begin(): void {
    this.inUse += 1;
    clearTimeout(this.timer);
  }

  /** A call or request ended: idle time counts from now. */
  end(): void {
    this.inUse -= 1;
    this.touch();
    if (this.inUse === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves once no call or request is under way (at once when none is). */
  unused(): Promise<void> {
    return this.inUse === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** (Re)starts the idle time, when nothing is in use and the upstream is up. */
  touch(): void {
    clearTimeout(this.timer);
    const idleMs = this.host.idleMs();
    if (idleMs <= 0 || this.inUse > 0 || !this.host.ready()) return;
    this.timer = setTimeout(() => {
      if (this.inUse === 0 && this.host.ready()) this.host.stop();
    }, idleMs);
    this.timer.unref();
  }

  /** No stop will come (the connection closed). */
  close(): void {
    clearTimeout(this.timer);
  }
}
