/**
 * The tools/list answer in its fixed order. In `own` discovery mode: direct tools sorted by name, then
 * tool_search, then call_tool, then promoted tools in promotion order (docs/tools.md). In `client` mode
 * (docs/clients.md, "Clients that defer tools themselves"): direct tools, then every deferred tool, each sorted by name, with no bridge tools, so the
 * client's own tool search does the finding over a list that never changes because of a call. Pure.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { Catalogue } from '../catalog/build.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { ToolsAdvertisedEvent } from '../trace/events.js';
import { callToolTool, toolSearchTool } from './bridgeTools.js';
import { ALWAYS_LOAD, SEARCH_HINT, searchHint, withMeta } from './clientMeta.js';
import type { DiscoveryMode } from './clients.js';

/** What decides the bridge tools and `_meta` hints for one session. */
export interface AdvertiseOptions {
  /** tool_search's full description, or undefined when discovery is off or nothing is deferred. */
  readonly searchDescription: string | undefined;
  readonly maxLimit: number;
  readonly callTool: boolean;
  /** Who finds deferred tools; default `own`. */
  readonly mode?: DiscoveryMode;
  /**
   * Mark the tools toolshelf keeps in view (direct, bridge, promoted) `anthropic/alwaysLoad`, so a
   * client that defers MCP tools keeps them loaded; default true (`discovery.alwaysLoad`).
   */
  readonly alwaysLoad?: boolean;
}

/**
 * A catalogue entry as the client sees it: qualified name, projected description and schema, and the
 * other fields in their wire form (every one passes MCP's `Tool` schema).
 */
export function wireTool(entry: CatalogEntry): Tool {
  return {
    name: entry.qualifiedName,
    description: entry.projected.description,
    inputSchema: entry.projected.inputSchema as Tool['inputSchema'],
    ...(entry.projected.fields as Partial<Tool>),
  } as Tool;
}

/**
 * Builds the list. `promoted` holds qualified names in promotion order; names no longer deferred in
 * the catalogue are skipped, and in `client` mode it is ignored (every deferred tool is listed).
 * Bridge tools appear only in `own` mode and only when something is deferred.
 */
export function advertisedTools(catalogue: Catalogue, promoted: readonly string[], options: AdvertiseOptions): Tool[] {
  const load = options.alwaysLoad === false ? {} : { [ALWAYS_LOAD]: true };
  const tools = catalogue.direct.map((entry) => withMeta(wireTool(entry), load));
  if (options.mode === 'client') {
    // The client decides what to load: an upstream's own alwaysLoad on a tool configured deferred is dropped.
    return [...tools, ...catalogue.deferred.map((entry) => withMeta(wireTool(entry), { [ALWAYS_LOAD]: undefined, ...hint(entry) }))];
  }
  const anyDeferred = catalogue.deferred.length > 0;
  if (anyDeferred && options.searchDescription !== undefined) tools.push(withMeta(toolSearchTool(options.searchDescription, options.maxLimit), load));
  if (anyDeferred && options.callTool) tools.push(withMeta(callToolTool(), load));
  for (const name of promoted) {
    const entry = catalogue.get(name);
    // The model asked for a promoted tool: it stays loaded like a direct one (docs/tools.md).
    if (entry?.exposure === 'deferred') tools.push(withMeta(wireTool(entry), { ...load, ...hint(entry) }));
  }
  return tools;
}

/** The searchHint key for an entry with keywords; nothing otherwise (an upstream's own hint stays). */
function hint(entry: CatalogEntry): Record<string, string> {
  const text = searchHint(entry.keywords);
  return text === undefined ? {} : { [SEARCH_HINT]: text };
}

/**
 * The `tools_advertised` trace event (docs/cli.md) for `tools` answered to `session` of `era`: counts
 * from `catalogue`, `promoted` of them still deferred, and the bytes and estimated tokens that
 * `measure` gives for the whole `{ tools }` result. Carries no client data beyond the session id.
 */
export function advertisedEvent(
  tools: readonly Tool[],
  catalogue: Catalogue,
  promoted: readonly string[],
  who: { readonly session: string; readonly era: ToolsAdvertisedEvent['era'] },
  measure: (value: unknown) => { bytes: number; tokens: number },
): ToolsAdvertisedEvent {
  const size = measure({ tools });
  return {
    event: 'tools_advertised',
    session: who.session,
    era: who.era,
    direct: catalogue.direct.length,
    deferred: catalogue.deferred.length,
    promoted: promoted.filter((n) => catalogue.get(n)?.exposure === 'deferred').length,
    schemaBytes: size.bytes,
    tokens: size.tokens,
  };
}
