/**
 * What toolshelf knows about MCP clients by `clientInfo.name`: whether they act on
 * `notifications/tools/list_changed`, and whether they cut tool descriptions.
 * Source: DESIGN §5 (call_tool bridge), §6 (Claude Code cuts descriptions at 2,048 characters).
 */

/** Clients whose model cannot see promoted tools because they ignore list_changed (DESIGN §5). */
export const IGNORES_LIST_CHANGED: readonly string[] = ['claude-ai', 'claude.ai', 'cursor-vscode', 'Cursor', 'codex-mcp-client', 'Codex'];

/** Clients known to re-list on list_changed: `auto` leaves call_tool off for them. */
export const HONOURS_LIST_CHANGED: readonly string[] = ['claude-code', 'Visual Studio Code', 'Visual Studio Code - Insiders', 'mcp-inspector'];

/** Clients that cut a tool description, with their limit in characters. */
export const DESCRIPTION_LIMITS: Readonly<Record<string, number>> = { 'claude-code': 2048 };

/**
 * Whether to advertise `call_tool` for a client. `auto`: off only for clients known to honour
 * list_changed; on for those known to ignore it and for unknown or unnamed clients.
 */
export function bridgeEnabled(setting: 'auto' | 'always' | 'never', clientName: string | undefined): boolean {
  if (setting !== 'auto') return setting === 'always';
  return clientName === undefined || !HONOURS_LIST_CHANGED.includes(clientName);
}

/** The description limit in characters for a client, if it has one. */
export function descriptionLimit(clientName: string | undefined): number | undefined {
  return clientName === undefined ? undefined : DESCRIPTION_LIMITS[clientName];
}
