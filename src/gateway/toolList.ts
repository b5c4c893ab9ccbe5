/**
 * Every client's tools/list, both eras: {@link legacyTools} for a legacy client (with its promoted
 * tools), {@link modernTools} for a 2026-07-28 one (never anything promoted), both built by
 * {@link advertisedTools} in its fixed order. In `own` discovery mode: direct tools sorted by name, then
 * tool_search, then call_tool, then promoted tools in promotion order (docs/tools.md). In `client` mode
 * (docs/clients.md, "Clients that defer tools themselves"): direct tools, then every deferred tool, each
 * sorted by name, with no bridge tools, so the client's own tool search does the finding over a list
 * that never changes because of a call. Pure.
 * Source: docs/tools.md, docs/clients.md, docs/protocol-eras.md.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { Catalogue } from '../catalog/build.js';
import type { CatalogEntry } from '../catalog/types.js';
import { BRIDGE_SEARCH_PREAMBLE, TOOL_SEARCH_PREAMBLE } from '../discovery/manifest.js';
import type { ToolsAdvertisedEvent } from '../trace/events.js';
import { CALL_TOOL, callToolTool, toolSearchTool } from './bridgeTools.js';
import { ALWAYS_LOAD, SEARCH_HINT, searchHint, withMeta } from './clientMeta.js';
import { bridgeEnabled, descriptionLimit, discoveryMode, type DiscoveryMode } from './clients.js';
import { reopen } from './instructions.js';
import type { SessionOptions } from './sessionOptions.js';
import type { Shelf } from './types.js';

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

/**
 * What a legacy client named `name` (undefined: unnamed) is given (docs/tools.md): who finds its
 * deferred tools, and whether its list has tool_search (only in `own` mode: in `client` mode the
 * client's search finds tools) and call_tool.
 */
export function legacyShape(settings: SessionOptions['settings'], name: string | undefined): { readonly mode: DiscoveryMode; readonly search: boolean; readonly callTool: boolean } {
  const mode = discoveryMode(settings.discoveryMode, name);
  return { mode, search: settings.discoveryEnabled && mode === 'own', callTool: mode === 'own' && bridgeEnabled(settings.callTool, name) };
}

/**
 * The legacy tools/list for a client named `name` with `promoted` tools (promotion order). Pure over
 * the shelf. tool_search's description names call_tool for a client that has it (one that ignores
 * list_changed never lists a found tool).
 */
export function legacyTools(shelf: Pick<Shelf, 'catalogue' | 'searchDescription'>, settings: SessionOptions['settings'], name: string | undefined, promoted: readonly string[]): Tool[] {
  const { mode, search, callTool } = legacyShape(settings, name);
  const description = search ? shelf.searchDescription(descriptionLimit(name)) : undefined;
  return advertisedTools(shelf.catalogue, promoted, {
    searchDescription: description !== undefined && callTool ? reopen(description, TOOL_SEARCH_PREAMBLE, BRIDGE_SEARCH_PREAMBLE) : description,
    maxLimit: settings.maxLimit,
    callTool,
    mode,
    alwaysLoad: settings.alwaysLoad,
  });
}

/**
 * Cache hint on modern `tools/list` results (MCP spec 2026-07-28, Server › Utilities › Caching).
 * `private`: the list depends on the requesting client's clientInfo (discovery mode, description
 * limit), which a shared cache would not key on. 60 s: an upstream's list change is also announced on
 * `subscriptions/listen`; a client without a listen stream sees it within a minute.
 */
export const TOOLS_LIST_CACHE = { ttlMs: 60_000, cacheScope: 'private' } as const;

/** tool_search's opening sentence for modern clients; no longer than the legacy one, so a client's description limit still holds. */
export const MODERN_SEARCH_PREAMBLE = 'Search the tools listed below by what you want to do; matches come with their parameters. Run one with call_tool, or by its name.';

/** call_tool's description for modern clients, whose tool list never grows. */
export const MODERN_CALL_TOOL_DESCRIPTION =
  'Run a tool returned by tool_search or named in its index (they are not in your tool list, which never changes): pass its exact name and its arguments. Calling it by its own name works too.';

/** What the modern tools/list is made from: the shelf and the discovery and bridge settings. */
export type ModernListOptions = Pick<SessionOptions, 'shelf' | 'settings'>;

/**
 * The modern tools/list for a client named `name` (undefined: unnamed). Pure over the current shelf:
 * the same catalogue and name give the same bytes.
 */
export function modernTools(options: ModernListOptions, name: string | undefined): Tool[] {
  const shelf = options.shelf();
  const mode = discoveryMode(options.settings.discoveryMode, name);
  const search = options.settings.discoveryEnabled && mode === 'own';
  const tools = advertisedTools(shelf.catalogue, [], {
    searchDescription: search ? modernSearchDescription(shelf.searchDescription(descriptionLimit(name))) : undefined,
    maxLimit: options.settings.maxLimit,
    callTool: modernCallToolOn(options, mode),
    mode,
    alwaysLoad: options.settings.alwaysLoad,
  });
  return tools.map((tool) => withoutExecution(tool.name === CALL_TOOL && !shelf.catalogue.get(CALL_TOOL) ? { ...tool, description: MODERN_CALL_TOOL_DESCRIPTION } : tool));
}

/**
 * `tool` without `execution`: the 2026-07-28 Tool has no such field (tasks were removed; the SDK's
 * modern codec drops it on the wire too), so the list as built is the list as sent, byte for byte.
 */
function withoutExecution(tool: Tool): Tool {
  if (!('execution' in tool)) return tool;
  const copy = { ...tool };
  delete copy.execution;
  return copy;
}

/** tool_search's description with the modern opening sentence in place of the legacy one. */
export function modernSearchDescription(legacy: string): string {
  return reopen(legacy, TOOL_SEARCH_PREAMBLE, MODERN_SEARCH_PREAMBLE);
}

/** Whether a modern client in discovery `mode` has call_tool: it is the way to run a found tool, so only `bridge.callTool: "never"` turns it off. */
export function modernCallToolOn(options: ModernListOptions, mode: DiscoveryMode): boolean {
  return mode === 'own' && options.settings.callTool !== 'never';
}
