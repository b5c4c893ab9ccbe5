/**
 * Composition root: config → upstream pool → shelf (catalogue, index, manifest) → downstream
 * transports. Rebuilds the shelf when an upstream's tools change, and shuts everything down.
 * Source: DESIGN §2, §9, §11.
 */
import type { Config } from './config/types.js';
import { loadHostRanker } from './discovery/hostRanker.js';
import { serveHttp, type HttpFront } from './gateway/http.js';
import { GatewaySession } from './gateway/session.js';
import { serveStdio } from './gateway/stdio.js';
import type { Admit } from './gateway/types.js';
import { Admission } from './schema/admit.js';
import { dropNullOptionals } from './schema/prepare.js';
import { schemaOptionsFor } from './config/defaults.js';
import { estimateTokens, jsonBytes } from './schema/measure.js';
import { buildShelf, logManifestWarnings, type BuiltShelf } from './shelf.js';
import { summarize, type StartSummary } from './summary.js';
import type { TraceSink } from './trace/events.js';
import type { Logger } from './trace/log.js';
import { UpstreamPool } from './upstream/pool.js';
import type { ConnectionOptions } from './upstream/connection.js';
import type { SharedRoutes } from './gateway/passthrough.js';

/** Start options. Times in ms. */
export interface StartOptions {
  readonly config: Config;
  /** Serve Streamable HTTP on host:port (port 0 picks a free one); stdio when absent. */
  readonly http?: { readonly host: string; readonly port: number };
  readonly token?: string;
  readonly trace: TraceSink;
  readonly logger: Logger;
  readonly version: string;
}

/** A running gateway. */
export interface Running {
  /** The `/mcp` URL in HTTP mode. */
  readonly url?: string;
  readonly summary: StartSummary;
  /** Ends every session and upstream process; idempotent. */
  shutdown(): Promise<void>;
  /** Resolves once shut down (client gone, signal, or shutdown()). */
  readonly closed: Promise<void>;
}

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
  const hostRanker = config.discovery.ranker ? await loadHostRanker(config.discovery.ranker, config.baseDir) : undefined;
  if (hostRanker && !hostRanker.ok) logger.warn(`ranker: ${hostRanker.error}; tool_search uses BM25`);
  await pool.start();
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
  logManifestWarnings(shelf, logger, warned);
  function rebuild(): void {
    shelf = buildShelf(config, pool.toolsByServer(), hostRanker);
    logManifestWarnings(shelf, logger, warned);
    for (const c of shelf.catalogue.collisions) logger.warn(`name "${c.name}" is claimed by "${c.servers[0]}" and "${c.servers[1]}"; the second got a suffixed name`);
    onRebuilt();
  }
  return { pool, current: () => shelf, summary: () => summarize(config, pool.summary(), shelf), close };
}

/** Starts upstreams in parallel, builds the shelf, and serves. Throws {@link StartupError} on refusal. */
export async function startToolshelf(options: StartOptions): Promise<Running> {
  const { config, logger } = options;
  const sessions = new Map<string, GatewaySession>();
  const opened = await openShelf(
    config,
    logger,
    options.version,
    () => {
      for (const session of sessions.values()) session.catalogueChanged();
    },
    (server, notification) => {
      for (const session of sessions.values()) session.forwardNotification(server, notification);
    },
  );
  const routes: SharedRoutes = { resources: new Map(), prompts: new Map(), templates: [] };
  const { pool } = opened;
  const admit = admitter(config, logger);
  const makeSession = (id: string): GatewaySession => {
    const session = new GatewaySession({
      id,
      version: options.version,
      shelf: opened.current,
      caller: pool,
      admit,
      trace: options.trace,
      logger,
      measure: (value) => {
        const bytes = jsonBytes(value);
        return { bytes, tokens: estimateTokens(bytes) };
      },
      passthrough: { directory: pool, routes, naming: config.naming },
      settings: {
        discoveryEnabled: config.discovery.enabled,
        defaultLimit: config.discovery.defaultLimit,
        maxLimit: config.discovery.maxLimit,
        captureToolIo: config.trace.captureToolIo,
        callTool: config.bridge.callTool,
      },
    });
    sessions.set(id, session);
    return session;
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let front: HttpFront | undefined;
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    shuttingDown ??= (async () => {
      await front?.close();
      await Promise.all([...sessions.values()].map((s) => s.close().catch(() => undefined)));
      await opened.close();
      await options.trace.close();
      resolveClosed();
    })();
    return shuttingDown;
  };

  if (options.http) {
    front = await serveHttp({
      ...options.http,
      ...(options.token ? { token: options.token } : {}),
      logger,
      createSession: makeSession,
      onSessionClosed: (id) => sessions.delete(id),
    });
  } else {
    await serveStdio(makeSession('stdio'), () => void shutdown());
  }
  return { ...(front ? { url: front.url } : {}), summary: opened.summary(), shutdown, closed };
}

/**
 * Admission against the canonical schema with one warning per tool whose schema ajv cannot compile
 * (DESIGN §7). Under `prepare.strict`, nulls the model sent for optional properties (advertised as
 * required-and-nullable) are removed first, so the canonical schema and the upstream never see them.
 */
function admitter(config: Config, logger: Logger): Admit {
  const admission = new Admission();
  return (entry, args) => {
    const forwarded = schemaOptionsFor(config, entry.server).prepare.strict ? dropNullOptionals(entry.tool.inputSchema, args) : args;
    const verdict = admission.check(entry.qualifiedName, entry.tool.inputSchema, forwarded);
    if (verdict.ok && verdict.warning) logger.warn(verdict.warning);
    return verdict.ok ? { ok: true, args: forwarded } : { ok: false, text: verdict.text };
  };
}
