/**
 * Composition root: config → upstream pool → shelf (catalogue, index, manifest) → downstream
 * transports. Rebuilds the shelf when an upstream's tools change, and shuts everything down.
 * Source: docs/architecture.md, docs/tools.md, docs/robustness.md.
 */
import { randomBytes } from 'node:crypto';
import { serverOfName, serverPrefixes } from './catalog/naming.js';
import { DEFAULT_INSTRUCTIONS_BYTES, schemaOptionsFor } from './config/defaults.js';
import type { Config } from './config/types.js';
import type { Catalogue } from './catalog/build.js';
import { changedSettings, reloadSummary } from './config/changes.js';
import { problemLine } from './config/report.js';
import type { HttpFront } from './gateway/fronts/http.js';
import type { ModernFront } from './gateway/modern/front.js';
import type { SocketFront } from './gateway/fronts/socketFront.js';
import type { SharedRoutes } from './gateway/passthrough.js';
import type { GatewaySession } from './gateway/legacy/session.js';
import { sessionSettings, type SessionOptions } from './gateway/sessionOptions.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Admit, CheckOutput, Shelf, UpstreamCaller } from './gateway/types.js';
import type { ConfigWatch } from './config/watch.js';
import { openShelf, StartupError, type OpenShelf } from './shelf/live.js';
import type { Admission } from './schema/admit.js';
import type { OutputCheck } from './schema/output.js';
import { printableLine } from './lib/printable.js';
import { estimateTokens, jsonBytes } from './schema/measure.js';
import { dropNullOptionals } from './schema/prepare.js';
import type { StartSummary } from './shelf/summary.js';
import { viewTrace, type TraceSink } from './trace/events.js';
import type { SemanticEngine } from './discovery/semantic/engine.js';
import { processSemanticEngine } from './discovery/semantic/processEngine.js';
import { releaseTokenizer } from './discovery/o200k.js';
import { Activity, teeTrace } from './dashboard/activity.js';
import type { DashboardSource } from './dashboard/routes.js';
import type { DashboardServer } from './dashboard/serve.js';
import type { Logger } from './trace/log.js';
import { cleanText } from './trust/clean.js';

/** Start options. Times in ms. */
export interface StartOptions {
  readonly config: Config;
  /** Serve Streamable HTTP on host:port (port 0 picks a free one); stdio when absent. */
  readonly http?: { readonly host: string; readonly port: number };
  readonly token?: string;
  readonly trace: TraceSink;
  readonly logger: Logger;
  readonly version: string;
  /** Aborting it during start-up ends the upstreams started so far and rejects with StartupError. */
  readonly signal?: AbortSignal;
  /** The state folder for the catalogue cache; no cache when absent. */
  readonly stateDir?: string;
  /**
   * Serve relayed stdio clients on this Unix socket instead of stdio: the shared instance
   * (docs/configuration.md, "One shelf for every client"), which ends `idleExitMs` after its last client left.
   */
  readonly socket?: { readonly path: string; readonly idleExitMs: number };
  /** The config file and its text as loaded: watched and reloaded on change. */
  readonly configFile?: { readonly path: string; readonly text: string };
  /**
   * Where instance-wide news goes besides the log (a shared instance's status file for its clients'
   * stderr, share/status.ts): each reload's outcome, under the topic `config`.
   */
  readonly announce?: (topic: string, lines: readonly string[]) => void;
  /** The view the stdio client sees (docs/views.md; `--view`); over HTTP and the socket each client names its own. */
  readonly view?: string;
  /**
   * The logger of the upstreams and the shelf (instance-wide lines only; default `logger`): a shared
   * instance's also tells its relayed clients the warnings (share/status.ts `relayWarnings`).
   */
  readonly shelfLogger?: Logger;
}

/** A running gateway. */
export interface Running {
  /** The `/mcp` URL in HTTP mode. */
  readonly url?: string;
  readonly summary: StartSummary;
  /**
   * {@link Running.summary} again once every upstream start under way at the summary has ended;
   * undefined when the gateway began shutting down first (the shutdown ended those starts, so the
   * summary would report every upstream closed).
   */
  readonly started: Promise<StartSummary | undefined>;
  /** Ends every session and upstream process; idempotent. */
  shutdown(): Promise<void>;
  /** Resolves once shut down (client gone, signal, or shutdown()). */
  readonly closed: Promise<void>;
}

/**
 * How long after it begins serving a gateway holds the start of eager upstreams served from the
 * cached catalogue, in ms: a client's handshake and first list come first. Spawning the bundled four
 * upstreams at once took the CPU those answers needed (spawn → first tools/list 1.6–2.6 s, 1.0–1.2 s
 * held, on the 2-core machine), and a 2026-07-28 SDK client, which probes a stdio server's era in a
 * throwaway sibling process, made that probe spawn every upstream only to end them. A
 * call, a search that finds an upstream's tools, or shutdown starts it sooner.
 */
export const CACHED_START_DELAY_MS = 500;

/** Starts upstreams in parallel, builds the shelf, and serves. Throws {@link StartupError} on refusal. */
export async function startToolshelf(options: StartOptions): Promise<Running> {
  const { config, logger } = options;
  const sessions = new Map<string, GatewaySession>();
  // What the dashboard shows live: every trace event and reload outcome (docs/dashboard.md).
  const activity = new Activity();
  const trace = teeTrace(options.trace, activity);
  // Modern (2026-07-28) clients: no sessions; one front per view, made on first use (docs/views.md).
  const modernFronts = new Map<string | undefined, ModernFront>();
  // The serving code loads while the upstreams start (docs/benchmarks.md, "Start-up").
  const serving = Promise.all([
    import('./gateway/legacy/session.js'),
    import('./gateway/fronts/http.js'),
    import('./gateway/fronts/stdio.js'),
    import('./schema/admit.js'),
    import('./schema/output.js'),
    import('./gateway/instructions.js'),
    import('./gateway/modern/front.js'),
    import('./gateway/subscriptions.js'),
    import('./gateway/passthrough.js'),
    import('./dashboard/routes.js'),
    import('./dashboard/access.js'),
    import('./dashboard/state.js'),
    import('./dashboard/playground.js'),
  ]);
  // Eager upstreams served from the cached catalogue wait until the gateway has served a moment (see CACHED_START_DELAY_MS).
  let openGate: () => void = () => undefined;
  const cachedStartGate = new Promise<void>((resolve) => (openGate = resolve));
  // The sentence encoder (docs/search.md): its worker and model load once the first tools/list is served.
  const semantic = processSemanticEngine(process.env, logger, options.stateDir);
  const served = afterEachList(trace, semantic);
  const opened = await openShelf(config, options.shelfLogger ?? logger, options.version, {
    cachedStartGate,
    ...(semantic ? { semantic } : {}),
    onRebuilt: () => {
      for (const session of sessions.values()) session.catalogueChanged();
      for (const front of modernFronts.values()) front.catalogueChanged();
    },
    onNotification: (server, notification) => {
      for (const session of sessions.values()) session.forwardNotification(server, notification);
      for (const front of modernFronts.values()) front.forwardNotification(server, notification);
    },
    // The connection has already decided which client's call the request belongs to.
    onServerRequest: (_server, method, params, signal, origin, inputKey) => origin.ask(method, params, signal, inputKey),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.stateDir ? { stateDir: options.stateDir } : {}),
    interactiveSignIn: true,
    ...(options.configFile && options.stateDir ? { pins: { stateDir: options.stateDir, configPath: options.configFile.path, write: true } } : {}),
    trace: options.trace,
    ...(options.announce ? { announceTrust: (lines: readonly string[]) => options.announce!('trust', lines) } : {}),
  });
  const announce = options.announce ?? (() => undefined);
  const watch = options.configFile
    ? await watchForReload(options.configFile, opened, logger, (level, lines) => {
        announce('config', lines);
        activity.add({ kind: 'reload', level, lines });
      })
    : undefined;
  const routes: SharedRoutes = { resources: new Map(), prompts: new Map(), templates: [] };
  const { pool } = opened;
  const [
    { GatewaySession },
    { serveHttp, maxSessionsFromEnv, maxConnectionsPerPeerFromEnv },
    { serveStdio, MAX_STDIO_RESULT_BYTES },
    { Admission },
    { OutputCheck },
    { gatewayInstructions, upstreamInstructions },
    { createModernFront },
    { UpstreamSubscriptions },
    { forwardSubscription },
    { dashboardRoutes },
    { DashboardAccess },
    { dashboardState },
    { playgroundSearch },
  ] = await serving;
  // Upstream resource subscriptions, held by clients of both eras.
  const upstreamSubscriptions = new UpstreamSubscriptions((method, uri) => forwardSubscription(pool, routes, method, uri));
  const admit = admitter(opened.config, new Admission(), logger);
  const checkOutput = outputChecker(new OutputCheck(), logger);
  /**
   * The pool, plus why a name of an upstream that is not up is unknown (its tools are missing). A
   * view's client is told only of the view's servers: any other name is unknown to it, and no more.
   */
  const callerFor = (view: string | undefined): UpstreamCaller => ({
    callTool: (server, tool, args, callOptions) => pool.callTool(server, tool, args, callOptions),
    warm: (server) => pool.warm(server),
    downFor: (name) => {
      const now = opened.config();
      const server = serverOfName(name, serverPrefixes(Object.keys(now.mcpServers), now.naming.separator), now.naming.separator);
      if (server === undefined || !viewHasServer(now, view, server)) return undefined;
      const summary = pool.summary().find((s) => s.key === server);
      return summary && summary.status !== 'ready' ? { server: summary.key, status: summary.status, ...(summary.error ? { reason: summary.error } : {}) } : undefined;
    },
  });

  /**
   * The instructions under the config and catalogue applied now and the upstreams' own (docs/tools.md,
   * "Instructions"), built again only when one of them changed: a modern HTTP request builds its options afresh,
   * and clipping and qualifying tool names each time put that work on every call's path.
   */
  const instructionsMemo = new Map<string | undefined, { readonly config: Config; readonly catalogue: Catalogue; readonly texts: readonly [string, string][]; readonly instructions: string }>();
  const instructionsNow = (now: Config, catalogue: Catalogue, view: string | undefined): string => {
    // A view's clients get the instructions of its servers only (docs/views.md).
    // Instructions the scanner flagged stay out until approved (docs/security.md, "The scanner").
    const held = opened.trust().instructionsHeld;
    const upstreamTexts = new Map([...pool.instructionsByServer()].filter(([server]) => viewHasServer(now, view, server) && !held.has(server)));
    const texts = [...upstreamTexts];
    // Each upstream keeps its instructions string until it lists again: comparing them is cheap.
    const same = (held: readonly [string, string][]): boolean => held.length === texts.length && held.every(([key, text], i) => texts[i]![0] === key && texts[i]![1] === text);
    const memo = instructionsMemo.get(view);
    if (memo?.config === now && memo.catalogue === catalogue && same(memo.texts)) return memo.instructions;
    const budgetOf = (server: string): number => now.mcpServers[server]?.instructionsBytes ?? DEFAULT_INSTRUCTIONS_BYTES;
    const instructions = gatewayInstructions(upstreamInstructions(upstreamTexts, catalogue.counts, budgetOf, (server, tool) => catalogue.find(server, tool)?.qualifiedName));
    instructionsMemo.set(view, { config: now, catalogue, texts, instructions });
    return instructions;
  };
  const shelfOf = (view: string | undefined): (() => Shelf) => (view === undefined ? opened.current : () => opened.view(view));

  /**
   * What a client is served with under the config applied now: a legacy session keeps it from when it
   * began, a modern request gets it afresh each time.
   */
  const sessionOptions = (view: string | undefined, maxResultBytes?: number): Omit<SessionOptions, 'id'> => {
    const now = opened.config();
    const shelf = shelfOf(view);
    const instructions = instructionsNow(now, shelf().catalogue, view);
    return {
      instructions,
      ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
      version: options.version,
      shelf,
      caller: callerFor(view),
      admit,
      checkOutput,
      trace: view === undefined ? served : viewTrace(served, view),
      logger,
      measure: (value) => {
        const bytes = jsonBytes(value);
        return { bytes, tokens: estimateTokens(bytes) };
      },
      passthrough: {
        directory: pool,
        routes,
        upstreamSubscriptions,
        // Read at each use, so servers added by a reload are routed too.
        get naming() {
          const now = opened.config();
          return { ...now.naming, prefixes: serverPrefixes(Object.keys(now.mcpServers), now.naming.separator) };
        },
        prefixed: (server) => opened.config().mcpServers[server]?.prefix !== false,
      },
      settings: sessionSettings(now),
    };
  };
  const makeSession = (id: string, view: string | undefined, maxResultBytes?: number): GatewaySession => {
    const session = new GatewaySession({ id, ...sessionOptions(view, maxResultBytes) });
    sessions.set(id, session);
    return session;
  };
  // TOOLSHELF_MAX_SESSIONS caps modern listen streams as it caps legacy sessions (each holds a socket).
  const modernFor = (view: string | undefined): ModernFront => {
    let front = modernFronts.get(view);
    if (!front) {
      front = createModernFront(() => sessionOptions(view, options.http ? undefined : MAX_STDIO_RESULT_BYTES), maxSessionsFromEnv(process.env));
      modernFronts.set(view, front);
    }
    return front;
  };

  const dashboard: DashboardSource = {
    activity,
    state: () =>
      dashboardState({
        version: options.version,
        config: opened.config(),
        shelf: opened.current(),
        summary: opened.summary(),
        upstreams: pool.summary(),
        viewShelf: (name) => opened.view(name),
        pins: (server) => opened.pins(server),
        clients: [...sessions.values()].map((s) => ({ session: s.id, ...(s.clientName ? { name: s.clientName } : {}), promoted: s.promotedTools })),
      }),
    search: (query, limit, view) => {
      if (view !== undefined && !Object.hasOwn(opened.config().views, view)) return undefined;
      return playgroundSearch(view === undefined ? opened.current() : opened.view(view), query, limit);
    },
    approve: (server, tools, decision) => {
      let outcome;
      try {
        outcome = decision === 'reject' ? opened.reject(server, tools) : opened.approve(server, tools);
      } catch (error) {
        return { error: `cannot write the pins of "${server}": ${(error as Error).message}` };
      }
      if (outcome === undefined) return { error: 'this toolshelf keeps no pins it may write (trust is checked in memory only)' };
      if (outcome.kind === 'approved') {
        const done = decision === 'reject' ? 'rejected' : 'approved';
        logger.info(`${done} on the dashboard: ${[...outcome.approval.approved.map((t) => `${server} ${t}`), ...(outcome.approval.instructions ? [`${server} instructions`] : [])].join(', ')}`);
        return { approved: outcome.approval.approved, instructions: outcome.approval.instructions };
      }
      if (outcome.kind === 'nothing_held') return { error: `nothing of "${server}" is held for review` };
      if (outcome.kind === 'not_held') return { error: `not held for review: ${outcome.notHeld.join(', ')}` };
      return { error: `the pins of "${server}" kept changing meanwhile; try again` };
    },
    signIn: (server) => {
      const started = pool.signInNow(server);
      void started?.then((ok) => logger.info(`upstream "${server}": the sign-in asked for on the dashboard ${ok ? 'succeeded' : 'did not succeed'}`));
      return started !== undefined;
    },
  };
  // A random cookie name per process: cookies are not kept apart by port, and sessions end with the process.
  const cookieName = `toolshelf_ui_${randomBytes(4).toString('hex')}`;
  // The shared instance's page (toolshelf ui): on a loopback port of its own, opened on first request.
  let dashboardServer: Promise<DashboardServer | undefined> | undefined;
  const uiAccess = new DashboardAccess(true, cookieName);
  const openDashboard = async (): Promise<string> => {
    dashboardServer ??= import('./dashboard/serve.js').then(({ serveDashboard }) => serveDashboard(dashboardRoutes({ source: dashboard, access: uiAccess, logger }), logger));
    const served = await dashboardServer;
    if (!served) throw new Error('the dashboard is closed');
    return `${served.origin}/ui/login?code=${uiAccess.mintLoginCode()}`;
  };
  // The last `toolshelf ui` ended (Ctrl-C): its port closes and its sign-ins end with it (docs/dashboard.md).
  const closeDashboard = async (): Promise<void> => {
    const served = dashboardServer;
    dashboardServer = undefined;
    uiAccess.endSessions();
    await (await served)?.close();
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let front: HttpFront | SocketFront | undefined;
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    shuttingDown ??= (async () => {
      watch?.close();
      await front?.close();
      await Promise.all([...modernFronts.values()].map((f) => f.close()));
      await Promise.all([...sessions.values()].map((s) => s.close().catch(() => undefined)));
      await (await dashboardServer)?.close();
      await opened.close();
      await trace.close();
      resolveClosed();
    })();
    return shuttingDown;
  };

  if (options.http) {
    const { host, port } = options.http;
    const maxSessions = maxSessionsFromEnv(process.env);
    const maxConnectionsPerPeer = maxConnectionsPerPeerFromEnv(process.env);
    front = await serveHttp({
      host,
      port,
      ...(maxSessions !== undefined ? { maxSessions } : {}),
      ...(maxConnectionsPerPeer !== undefined ? { maxConnectionsPerPeer } : {}),
      ...(options.token ? { token: options.token } : {}),
      logger,
      createSession: (id, view) => makeSession(id, view),
      views: () => Object.keys(opened.config().views),
      onSessionClosed: (id) => sessions.delete(id),
      modern: (req, res, body, view, backlog) => modernFor(view).serveHttp(req, res, body, backlog),
      dashboard: dashboardRoutes({ source: dashboard, access: new DashboardAccess(options.token !== undefined, cookieName), logger, ...(options.token ? { token: options.token } : {}) }),
    }).catch(async (error: NodeJS.ErrnoException) => {
      watch?.close();
      await opened.close();
      const why = error.code === 'EADDRINUSE' ? 'the port is in use (pick another with --http PORT)' : error.message;
      throw new StartupError(`cannot listen on ${host}:${port}: ${why}`);
    });
  } else if (options.socket) {
    const { serveSocket } = await import('./gateway/fronts/socketFront.js');
    front = await serveSocket({
      path: options.socket.path,
      logger,
      idleExitMs: options.socket.idleExitMs,
      createSession: (id, maxResultBytes, view) => makeSession(id, view, maxResultBytes),
      onSessionClosed: (id) => {
        void sessions.get(id)?.close().catch(() => undefined);
        sessions.delete(id);
      },
      onIdle: () => {
        logger.info(`no client for ${options.socket?.idleExitMs} ms; the shared instance ends`);
        void shutdown();
      },
      modern: (view) => modernFor(view).stdioConnection(),
      openDashboard,
      closeDashboard,
    }).catch(async (error: Error) => {
      watch?.close();
      await opened.close();
      throw new StartupError(`cannot listen on ${options.socket?.path}: ${error.message}`);
    });
  } else {
    await serveStdio(makeSession('stdio', options.view, MAX_STDIO_RESULT_BYTES), () => void shutdown(), () => modernFor(options.view).stdioConnection());
  }
  setTimeout(openGate, CACHED_START_DELAY_MS).unref();
  const started = opened.pool.startsEnded().then(() => (shuttingDown ? undefined : opened.summary()));
  return { ...(front && 'url' in front ? { url: front.url } : {}), summary: opened.summary(), started, shutdown, closed };
}

/** Whether view `view` of `config` may hold server `server`'s tools (no view: every server; a view the config no longer has: none). */
function viewHasServer(config: Config, view: string | undefined, server: string): boolean {
  if (view === undefined) return true;
  const settings = Object.hasOwn(config.views, view) ? config.views[view] : undefined;
  return settings !== undefined && (settings.servers === undefined || settings.servers.includes(server));
}

/**
 * `sink`, acting when a tools/list has been answered (its `tools_advertised` event): the o200k
 * tokenizer's worker, which fitted the manifests of that answer, ends (discovery/o200k.ts
 * `releaseTokenizer`), and once it has, `semantic` starts (the first time), so the model's load and
 * the first embeddings never compete with the start or the first list, nor share the process with
 * the tokenizer (docs/performance.md, "Memory").
 */
function afterEachList(sink: TraceSink, semantic: SemanticEngine | undefined): TraceSink {
  return {
    record(event) {
      sink.record(event);
      if (event.event !== 'tools_advertised') return;
      const released = releaseTokenizer();
      if (semantic) void released.then(() => semantic.start());
    },
    close: () => sink.close(),
  };
}

/**
 * Admission against the canonical schema with one warning per tool whose schema ajv cannot compile
 * (docs/tools.md). Under `prepare.strict`, nulls the model sent for optional properties (advertised as
 * required-and-nullable) are removed first, so the canonical schema and the upstream never see them.
 */
function admitter(config: () => Config, admission: Admission, logger: Logger): Admit {
  return (entry, args) => {
    const forwarded = schemaOptionsFor(config(), entry.server).prepare.strict ? dropNullOptionals(entry.canonicalSchema, args) : args;
    const verdict = admission.check(entry.qualifiedName, entry.canonicalSchema, forwarded);
    if (verdict.ok && verdict.warning) logger.warn(verdict.warning);
    // The verdict quotes the canonical schema's enum values and names: cleaned like all upstream text.
    return verdict.ok ? { ok: true, args: forwarded } : { ok: false, text: cleanText(verdict.text).text };
  };
}

/**
 * The output check (schema/output.ts) with one warning per tool whose result broke the outputSchema
 * the client was given: the client gets the content and a note, the log says which tool.
 */
function outputChecker(check: OutputCheck, logger: Logger): CheckOutput {
  const warned = new Set<string>();
  return (entry, result) => {
    const verdict = check.check(entry.projected.fields.outputSchema, result);
    if (verdict.ok) return result;
    if (!warned.has(entry.qualifiedName)) {
      warned.add(entry.qualifiedName);
      logger.warn(printableLine(`${entry.qualifiedName}: ${verdict.mismatch}; forwarded as an isError with its content and a note (logged once per tool)`, 500));
    }
    return verdict.result as CallToolResult;
  };
}

/**
 * Watches the config file and applies each valid edit to `opened`; a file that
 * fails validation is refused with every problem listed on stderr, and the running config kept.
 */
async function watchForReload(file: { path: string; text: string }, opened: OpenShelf, logger: Logger, announce: (level: 'info' | 'warn' | 'error', lines: readonly string[]) => void): Promise<ConfigWatch> {
  const { watchConfig } = await import('./config/watch.js');
  // Each outcome is logged and announced (to a shared instance's clients, where the latest replaces the one before, and to the dashboard).
  const tell = (level: 'info' | 'warn' | 'error', lines: readonly string[]): void => {
    logger[level](lines.join('\n'));
    announce(level, lines);
  };
  return watchConfig(file.path, file.text, process.env, {
    onValid: async (next) => {
      try {
        const previous = opened.config();
        const touched = await opened.reload(next);
        tell('info', [`config reloaded from ${file.path}${reloadSummary(touched, changedSettings(previous, next, touched))}`]);
      } catch (error) {
        tell('error', [`config ${file.path} refused, the running config is kept: ${(error as Error).message}`]);
      }
    },
    onInvalid: (problems) => {
      tell('error', [`config ${file.path} has ${problems.length} problem(s); the running config is kept:`, ...problems.map(problemLine)]);
    },
    onGone: () => tell('warn', [`config ${file.path} is gone; the running config is kept, and a file saved there again is applied`]),
  });
}
