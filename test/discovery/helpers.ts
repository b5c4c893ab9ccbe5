/**
 * Test helpers for discovery: catalogue entries from plain tool literals and the shared data paths.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CatalogEntry, JsonObject } from '../../src/catalog/types.js';
import { toCatalogEntry } from '../../src/discovery/retrievalSet.js';

/** A deferred entry named `server__name` (or `name` when server is empty), with optional keywords. */
export function entry(
  server: string,
  name: string,
  description: string,
  inputSchema: JsonObject = { type: 'object' },
  keywords: readonly string[] = [],
): CatalogEntry {
  const base = toCatalogEntry({ name: server === '' ? name : `${server}__${name}`, description, inputSchema });
  return { ...base, keywords };
}

/** Absolute path of a file under shared/data, or undefined when shared/ is absent. */
export function sharedData(relative: string): string | undefined {
  const path = fileURLToPath(new URL(`../../../shared/data/${relative}`, import.meta.url));
  return existsSync(path) ? path : undefined;
}

/** A shared catalogue (`catalogs/<file>.json`) as entries named `<prefix>__<tool>`. */
export function sharedCatalogue(file: string, prefix: string): CatalogEntry[] {
  const path = sharedData(`catalogs/${file}.json`);
  if (path === undefined) return [];
  const tools = JSON.parse(readFileSync(path, 'utf8')) as { name: string; description?: string; inputSchema: JsonObject }[];
  return tools.map((tool) => toCatalogEntry({ ...tool, name: `${prefix}__${tool.name}` }));
}

export const SHARED_ABSENT = sharedData('README.md') === undefined;
export const SKIP_MESSAGE = 'needs ../shared/data (the shared evaluation data) beside the project; it is absent here';

/**
 * The bundled config's npm servers as deferred entries named `<server>__<tool>`, from their captured
 * tools/list (test/fixtures/catalogs/bundled.json, `node scripts/captureBundledTools.mjs`). Every
 * field the upstream declared is kept (`title`, `annotations`, `_meta`). `servers` filters by key.
 */
export function bundledCatalogue(servers?: readonly string[]): CatalogEntry[] {
  return [...bundledTools()]
    .filter(([server]) => servers === undefined || servers.includes(server))
    .flatMap(([server, tools]) => tools.map((tool) => ({ ...toCatalogEntry({ ...tool, name: `${server}__${tool.name}` }), tool: { ...tool } })));
}

/** The bundled config's npm servers' captured tools/list (test/fixtures/catalogs/bundled.json), by server key. */
export function bundledTools(): Map<string, { name: string; description?: string; inputSchema: JsonObject }[]> {
  const path = fileURLToPath(new URL('../fixtures/catalogs/bundled.json', import.meta.url));
  return new Map(Object.entries(JSON.parse(readFileSync(path, 'utf8')) as Record<string, { name: string; description?: string; inputSchema: JsonObject }[]>));
}
