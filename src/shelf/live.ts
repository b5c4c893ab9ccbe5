/**
 * Upstreams connected and the shelf over their tools, kept current as upstreams change. Shared by
 * `serve`, `inspect` and `search`. The shelf's code (index, tokenizer, schema projection) is imported
 * while the upstreams start, so its load time overlaps theirs (docs/benchmarks.md, "Start-up").
 */
// The server package's ProtocolError: the SDK brands its errors, so the upstream's Client (another
// copy of the SDK core) answers it as its own, and the client package loads only with an upstream.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Config } from '../config/types.js';
import { LONGEST_TIMER_MS } from '../lib/timers.js';
import type { BuiltShelf, ViewShelf } from './build.js';
import { summarize, type StartSummary } from './summary.js';
import type { Logger } from '../trace/log.js';
import type { ConnectionOptions } from '../upstream/connection.js';
import { join } from 'node:path';
import { fileManifestMemo } from '../discovery/manifestMemo.js';
import { outputVerdictFile } from '../schema/outputVerdicts.js';
import { ListingCache } from '../upstream/listingCache.js';
import { UpstreamPool, type Reconciled } from '../upstream/pool.js';
import type { SemanticEngine } from '../discovery/semantic/engine.js';
import type { HeldFn } from '../catalog/build.js';
import type { TraceSink } from '../trace/events.js';
import { memoryPins, readOnlyPins, TrustKeeper, type TrustView } from '../trust/keeper.js';
import { pinsDir, PinStore } from '../trust/store.js';
import { privateDirProblem } from '../lib/stateDir.js';
import { approveStored, rejectStored, type ApproveOutcome } from '../trust/approval.js';
import type { ServerPins } from '../trust/judge.js';

/**
 * Longest the gateway waits for upstreams before it serves, in ms. One that is still starting then
 * (a first `npx` download, a server that never answers initialize) joins later with list_changed, so
 * it never holds the others back for its whole start timeout (docs/robustness.md).
 */
export const STARTUP_WAIT_MS = 10_000;
/** Environment variable that overrides {@link STARTUP_WAIT_MS} (a positive integer, in ms). */
export const STARTUP_WAIT_ENV = 'TOOLSHELF_STARTUP_WAIT_MS';

/**
 * The start-up wait in ms: the environment's override when valid (a positive integer a timer can
 * wait, at most {@link LONGEST_TIMER_MS}: a longer one fires at once), else {@link STARTUP_WAIT_MS}.
 */
export function startupWaitMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env[STARTUP_WAIT_ENV]);
  return Number.isInteger(value) && value > 0 && value <= LONGEST_TIMER_MS ? value : STARTUP_WAIT_MS;
}

/** Waits for `starting`, at most `waitMs` (undefined: as long as it takes), or until `signal` aborts. */
async function settle(starting: Promise<void>, waitMs: number | undefined, signal: AbortSignal | undefined): Promise<'started' | 'waited' | 'aborted'> {
  if (signal?.aborted) return 'aborted';
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      starting.then(() => 'started' as const),
      new Promise<'waited'>((resolve) => (timer = waitMs === undefined ? undefined : setTimeout(() => resolve('waited'), waitMs))),
      new Promise<'aborted'>((resolve) => signal?.addEventListener('abort', (onAbort = () => resolve('aborted')), { once: true })),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** The relay of commands that serve no client: every upstream request is refused. */
const noClient: NonNullable<ConnectionOptions['onServerRequest']> = (_key, method) =>
  Promise.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, `No client is connected to answer ${method}`));

/** Refusal at start, e.g. a name collision on a `prefix: false` server (docs/configuration.md). */
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
  /**
   * The shelf view `name` sees now (docs/views.md), built on first use after each rebuild. A name the
   * config applied now has no view for (one a reload removed) sees an empty shelf: nothing outside a
   * view ever reaches its clients.
   */
  view(name: string): ViewShelf;
  summary(): StartSummary;
  /** The config now applied (replaced by {@link OpenShelf.reload}). */
  config(): Config;
  /**
   * Applies an edited config: servers added, removed or whose upstream part
   * changed are started, ended or restarted, the rest keep running; the shelf is rebuilt with the
   * new rules and `onRebuilt` called. Throws {@link StartupError} (keeping the running config) when the
   * new one would collide on a `prefix: false` name.
   */
  reload(next: Config): Promise<Reconciled>;
  /** The trust checks' verdict behind the current shelf: held tools, and servers whose instructions are held. */
  trust(): TrustView;
  /** The pins of `server` (what `toolshelf review` reads); undefined without a pin store or before its first listing. */
  pins(server: string): ServerPins | undefined;
  /**
   * Approves held versions as `toolshelf approve` does (trust/approval.ts) and rebuilds the shelf with
   * them; undefined without a pin store this process writes. @throws when the pins cannot be written.
   */
  approve(server: string, tools: readonly string[]): ApproveOutcome | undefined;
  /** Rejects held versions on review (trust/approval.ts `rejectStored`): they stay held, their warning is no longer news. As {@link OpenShelf.approve}. */
  reject(server: string, tools: readonly string[]): ApproveOutcome | undefined;
  /** Ends every upstream. */
  close(): Promise<void>;
}

/** What the serving gateway hooks into; `inspect` and `search` need none of it. */
export interface ShelfHooks {
  /** After each rebuild of the shelf (debounced upstream tool changes). */
  readonly onRebuilt?: () => void;
  /** Upstream notifications beyond tools, for pass-through. */
  readonly onNotification?: ConnectionOptions['onNotification'];
  /**
   * Upstream requests for the client (sampling, elicitation). Without one (inspect, search) they are
   * refused, but upstreams are still offered the capabilities, so they list the same tools as when
   * serving (server-everything adds tools for clients that can sample).
   */
  readonly onServerRequest?: ConnectionOptions['onServerRequest'];
  /** Aborting it during start-up ends the upstreams and rejects with {@link StartupError}. */
  readonly signal?: AbortSignal;
  /**
   * The state folder: when given, upstream listings are cached in `catalog/` (served at start,
   * lazy upstreams start on first use) and rendered manifests memoized beside them.
   */
  readonly stateDir?: string;
  /** The gateway signs in to OAuth upstreams in the browser by itself (serve only). */
  readonly interactiveSignIn?: boolean;
  /**
   * Wait for every upstream's start to end (up to its own `startTimeoutMs`) instead of the
   * {@link STARTUP_WAIT_MS} a serving gateway waits: `inspect` and `search` answer once, so an upstream
   * still starting would be missing from the answer, and ending it at the wait killed a first
   * `npx -y` download every time. Such a one-shot command retries no failed start either: it reports
   * the failure (upstream/connection.ts `retry`).
   */
  readonly waitForEveryStart?: boolean;
  /**
   * Eager upstreams served from the cached catalogue start once this resolves (the serving gateway:
   * shortly after it began serving; upstream/connection.ts `open`); at once without it.
   */
  readonly cachedStartGate?: Promise<void>;
  /**
   * The pins (docs/security.md): the config file's path keys them in the state folder. `write` (the
   * serving gateway) pins and records what it holds, and watches for approvals from other processes;
   * without it (inspect, search) the pins are read only. Without it they live in memory for the life
   * of the process. `stateDir` is the state folder (given apart from the cache's: inspect reads pins
   * but lists every upstream afresh).
   */
  readonly pins?: { readonly stateDir: string; readonly configPath: string; readonly write: boolean };
  /** Where the trust checks' warnings go besides the log: the trace, and a shared instance's clients. */
  readonly trace?: TraceSink;
  readonly announceTrust?: (lines: readonly string[]) => void;
  /** The serving gateway's sentence encoder (docs/search.md): each shelf built is handed to it. */
  readonly semantic?: SemanticEngine;
}

/**
 * Starts every upstream in parallel and builds the shelf; rebuilds it (debounced) when an upstream's
 * tools change and then calls `onRebuilt`. Throws {@link StartupError} on a name collision involving a
 * `prefix: false` server (docs/configuration.md), after ending the upstreams. Each rebuild is given the last
 * catalogue, so a qualified name keeps routing to the same tool for the life of the process; a later
 * colliding tool is suffixed with a warning. Used by serve, inspect and search.
 */
export async function openShelf(initial: Config, logger: Logger, version: string, hooks: ShelfHooks = {}): Promise<OpenShelf> {
  const { onRebuilt = () => {}, onNotification, onServerRequest, signal, stateDir, interactiveSignIn = false, waitForEveryStart = false, cachedStartGate, semantic, pins } = hooks;
  let config = initial;
  // Pins record what the user trusted; kept where another user can change them, they would let that
  // user cancel a hold or pass off a changed tool as approved. The cache can be skipped; pins cannot.
  const pinProblem = pins ? privateDirProblem(pinsDir(pins.stateDir, pins.configPath), pins.stateDir) : undefined;
  if (pinProblem !== undefined) {
    throw new StartupError(`${pinProblem}. toolshelf keeps its pins there (what you approved; docs/security.md) and will not use them where another user can change them`);
  }
  const cache = stateDir ? new ListingCache(stateDir, config.baseDir, logger) : undefined;
  const memo = cache ? { memo: fileManifestMemo(join(stateDir!, 'catalog'), stateDir), version } : undefined;
  // Known outputSchema compile verdicts: a start from the cache compiles (and loads ajv for) none seen before.
  const verdicts = cache ? outputVerdictFile(join(stateDir!, 'catalog'), stateDir) : undefined;
  verdicts?.load();
  let rebuildTimer: NodeJS.Timeout | undefined;
  // Changes before the first shelf exists are already in what it is built from.
  let built = false;
  // The shelf's code loads while the pool imports the connection code (with a first upstream).
  const shelfCode = Promise.all([import('./build.js'), import('../discovery/hostRanker.js')]);
  const pool = await UpstreamPool.open(config.mcpServers, {
    baseDir: config.baseDir,
    logger,
    version,
    onToolsChanged: () => {
      if (!built) return;
      clearTimeout(rebuildTimer);
      rebuildTimer = setTimeout(rebuild, REBUILD_DEBOUNCE_MS);
    },
    ...(onNotification ? { onNotification } : {}),
    onServerRequest: onServerRequest ?? noClient,
    ...(cache ? { cache } : {}),
    ...(waitForEveryStart ? { retry: false } : {}),
    // Read at each use: a reload that changes the defaults applies to running upstreams too.
    lazyDefaults: () => ({ lazy: config.lazy, idleStopMs: config.idleStopMs }),
    loadAuth: async () => {
      const { storeFromEnv, upstreamAuth } = await import('../auth/upstreamAuth.js');
      return upstreamAuth(storeFromEnv(), logger, interactiveSignIn);
    },
  });
  const store = pins ? new PinStore(pins.stateDir, pins.configPath) : undefined;
  const keeper = new TrustKeeper(store ? (pins!.write ? store : readOnlyPins(store)) : memoryPins(), logger, {
    ...(hooks.trace ? { trace: hooks.trace } : {}),
    ...(hooks.announceTrust ? { announce: hooks.announceTrust } : {}),
  });
  let trustView: TrustView = { held: new Map(), instructionsHeld: new Set() };
  // Judged afresh at every build: an approval from another process applies at the next one.
  const judged = (cfg: Config): HeldFn => {
    trustView = keeper.judge(cfg, pool.listings());
    const now = trustView;
    return (server, tool) => now.held.get(server)?.get(tool)?.reason;
  };
  const exitKill = (): void => pool.killNow();
  process.once('exit', exitKill);
  const starting = pool.start(cachedStartGate);
  const [{ buildShelf, buildViewShelf, logShelfWarnings }, { loadHostRanker }] = await shelfCode;
  const hostRanker = config.discovery.ranker ? await loadHostRanker(config.discovery.ranker, config.baseDir) : undefined;
  if (hostRanker && !hostRanker.ok) logger.warn(`ranker: ${hostRanker.error}; tool_search uses BM25`);
  const close = async (): Promise<void> => {
    clearTimeout(rebuildTimer);
    store?.close();
    await Promise.all([pool.close(), semantic?.close()]);
    process.removeListener('exit', exitKill);
  };
  const waitMs = waitForEveryStart ? undefined : startupWaitMs(process.env);
  const settled = await settle(starting, waitMs, signal);
  if (settled === 'aborted') {
    await close();
    throw new StartupError('stopped during start-up');
  }
  if (settled === 'waited') logger.warn(`upstreams still starting after ${waitMs} ms are served once they are up (list_changed)`);
  const warned = new Set<string>();
  // Each view's shelf over the current one, built on first use; emptied on every rebuild.
  const views = new Map<string, ViewShelf>();
  let shelf: BuiltShelf = buildShelf(config, pool.toolsByServer(), hostRanker, undefined, memo, semantic, judged(config));
  built = true;
  verdicts?.save();
  if (shelf.catalogue.collisions.length > 0) {
    await close();
    const lines = shelf.catalogue.collisions.map((c) => `"${c.name}" from servers "${c.servers[0]}" and "${c.servers[1]}"`);
    throw new StartupError(`tool name collision with "prefix": false: ${lines.join('; ')}`);
  }
  logShelfWarnings(shelf, logger, warned);
  // `toolshelf approve` in another process changes a pin file: the shelf is rebuilt with it.
  if (store && pins?.write) {
    try {
      store.watch(() => {
        clearTimeout(rebuildTimer);
        rebuildTimer = setTimeout(rebuild, REBUILD_DEBOUNCE_MS);
      });
    } catch (error) {
      logger.warn(`pins: cannot watch ${store.dir} (${(error as Error).message}); an approval applies at the next re-list or restart`);
    }
  }
  function rebuild(): void {
    shelf = buildShelf(config, pool.toolsByServer(), hostRanker, shelf.catalogue, memo, semantic, judged(config));
    verdicts?.save();
    views.clear();
    logShelfWarnings(shelf, logger, warned);
    for (const c of shelf.catalogue.collisions) {
      logger.warn(`name "${c.name}" stays with server "${c.servers[0]}" (tool "${c.tools[0]}"); server "${c.servers[1]}"'s tool "${c.tools[1]}" is served as "${c.given}"`);
    }
    onRebuilt();
  }
  const reload = async (next: Config): Promise<Reconciled> => {
    const trial = buildShelf(next, pool.toolsByServer(), hostRanker, shelf.catalogue, memo, undefined, (server, tool) => trustView.held.get(server)?.get(tool)?.reason);
    const lines = trial.catalogue.collisions.map((c) => `"${c.name}" from servers "${c.servers[0]}" and "${c.servers[1]}"`);
    if (lines.length > 0) throw new StartupError(`tool name collision with "prefix": false: ${lines.join('; ')}`);
    config = next;
    const touched = await pool.reconcile(next.mcpServers);
    clearTimeout(rebuildTimer);
    rebuild();
    return touched;
  };
  const view = (name: string): ViewShelf => {
    let held = views.get(name);
    if (!held) {
      held = buildViewShelf(config, Object.hasOwn(config.views, name) ? name : undefined, shelf, hostRanker, memo, semantic);
      views.set(name, held);
    }
    return held;
  };
  const decideHeld = (decide: typeof approveStored) => (server: string, tools: readonly string[]): ApproveOutcome | undefined => {
    if (!store || !pins?.write) return undefined;
    const outcome = decide(store, server, tools);
    if (outcome.kind === 'approved') {
      clearTimeout(rebuildTimer);
      rebuild();
    }
    return outcome;
  };
  return {
    pool,
    current: () => shelf,
    view,
    config: () => config,
    summary: () => summarize(config, pool.summary(), shelf, pool.toolsByServer(), version),
    trust: () => trustView,
    pins: (server) => store?.load(server),
    approve: decideHeld(approveStored),
    reject: decideHeld(rejectStored),
    reload,
    close,
  };
}

