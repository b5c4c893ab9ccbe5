/**
 * The tools/list answer in its fixed order: direct tools sorted by name, then tool_search, then
 * call_tool, then promoted tools in promotion order. Pure. Source: DESIGN §5, §9.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalogue } from '../catalog/build.js';
import type { CatalogEntry } from '../catalog/types.js';
import { callToolTool, toolSearchTool } from './bridgeTools.js';

/** What decides the bridge tools for one session. */
export interface AdvertiseOptions {
  /** tool_search's full description, or undefined when discovery is off or nothing is deferred. */
  readonly searchDescription: string | undefined;
  readonly maxLimit: number;
  readonly callTool: boolean;
}

/**
 * A catalogue entry as the client sees it: qualified name, projected description and schema, and the
 * other fields in their wire form (issue #8 item 1: every one passes MCP's `Tool` schema).
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
 * the catalogue are skipped. `call_tool` appears only when something is deferred.
 */
export function advertisedTools(catalogue: Catalogue, promoted: readonly string[], options: AdvertiseOptions): Tool[] {
  const tools = catalogue.direct.map(wireTool);
  const anyDeferred = catalogue.deferred.length > 0;
  if (anyDeferred && options.searchDescription !== undefined) tools.push(toolSearchTool(options.searchDescription, options.maxLimit));
  if (anyDeferred && options.callTool) tools.push(callToolTool());
  for (const name of promoted) {
    const entry = catalogue.get(name);
    if (entry?.exposure === 'deferred') tools.push(wireTool(entry));
  }
  return tools;
}
