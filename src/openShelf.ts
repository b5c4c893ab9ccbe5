/**
 * Upstreams connected and the shelf over their tools, kept current as upstreams change. Shared by
 * `serve`, `inspect` and `search`. The shelf's code (index, tokenizer, schema projection) is imported
 * while the upstreams start, so its load time overlaps theirs (DESIGN §13 start-up).
 */
import type { Config } from './config/types.js';
import type { BuiltShelf } from './shelf.js';
import { summarize, type StartSummary } from './summary.js';
import type { Logger } from './trace/log.js';
import type { ConnectionOptions } from './upstream/connection.js';
import { UpstreamPool } from './upstream/pool.js';

/** Refusal at start, e.g. a name collision on a `prefix: false` server (DESIGN §4). */
export class StartupError extends Error {
  readonly code = 'startup_refused';
}

/** Debounce for rebuilding the shelf after upstream changes, in ms. */
const REBUILD_DEBOUNCE_MS = 50;

/** Upstreams connected and the shelf over their tools, kept current as upstreams change. */
export interface OpenShelf {
  readonly pool: UpstreamPool;
  /** The current shelf; replaced whole on every rebuild. */
  current(): BuiltShelf;
  summary(): StartSummary;
  /** Ends every upstream. */
  close(): Promise<void>;
}

/**
 * Starts every upstream in parallel and builds the shelf; rebuilds it (debounced) when an upstream's
 * tools change and then calls `onRebuilt`. Throws {@link StartupError} on a name collision involving a
 * `prefix: false` server (DESIGN §4), after ending the upstreams. Used by serve, inspect and search.
 */
export async function openShelf(
  config: Config,
  logger: Logger,
  version: string,
  onRebuilt: () => void = () => {},
  onNotification?: ConnectionOptions['onNotification'],
): Promise<OpenShelf> {
  let rebuildTimer: NodeJS.Timeout | undefined;
  const pool = new UpstreamPool(config.mcpServers, {
    baseDir: config.baseDir,
    logger,
    version,
    onToolsChanged: () => {
      clearTimeout(rebuildTimer);
      rebuildTimer = setTimeout(rebuild, REBUILD_DEBOUNCE_MS);
    },
    ...(onNotification ? { onNotification } : {}),
  });
  const exitKill = (): void => pool.killNow();
  process.once('exit', exitKill);
  const starting = pool.start();
  const [{ buildShelf, logShelfWarnings }, { loadHostRanker }] = await Promise.all([import('./shelf.js'), import('./discovery/hostRanker.js')]);
  const hostRanker = config.discovery.ranker ? await loadHostRanker(config.discovery.ranker, config.baseDir) : undefined;
  if (hostRanker && !hostRanker.ok) logger.warn(`ranker: ${hostRanker.error}; tool_search uses BM25`);
  await starting;
  const warned = new Set<string>();
  let shelf: BuiltShelf = buildShelf(config, pool.toolsByServer(), hostRanker);
  const close = async (): Promise<void> => {
    clearTimeout(rebuildTimer);
    await pool.close();
    process.removeListener('exit', exitKill);
  };
  if (shelf.catalogue.collisions.length > 0) {
    await close();
    const lines = shelf.catalogue.collisions.map((c) => `"${c.name}" from servers "${c.servers[0]}" and "${c.servers[1]}"`);
    throw new StartupError(`tool name collision with "prefix": false: ${lines.join('; ')}`);
  }
  logShelfWarnings(shelf, logger, warned);
  function rebuild(): void {
    shelf = buildShelf(config, pool.toolsByServer(), hostRanker);
    logShelfWarnings(shelf, logger, warned);
    for (const c of shelf.catalogue.collisions) logger.warn(`name "${c.name}" is claimed by "${c.servers[0]}" and "${c.servers[1]}"; the second got a suffixed name`);
    onRebuilt();
  }
  return { pool, current: () => shelf, summary: () => summarize(config, pool.summary(), shelf), close };
}

