/**
 * Builds the shelf: the immutable catalogue snapshot with its search index, host-ranker view and
 * manifest, from the config and each upstream's tools. Rebuilt whole whenever an upstream's tools
 * change. Source: DESIGN §2 (shape), §6, §7, §8.
 */
import { buildCatalogue, type Catalogue } from './catalog/build.js';
import { schemaOptionsFor } from './config/defaults.js';
import type { Config } from './config/types.js';
import type { UpstreamTool } from './catalog/types.js';
import type { HostRanker } from './discovery/hostRanker.js';
import { rankerCatalogueOf } from './discovery/hostRanker.js';
import { describeToolSearch } from './discovery/manifest.js';
import { rankTools } from './discovery/rank.js';
import { buildSearchIndex } from './discovery/searchIndex.js';
import type { Shelf } from './gateway/types.js';
import type { Result } from './lib/result.js';
import { projectTool } from './schema/project.js';
import type { Logger } from './trace/log.js';

/** A shelf plus what start-up summaries and `inspect` report about it. */
export interface BuiltShelf extends Shelf {
  /** Tools whose manifest entry had to clip a first sentence (DESIGN §6 warning). */
  readonly manifestWarnings: readonly string[];
}

/**
 * Builds the catalogue (exposure, names, projected schemas) and, over its deferred tools, the BM25
 * index and the manifest. The manifest is rendered once per distinct client description limit.
 */
export function buildShelf(
  config: Config,
  toolsByServer: ReadonlyMap<string, readonly UpstreamTool[]>,
  host: Result<HostRanker, string> | undefined,
): BuiltShelf {
  const catalogue: Catalogue = buildCatalogue(config, toolsByServer, (tool, server) => projectTool(tool, schemaOptionsFor(config, server)));
  const index = buildSearchIndex(catalogue.deferred, config.discovery.ranking);
  const rankContext = {
    index,
    mode: config.discovery.rankMode,
    ...(host ? { host } : {}),
    catalogue: rankerCatalogueOf(catalogue.deferred),
    timeoutMs: config.discovery.rankerTimeoutMs,
  };
  const manifests = new Map<number | undefined, string>();
  const first = describeToolSearch(catalogue.deferred, { tokenBudget: config.discovery.manifestTokenBudget });
  manifests.set(undefined, first.text);
  return {
    catalogue,
    manifestWarnings: first.warnings,
    search: (query, limit) => rankTools(rankContext, query, limit),
    searchDescription(maxChars) {
      let text = manifests.get(maxChars);
      if (text === undefined) {
        text = describeToolSearch(catalogue.deferred, { tokenBudget: config.discovery.manifestTokenBudget, maxChars }).text;
        manifests.set(maxChars, text);
      }
      return text;
    },
  };
}

/** Logs manifest warnings once per tool name. */
export function logManifestWarnings(shelf: BuiltShelf, logger: Logger, seen: Set<string>): void {
  for (const warning of shelf.manifestWarnings) {
    if (seen.has(warning)) continue;
    seen.add(warning);
    logger.warn(`manifest: ${warning}`);
  }
}
