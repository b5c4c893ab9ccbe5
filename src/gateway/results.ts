/**
 * Tool results the gateway writes itself: unknown names, bad arguments, upstream failures (tool_search's
 * answer is `searchAnswer.ts`). Every one is an `isError` result the model can act on, or a plain success. Pure.
 * Source: docs/tools.md; MCP spec, Server features › Tools › Error handling.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import type { CatalogEntry } from '../catalog/types.js';
import type { CallOutcome } from '../upstream/types.js';
import type { UpstreamDown } from './types.js';
import { TOOL_SEARCH } from './bridgeTools.js';
import { isTextBlocks } from '../lib/textContent.js';
import { printableLine } from '../lib/printable.js';

/**
 * Longest upstream text (an error's message, a failure reason) quoted in a result, in UTF-16 code units.
 * Quoted on one line, cleaned: no line of it can pose as a `system:` or user line (docs/security.md).
 */
export const MAX_UPSTREAM_TEXT_CHARS = 2000;

/** Upstream text as a result quotes it: one cleaned line, capped ({@link MAX_UPSTREAM_TEXT_CHARS}). */
export function quoted(text: string): string {
  return printableLine(text, MAX_UPSTREAM_TEXT_CHARS);
}

/** A text result with `isError: true`. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * The answer for a name that is neither callable nor a bridge tool (docs/tools.md): why, when the name
 * carries the prefix of an upstream that is not up (its tools are then missing from the catalogue:
 * that upstream's status and last error), up to three close matches, and a pointer to tool_search
 * when anything is deferred. Never lists every name.
 */
export function unknownToolResult(name: string, suggestions: readonly string[], searchAvailable: boolean, down?: UpstreamDown): CallToolResult {
  const lines = [`Unknown tool "${name}".`];
  if (down) lines.push(`Its upstream server "${down.server}" is not up (${down.status}${down.reason ? `: ${quoted(down.reason)}` : ''}), so its tools are not listed.`);
  if (suggestions.length > 0) lines.push(`Did you mean: ${suggestions.join(', ')}?`);
  if (searchAvailable) lines.push(`Call ${TOOL_SEARCH} with what you want to do to find the right tool.`);
  return errorResult(lines.join(' '));
}

/**
 * The answer to a call that failed after its upstream asked the client for what the client did not
 * declare (`capabilities`: sampling, elicitation), the same in both eras: an `isError` naming them, so
 * the model can tell the user rather than retry. Source: MCP spec, Client features.
 */
export function lackedResult(entry: CatalogEntry, capabilities: readonly string[]): CallToolResult {
  const names = capabilities.join(' and ');
  return errorResult(
    `Tool "${entry.qualifiedName}" needs the client's ${names} capability: upstream server "${entry.server}" asked for ${names} during the call, and this client did not declare ${capabilities.length > 1 ? 'them' : 'it'}, so the call failed. Use a client that supports ${names}, or another tool.`,
  );
}

/**
 * Turns an upstream outcome into the client's result: verbatim on success, an explained `isError`
 * otherwise, the upstream's own words in it {@link quoted} (the connection has already masked the
 * credentials it could echo, `upstream/connection.ts`).
 */
export function resultFromOutcome(outcome: CallOutcome, entry: CatalogEntry): { result: CallToolResult; failure?: string } {
  const who = `upstream server "${entry.server}" (tool "${entry.upstreamName}")`;
  switch (outcome.kind) {
    case 'ok':
      return checkedResult(outcome.result, who);
    case 'timeout':
      return { result: errorResult(`${who} did not answer within ${formatMs(outcome.ms)}; the call was cancelled.`), failure: 'timeout' };
    case 'unavailable': {
      const retry = outcome.retryInMs === undefined ? '' : outcome.retryInMs <= 0 ? ' It is being retried now.' : ` It will be retried in about ${Math.ceil(outcome.retryInMs / 1000)} s.`;
      return { result: errorResult(`${who} is unavailable: ${quoted(outcome.reason)}.${retry}`), failure: 'unavailable' };
    }
    case 'cancelled':
      return { result: errorResult(`The call to ${who} was cancelled.`), failure: 'cancelled' };
    case 'upstream_error':
      if (outcome.notSent) return { result: errorResult(`The call to ${who} was not sent: ${quoted(outcome.message)}`), failure: 'not_sent' };
      return { result: errorResult(`${who} failed: ${quoted(outcome.message)}`), failure: 'upstream_error' };
  }
}

/** `850 ms`, `12 s`. */
function formatMs(ms: number): string {
  return ms < 10_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/**
 * A well-formed upstream result passes through untouched (every content type, structuredContent,
 * isError, _meta). One that is not a CallToolResult becomes an `isError` saying so, so a client's
 * own validation never fails on it.
 */
function checkedResult(result: Record<string, unknown>, who: string): { result: CallToolResult; failure?: string } {
  if (isPlainTextResult(result)) return { result: result as CallToolResult };
  const parsed = CallToolResultSchema.safeParse(result);
  if (parsed.success) return { result: result as CallToolResult };
  return { result: errorResult(`${who} returned a malformed result: ${parsed.error.issues[0]?.message ?? 'invalid'}`), failure: 'malformed_result' };
}

/**
 * Whether `result` is the commonest CallToolResult, text blocks and an optional `isError` and nothing
 * else, which the schema certainly accepts: such results skip its parse on the hot path
 * (docs/benchmarks.md, proxy overhead per call). Anything else is not known here and takes the schema.
 */
function isPlainTextResult(result: Record<string, unknown>): boolean {
  for (const key in result) if (key !== 'content' && key !== 'isError') return false;
  return isTextBlocks(result.content) && (result.isError === undefined || typeof result.isError === 'boolean');
}

/**
 * `result`, or an `isError` when its compact JSON is over `limitBytes` (a client that drops the
 * connection on a larger message, e.g. SDK stdio clients at 10 MiB). No limit:
 * `result` unchanged.
 */
export function fitResult(result: CallToolResult, limitBytes: number | undefined, measure: (value: unknown) => { bytes: number }): CallToolResult {
  if (limitBytes === undefined || textResultBound(result) <= limitBytes) return result;
  const { bytes } = measure(result);
  if (bytes <= limitBytes) return result;
  const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;
  return errorResult(`The tool's result is ${mib(bytes)}, more than this client accepts over stdio (${mib(limitBytes)}). Ask for less (a range, a page, a filter).`);
}

/** Most bytes one UTF-16 code unit of a JSON string can take: a control character escaped as `\u001f`. */
const MAX_BYTES_PER_CHAR = 6;
/** Room for one content block's own JSON (`{"type":"text","text":""}`, comma) and the result's (`{"content":[]}`, `"isError":false`), in bytes. */
const BLOCK_OVERHEAD_BYTES = 32;
const RESULT_OVERHEAD_BYTES = 64;

/**
 * An upper bound in bytes on the compact JSON of a result that holds text blocks only (and
 * `isError`), found without serialising it: results far below a client's limit, nearly all, skip
 * the measure. Infinity for any other result, which is then measured. Pure.
 */
export function textResultBound(result: CallToolResult): number {
  if (!isPlainTextResult(result as Record<string, unknown>)) return Infinity;
  let bound = RESULT_OVERHEAD_BYTES;
  for (const block of result.content as { text: string }[]) bound += BLOCK_OVERHEAD_BYTES + MAX_BYTES_PER_CHAR * block.text.length;
  return bound;
}
