/**
 * Definitions of toolshelf's own tools, `tool_search` and `call_tool`, and the parsing of their
 * arguments. Source: docs/tools.md.
 */
import type { Tool } from '@modelcontextprotocol/server';

export const TOOL_SEARCH = 'tool_search';
export const CALL_TOOL = 'call_tool';

/** tool_search's declaration; `description` carries the manifest (docs/tools.md). */
export function toolSearchTool(description: string, maxLimit: number): Tool {
  return {
    name: TOOL_SEARCH,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, in a few words, or a tool name from the index.' },
        limit: { type: 'integer', minimum: 1, maximum: maxLimit, description: 'How many tools to return.' },
      },
      required: ['query'],
    },
  };
}

/**
 * call_tool's declaration: the bridge for clients that ignore list_changed (docs/tools.md). Annotated as
 * the riskiest tool it can run (destructive, open world, not read-only), so a client that decides
 * per tool treats every call through it that way (docs/security.md "Risky calls").
 */
export function callToolTool(): Tool {
  return {
    name: CALL_TOOL,
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    description:
      'Run a tool that is not in your tool list yet: one returned by tool_search or named in its index. ' +
      'Pass its exact name and its arguments.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The exact tool name, e.g. from tool_search.' },
        arguments: { type: 'object', description: "The tool's arguments, matching its parameters." },
      },
      required: ['name'],
    },
  };
}

/**
 * Longest query ranked, in characters; the rest is ignored. Ranking time grows with the query, and a
 * megabyte query held every session for seconds.
 */
export const MAX_QUERY_CHARS = 1000;

/** Parsed tool_search arguments, or a message for the model. Limit clamped to 1..maxLimit (docs/tools.md). */
export function parseSearchArgs(
  args: Record<string, unknown>,
  defaultLimit: number,
  maxLimit: number,
): { query: string; limit: number } | { error: string } {
  const query = args.query;
  if (typeof query !== 'string' || query.trim() === '') {
    return { error: 'tool_search needs "query": a non-empty string saying what you want to do.' };
  }
  // Models sometimes send numbers as strings ("3"); those are read as the number they spell.
  const raw = typeof args.limit === 'string' && /^\s*\d+\s*$/.test(args.limit) ? Number(args.limit) : args.limit;
  if (raw !== undefined && (typeof raw !== 'number' || !Number.isFinite(raw))) {
    return { error: `tool_search "limit" must be an integer from 1 to ${maxLimit}.` };
  }
  const limit = raw === undefined ? defaultLimit : Math.min(maxLimit, Math.max(1, Math.trunc(raw)));
  return { query: query.trim().slice(0, MAX_QUERY_CHARS), limit };
}

/** Parsed call_tool arguments, or a message for the model. Missing `arguments` count as `{}`. */
export function parseCallToolArgs(args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } | { error: string } {
  if (typeof args.name !== 'string' || args.name === '') {
    return { error: 'call_tool needs "name": the exact name of the tool to run (find it with tool_search).' };
  }
  const inner = args.arguments ?? {};
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
    return { error: 'call_tool "arguments" must be an object of the tool\'s parameters.' };
  }
  return { name: args.name, arguments: inner as Record<string, unknown> };
}
