/**
 * What the dashboard shows as it happens: the gateway's trace events (calls with their origin,
 * searches with their top hits, each tools/list served) and config reloads, kept in memory as a
 * bounded ring and pushed to every open page. Nothing here is written to disk: the JSONL trace
 * (`--trace FILE`) stays the record; this is the live view of the last {@link ACTIVITY_CAPACITY}
 * items. Source: docs/dashboard.md.
 */
import type { TraceEvent, TraceSink } from '../trace/events.js';

/** Items the ring keeps; older ones are dropped first. A page loads at most this many at once. */
export const ACTIVITY_CAPACITY = 500;

/** One thing that happened, stamped with its time (ISO 8601) and a sequence number that only grows. */
export type ActivityItem =
  | { readonly seq: number; readonly at: string; readonly kind: 'trace'; readonly event: TraceEvent }
  | { readonly seq: number; readonly at: string; readonly kind: 'reload'; readonly level: 'info' | 'warn' | 'error'; readonly lines: readonly string[] };

/** What {@link Activity.add} takes: an item without its stamp. */
export type ActivityInput =
  | { readonly kind: 'trace'; readonly event: TraceEvent }
  | { readonly kind: 'reload'; readonly level: 'info' | 'warn' | 'error'; readonly lines: readonly string[] };

/** The ring of recent activity and the pages listening to it. */
export class Activity {
  private readonly items: ActivityItem[] = [];
  private readonly listeners = new Set<(item: ActivityItem) => void>();
  private seq = 0;

  constructor(private readonly capacity = ACTIVITY_CAPACITY) {}

  /** Stamps and keeps `input`, dropping the oldest item past capacity, and tells every listener. */
  add(input: ActivityInput): ActivityItem {
    this.seq += 1;
    const item = { ...input, seq: this.seq, at: new Date().toISOString() } as ActivityItem;
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
    for (const listener of this.listeners) {
      try {
        listener(item);
      } catch {
        // One page that failed to take an item must not keep it from the others, or from the trace.
      }
    }
    return item;
  }

  /** The kept items, oldest first. */
  recent(): readonly ActivityItem[] {
    return [...this.items];
  }

  /** Calls `listener` with each new item until the returned function is called. */
  subscribe(listener: (item: ActivityItem) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}

/** A trace sink that records into `sink` and into `activity` alike; `record` still never throws. */
export function teeTrace(sink: TraceSink, activity: Activity): TraceSink {
  return {
    record(event) {
      sink.record(event);
      activity.add({ kind: 'trace', event });
    },
    close: () => sink.close(),
  };
}
