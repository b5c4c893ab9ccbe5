/**
 * `_meta` keys that tell a client which advertised tools to keep loaded and how to find the others,
 * for clients that defer MCP tools behind their own tool search. Pure. Source: docs/clients.md; the keys are
 * the ones Claude Code reads from a tool's `_meta` (`anthropic/alwaysLoad`: never deferred;
 * `anthropic/searchHint`: extra words its ToolSearch matches, whitespace collapsed).
 */
import type { Tool } from '@modelcontextprotocol/server';

export const ALWAYS_LOAD = 'anthropic/alwaysLoad';
export const SEARCH_HINT = 'anthropic/searchHint';

/**
 * The search hint for a tool's trigger words (`keywords` in config), or undefined when it has none.
 * Words keep the manifest's order (shorter first, then alphabetical: docs/tools.md) and are joined by
 * ", " so multi-word keywords stay readable as phrases; the same keywords give the same bytes.
 */
export function searchHint(keywords: readonly string[]): string | undefined {
  return keywords.length > 0 ? keywords.join(', ') : undefined;
}

/**
 * `tool` with `_meta` keys set over the ones it already carries (an upstream's own `_meta` is kept).
 * A key whose value is `undefined` is removed; `_meta` is left out when nothing remains.
 */
export function withMeta(tool: Tool, keys: Readonly<Record<string, unknown>>): Tool {
  const meta: Record<string, unknown> = { ...(tool._meta ?? {}) };
  for (const [key, value] of Object.entries(keys)) {
    if (value === undefined) delete meta[key];
    else meta[key] = value;
  }
  const { _meta: _old, ...rest } = tool;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
