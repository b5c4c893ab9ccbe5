/**
 * The dashboard's activity ring (src/dashboard/activity.ts): bounded, ordered, told to every listener
 * even when one throws, and fed by the trace without changing what the trace records.
 */
import { describe, expect, it } from 'vitest';
import { Activity, teeTrace } from '../../src/dashboard/activity.js';
import type { TraceEvent } from '../../src/trace/events.js';

const called = (name: string): TraceEvent => ({ event: 'tool_called', session: 's', callId: `s:${name}`, name, origin: 'direct', latencyMs: 1, isError: false });

describe('Activity', () => {
  it('keeps the newest items up to its capacity, numbered in order', () => {
    const activity = new Activity(3);
    for (const name of ['a', 'b', 'c', 'd']) activity.add({ kind: 'trace', event: called(name) });
    const recent = activity.recent();
    expect(recent.map((i) => i.seq)).toEqual([2, 3, 4]);
    expect(recent.map((i) => (i.kind === 'trace' && i.event.event === 'tool_called' ? i.event.name : ''))).toEqual(['b', 'c', 'd']);
  });

  it('tells every listener, even past one that throws, until it unsubscribes', () => {
    const activity = new Activity();
    const seen: number[] = [];
    activity.subscribe(() => {
      throw new Error('a page went away');
    });
    const stop = activity.subscribe((item) => seen.push(item.seq));
    activity.add({ kind: 'reload', level: 'info', lines: ['config reloaded'] });
    stop();
    activity.add({ kind: 'reload', level: 'info', lines: ['again'] });
    expect(seen).toEqual([1]);
  });

  it('teeTrace records into the sink and the ring alike', async () => {
    const activity = new Activity();
    const recorded: TraceEvent[] = [];
    const sink = teeTrace({ record: (e) => void recorded.push(e), close: async () => undefined }, activity);
    sink.record(called('x'));
    expect(recorded).toEqual([called('x')]);
    expect(activity.recent()).toHaveLength(1);
    await sink.close();
  });
});
