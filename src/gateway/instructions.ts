/**
 * toolshelf's own `instructions` (initialize result): how the shelf works, then each upstream's
 * initialize instructions so a server's usage notes are not lost behind the gateway — under a
 * heading naming the server, in server-key order, each clipped to its byte budget at a sentence end.
 * Pure. Source: docs/tools.md; MCP spec, Lifecycle › Initialization (`instructions`).
 */
import type { ExposureCounts } from '../catalog/build.js';
import { clipWords } from '../discovery/sentences.js';
import { textBytes } from '../schema/measure.js';

/** What toolshelf itself tells every client. */
export const SHELF_INSTRUCTIONS =
  'Tools not in your list are on the shelf: tool_search finds them by what you want to do, and the ones it returns become callable by name.';

/**
 * {@link SHELF_INSTRUCTIONS} for a legacy client whose list has call_tool: clients that ignore
 * list_changed (Claude Desktop, Cursor) never list a found tool, so their model can run it only
 * through call_tool, which the opening did not name.
 */
export const SHELF_INSTRUCTIONS_BRIDGE =
  'Tools not in your list are on the shelf: tool_search finds them by what you want to do; run one with call_tool, or by its name once it is in your list.';

/** `text` with its opening `from` replaced by `to`; unchanged when it does not open with `from`. */
export function reopen(text: string, from: string, to: string): string {
  return text.startsWith(from) ? to + text.slice(from.length) : text;
}

/**
 * The instructions for one client: `text` as is when its tool list has `tool_search` (`hasSearch`);
 * else `text` without its opening sentence `opening`, which tells of a tool_search that client does
 * not have (discovery in `client` mode, discovery off, nothing deferred), upstreams' sections kept;
 * undefined when nothing is left. Codex was told to use tool_search and got "Unknown tool".
 */
export function instructionsForList(text: string, opening: string, hasSearch: boolean): string | undefined {
  if (hasSearch || !text.startsWith(opening)) return text;
  const rest = text.slice(opening.length).trimStart();
  return rest === '' ? undefined : rest;
}

/** One upstream's instructions and its budget in UTF-8 bytes. */
export interface UpstreamInstructions {
  readonly server: string;
  readonly text: string;
  readonly maxBytes: number;
}

/**
 * The upstreams whose instructions are passed on, each with its budget (`budgetOf`, in bytes):
 * those with non-empty `texts`, except a server whose every tool is hidden (it is on no shelf the
 * model can reach; docs/tools.md, "Instructions"). A server with no tools at all (resources or prompts only) counts.
 */
export function upstreamInstructions(
  texts: ReadonlyMap<string, string>,
  counts: ReadonlyMap<string, ExposureCounts>,
  budgetOf: (server: string) => number,
  nameOf: (server: string, tool: string) => string | undefined = () => undefined,
): UpstreamInstructions[] {
  const hiddenOnly = (server: string): boolean => {
    const count = counts.get(server);
    return count !== undefined && count.hidden > 0 && count.direct + count.deferred === 0;
  };
  return [...texts]
    .filter(([server, text]) => /\S/.test(text) && !hiddenOnly(server))
    .map(([server, text]) => {
      const maxBytes = budgetOf(server);
      return { server, text: qualifyToolNames(text.trimStart(), (tool) => nameOf(server, tool), maxBytes), maxBytes };
    });
}

/**
 * `text` (one upstream's instructions) with its tools' names as the client calls them: `nameOf` gives
 * the qualified name of an upstream tool name (undefined: not a tool, or hidden). A name is replaced
 * where it stands as a whole token, and only if it is backquoted or holds `_`, `-` or `.`, so a tool
 * named like a plain word ("search") leaves the prose alone. server-everything's "Use
 * `get-roots-list`" named a tool the client knows as `everything__get-roots-list`.
 * With `maxBytes` (the budget the text is then clipped to by {@link clipToSentence}), the text ends
 * once it has passed that many UTF-8 bytes by a character at a non-space, the most clipping reads:
 * otherwise each session and each 2026-07-28 request read a megabyte text whole (1 s a build at
 * 5 MB).
 */
export function qualifyToolNames(text: string, nameOf: (tool: string) => string | undefined, maxBytes = Infinity): string {
  // One character past the budget (4 bytes at most) shows clipping where the budget ends and that the text goes on.
  const enough = maxBytes + 4;
  let out = '';
  let bytes = 0;
  let at = 0;
  const add = (piece: string): boolean => {
    out += piece;
    if (Number.isFinite(maxBytes)) bytes += textBytes(piece);
    return bytes > enough && !/\s$/.test(out);
  };
  // A token may start or end with `_` (a tool named `_internal`), not with `-` or `.` (a flag, a sentence end).
  for (const match of text.matchAll(/(`?)([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z0-9_])\1/g)) {
    const [whole, tick, token] = match as unknown as [string, string, string];
    if (add(text.slice(at, match.index))) return out;
    at = match.index + whole.length;
    const qualified = nameOf(token);
    if (add(qualified === undefined || (tick === '' && !/[_.-]/.test(token)) ? whole : `${tick}${qualified}${tick}`)) return out;
  }
  add(text.slice(at));
  return out;
}

/** After each server's heading: whose words the quoted lines under it are. */
export const QUOTED_NOTE = "(quoted: the server's words, not toolshelf's or the user's)";

/**
 * `text` (one upstream's clean instructions) fenced: every line starts with `> ` (`>` alone for a blank
 * one; any line break counts), so no line of it starts where toolshelf's headings start; a line that opens with `#` (a
 * heading) or `>` (a quote within the quote) has that character escaped with `\`. Deterministic: the
 * same text gives the same bytes (prompt caches). Source: docs/security.md ("Clean text and fenced
 * instructions").
 */
export function fenceQuote(text: string): string {
  return text
    .split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/)
    .map((line) => {
      const escaped = line.replace(/^(\s*)([#>])/, '$1\\$2');
      return escaped === '' ? '>' : `> ${escaped}`;
    })
    .join('\n');
}

/**
 * {@link SHELF_INSTRUCTIONS} followed, for each upstream with non-empty instructions and a budget
 * above 0, sorted by server key (code units, so every process gives the same bytes), by
 * `## Instructions from the "<server>" server` and {@link QUOTED_NOTE}, then its text clipped by
 * {@link clipToSentence} and fenced by {@link fenceQuote}. Only toolshelf's own lines start
 * without `>`: no server's text can pose as another server's section or as toolshelf's.
 */
export function gatewayInstructions(upstreams: readonly UpstreamInstructions[]): string {
  const sections = [...upstreams]
    .sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0))
    .map((u) => ({ server: u.server, text: clipToSentence(u.text.trim(), u.maxBytes) }))
    .filter((u) => u.text !== '')
    .map((u) => `## Instructions from the "${u.server}" server ${QUOTED_NOTE}\n\n${fenceQuote(u.text)}`);
  return [SHELF_INSTRUCTIONS, ...sections].join('\n\n');
}

/** Where a clip may end: after `.`/`!`/`?` before whitespace, after a CJK full stop, or at a line end. */
const BOUNDARY = /[.!?](?=\s|$)|[。！？]|\n/gu;

/**
 * `text` whole when it fits in `maxBytes` UTF-8 bytes; else its longest prefix that ends at a
 * sentence end or a line end and fits (trailing space dropped); else, with no such end in reach,
 * the first whole words that fit, ending in `…`. Empty for `maxBytes` 0. Linear in `maxBytes`.
 */
export function clipToSentence(text: string, maxBytes: number): string {
  if (textBytes(text) <= maxBytes) return text;
  const head = prefixWithin(text, maxBytes);
  let end = 0;
  for (const match of text.matchAll(BOUNDARY)) {
    const after = match.index + match[0].length;
    if (after > head.length) break;
    end = after;
  }
  const clipped = head.slice(0, end).trimEnd();
  if (clipped !== '') return clipped;
  // `…` (3 bytes) stands for at least one dropped code point (1 byte or more): two fewer keeps it within budget.
  const room = [...head].length - 2;
  return room > 1 ? clipWords(text, room) : '';
}

/** The longest prefix of `text` (whole code points) within `maxBytes` UTF-8 bytes. */
function prefixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let length = 0;
  for (const char of text) {
    bytes += textBytes(char);
    if (bytes > maxBytes) break;
    length += char.length;
  }
  return text.slice(0, length);
}
