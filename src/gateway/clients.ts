/**
 * What toolshelf knows about MCP clients by `clientInfo.name`: whether they act on
 * `notifications/tools/list_changed`, whether they cut tool descriptions, and whether they defer MCP
 * tools behind a tool search of their own. Source: docs/tools.md (call_tool bridge; Claude Code cuts
 * descriptions at 2,048 characters), docs/clients.md (clients that search tools themselves).
 */

/** Clients whose model cannot see promoted tools because they ignore list_changed (docs/tools.md). */
export const IGNORES_LIST_CHANGED: readonly string[] = ['claude-ai', 'claude.ai', 'cursor-vscode', 'Cursor', 'codex-mcp-client', 'Codex'];

/** Clients known to re-list on list_changed: `auto` leaves call_tool off for them. */
export const HONOURS_LIST_CHANGED: readonly string[] = ['claude-code', 'Visual Studio Code', 'Visual Studio Code - Insiders', 'mcp-inspector'];

/** Clients that cut a tool description, with their limit in characters. */
export const DESCRIPTION_LIMITS: Readonly<Record<string, number>> = { 'claude-code': 2048 };

/**
 * Clients that keep every MCP tool's schema out of the model's context and let the model find it with
 * their own tool search, whatever their settings. Behind them toolshelf's `tool_search`
 * and `call_tool` would be deferred too and the model would search twice before a call, so
 * `discovery.mode: "auto"` hands discovery to them.
 * - `codex-mcp-client` / `Codex`: Codex defers MCP tools behind its `tool_search` (BM25 over tool
 *   metadata; `tool_search_always_defer_mcp_tools`, now always on) and ignores list_changed.
 * Not here:
 * - `claude-code`: its tool search is on by default, but users turn it off or fall back to loading
 *   every tool up front (`ENABLE_TOOL_SEARCH=false`; `auto` when they fit in 10% of the context; Vertex
 *   AI or a non-first-party base URL), and then `client` mode would load every tool. `own` stays small
 *   either way, and `anthropic/alwaysLoad` keeps tool_search and the tools it finds loaded.
 * - `github-copilot-developer` (Copilot CLI): defers only past ~30 tools and only for some models.
 * - `Visual Studio Code`: groups tools into virtual tools above a threshold; it has no tool search.
 * - `claude-ai` (Claude Desktop), `cursor-vscode` (Cursor): do not defer MCP tools.
 */
export const SEARCHES_MCP_TOOLS: readonly string[] = ['codex-mcp-client', 'Codex'];

/** Who finds deferred tools for a client: toolshelf's manifest and search, or the client's own search. */
export type DiscoveryMode = 'own' | 'client';

/** The `discovery.mode` setting: a fixed mode, or `auto` to decide per client. */
export type DiscoveryModeSetting = 'auto' | DiscoveryMode;

/**
 * Whether to advertise `call_tool` for a client. `auto`: off only for clients known to honour
 * list_changed; on for those known to ignore it and for unknown or unnamed clients.
 */
export function bridgeEnabled(setting: 'auto' | 'always' | 'never', clientName: string | undefined): boolean {
  if (setting !== 'auto') return setting === 'always';
  return clientName === undefined || !HONOURS_LIST_CHANGED.includes(clientName);
}

/**
 * The discovery mode for a client. `auto`: `client` for clients in
 * {@link SEARCHES_MCP_TOOLS}, `own` for every other, unknown or unnamed client.
 */
export function discoveryMode(setting: DiscoveryModeSetting, clientName: string | undefined): DiscoveryMode {
  if (setting !== 'auto') return setting;
  return clientName !== undefined && SEARCHES_MCP_TOOLS.includes(clientName) ? 'client' : 'own';
}

/** The description limit in characters for a client, if it has one. */
export function descriptionLimit(clientName: string | undefined): number | undefined {
  return clientName === undefined ? undefined : DESCRIPTION_LIMITS[clientName];
}
