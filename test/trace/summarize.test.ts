import { describe, expect, it } from 'vitest';
import type { TraceEvent, TraceSink } from '../../src/trace/events.js';
import { createLogger, type LogLevel } from '../../src/trace/log.js';
import { withDebugSummary } from '../../src/trace/summarize.js';

const call: TraceEvent = { event: 'tool_called', session: 's1', callId: 's1:1', name: 'up__echo', origin: 'direct', latencyMs: 1.5, isError: false };

function sinkAt(level: LogLevel): { sink: TraceSink; inner: TraceSink; lines: string[]; recorded: TraceEvent[] } {
  const lines: string[] = [];
  const recorded: TraceEvent[] = [];
  const inner: TraceSink = { record: (e) => void recorded.push(e), close: () => Promise.resolve() };
  return { sink: withDebugSummary(inner, createLogger(level, (l) => lines.push(l))), inner, lines, recorded };
}

describe('withDebugSummary', () => {
  it('at debug level logs one line per event and passes the event on', () => {
    const { sink, lines, recorded } = sinkAt('debug');
    sink.record(call);
    expect(lines).toEqual(['toolshelf: debug: call s1:1 up__echo [direct] ok in 1.5 ms\n']);
    expect(recorded).toEqual([call]);
  });

  it('above debug level is the inner sink itself: no line is built per event', () => {
    for (const level of ['info', 'warn', 'error'] as const) {
      const { sink, inner, lines, recorded } = sinkAt(level);
      expect(sink).toBe(inner);
      sink.record(call);
      expect(lines).toEqual([]);
      expect(recorded).toEqual([call]);
    }
  });
});
