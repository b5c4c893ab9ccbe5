/**
 * A trace sink that also summarises each event on stderr at debug level, then passes it on.
 * Source: docs/cli.md (`--trace`; the summary goes to stderr at debug level).
 */
import type { TraceEvent, TraceSink } from './events.js';
import type { Logger } from './log.js';

/** One short line for an event. Pure. */
export function describeEvent(event: TraceEvent): string {
  switch (event.event) {
    case 'tools_advertised':
      return `tools/list for ${event.session} (${event.era}): ${event.direct} direct, ${event.promoted} promoted, ${event.deferred} deferred, ${event.schemaBytes} B (~${event.tokens} tokens)`;
    case 'tool_searched':
      return `tool_search ${event.callId}: ${event.matched.length} match(es) by ${event.ranker}${event.fallback ? ` (fallback: ${event.fallback})` : ''} in ${event.latencyMs} ms`;
    case 'tool_called':
      return `call ${event.callId} ${event.name} [${event.origin}] ${event.isError ? `error${event.failure ? ` (${event.failure})` : ''}` : 'ok'} in ${event.latencyMs} ms`;
    case 'tool_held':
      return `${event.held ? 'held' : 'warned'}: ${event.server}${event.tool !== undefined ? ` tool ${event.tool}` : ' instructions'} (${event.reason})`;
  }
}

/**
 * Wraps `inner` so every event is also logged at debug level; `inner` itself when the logger says it
 * drops debug lines (no line is built per call for nothing).
 */
export function withDebugSummary(inner: TraceSink, logger: Logger): TraceSink {
  if (logger.level !== undefined && logger.level !== 'debug') return inner;
  return {
    record(event) {
      logger.debug(describeEvent(event));
      inner.record(event);
    },
    close: () => inner.close(),
  };
}
