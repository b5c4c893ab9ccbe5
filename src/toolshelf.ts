/**
 * Composition root: config → upstream pool → shelf (catalogue, index, manifest) → downstream
 * transports. Rebuilds the shelf when an upstream's tools change, and shuts everything down.
 * Source: DESIGN §2, §9, §11.
 */
import { serverPrefixes } from './catalog/naming.js';
import { DEFAULT_INSTRUCTIONS_BYTES, schemaOptionsFor } from './config/defaults.js';
import type { Config } from './config/types.js';
import type { HttpFront } from './gateway/http.js';
import type { ModernFront } from './gateway/modern/front.js';
import type { SharedRoutes } from './gateway/passthrough.js';
import type { GatewaySession, SessionOptions } from './gateway/session.js';
import type { Admit } from './gateway/types.js';
import { openShelf, StartupError } from './openShelf.js';
import type { Admission } from './schema/admit.js';
import { estimateTokens, jsonBytes } from './schema/measure.js';
import { dropNullOptionals } from './schema/prepare.js';
import type { StartSummary } from './summary.js';
import type { TraceSink } from './trace/events.js';
import type { Logger } from './trace/log.js';

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

/** Starts upstreams in parallel, builds the shelf, and serves. Throws {@link StartupError} on refusal. */
export async function startToolshelf(options: StartOptions): Promise<Running> {
  const { config, logger } = options;
  const sessions = new Map<string, GatewaySession>();
  // Modern (2026-07-28) clients: no sessions; set once the serving code is loaded (issue #9).
  let modern: ModernFront | undefined;
  // The serving code loads while the upstreams start (DESIGN §13 start-up).
  const serving = Promise.all([
    import('./gateway/session.js'),
    import('./gateway/http.js'),
    import('./gateway/stdio.js'),
    import('./schema/admit.js'),
    import('./gateway/instructions.js'),
    import('./gateway/modern/front.js'),
  ]);
  const opened = await openShelf(config, logger, options.version, {
    onRebuilt: () => {
      for (const session of sessions.values()) session.catalogueChanged();
      modern?.catalogueChanged();
    },
    onNotification: (server, notification) => {
      for (const session of sessions.values()) session.forwardNotification(server, notification);
      modern?.forwardNotification(server, notification);
    },
    // The connection has already decided which client's call the request belongs to (issue #8 point 2).
    onServerRequest: (_server, method, params, signal, origin) => origin.ask(method, params, signal),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const routes: SharedRoutes = { resources: new Map(), prompts: new Map(), templates: [] };
  const { pool } = opened;
  const [{ GatewaySession }, { serveHttp, maxSessionsFromEnv }, { serveStdio, MAX_STDIO_RESULT_BYTES }, { Admission }, { gatewayInstructions, upstreamInstructions }, { createModernFront }] =
    await serving;
  const admit = admitter(config, new Admission(), logger);
  // Upstreams ready now pass on their instructions; a legacy client reads them once, at initialize (issue #8 point 10).
  const instructions = (): string => {
    const budgetOf = (server: string): number => config.mcpServers[server]?.instructionsBytes ?? DEFAULT_INSTRUCTIONS_BYTES;
    return gatewayInstructions(upstreamInstructions(pool.instructionsByServer(), opened.current().catalogue.counts, budgetOf));
  };
  const sessionOptions = (maxResultBytes?: number): Omit<SessionOptions, 'id'> => ({
    ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
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
    passthrough: { directory: pool, routes, naming: { ...config.naming, prefixes: serverPrefixes(Object.keys(config.mcpServers), config.naming.separator) }, prefixed: (server) => config.mcpServers[server]?.prefix !== false },
    settings: {
      discoveryEnabled: config.discovery.enabled,
      defaultLimit: config.discovery.defaultLimit,
      maxLimit: config.discovery.maxLimit,
      captureToolIo: config.trace.captureToolIo,
      callTool: config.bridge.callTool,
      discoveryMode: config.discovery.mode,
      alwaysLoad: config.discovery.alwaysLoad,
    },
  });
  const makeSession = (id: string, maxResultBytes?: number): GatewaySession => {
    const session = new GatewaySession({ id, instructions: instructions(), ...sessionOptions(maxResultBytes) });
    sessions.set(id, session);
    return session;
  };
  const front = createModernFront({ ...sessionOptions(options.http ? undefined : MAX_STDIO_RESULT_BYTES), instructions });
  modern = front;

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let httpFront: HttpFront | undefined;
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    shuttingDown ??= (async () => {
      await httpFront?.close();
      await front.close();
      await Promise.all([...sessions.values()].map((s) => s.close().catch(() => undefined)));
      await opened.close();
      await options.trace.close();
      resolveClosed();
    })();
    return shuttingDown;
  };

  if (options.http) {
    const { host, port } = options.http;
    const maxSessions = maxSessionsFromEnv(process.env);
    httpFront = await serveHttp({
      host,
      port,
      ...(maxSessions !== undefined ? { maxSessions } : {}),
      ...(options.token ? { token: options.token } : {}),
      logger,
      createSession: makeSession,
      onSessionClosed: (id) => sessions.delete(id),
      modern: (req, res, body) => front.serveHttp(req, res, body),
    }).catch(async (error: NodeJS.ErrnoException) => {
      await opened.close();
      const why = error.code === 'EADDRINUSE' ? 'the port is in use (pick another with --http PORT)' : error.message;
      throw new StartupError(`cannot listen on ${host}:${port}: ${why}`);
    });
  } else {
    serveStdio(makeSession('stdio', MAX_STDIO_RESULT_BYTES), () => void shutdown(), () => front.stdioServer());
  }
  return { ...(httpFront ? { url: httpFront.url } : {}), summary: opened.summary(), shutdown, closed };
}

/**
 * Admission against the canonical schema with one warning per tool whose schema ajv cannot compile
 * (DESIGN §7). Under `prepare.strict`, nulls the model sent for optional properties (advertised as
 * required-and-nullable) are removed first, so the canonical schema and the upstream never see them.
 */
function admitter(config: Config, admission: Admission, logger: Logger): Admit {
  return (entry, args) => {
    const forwarded = schemaOptionsFor(config, entry.server).prepare.strict ? dropNullOptionals(entry.tool.inputSchema, args) : args;
    const verdict = admission.check(entry.qualifiedName, entry.tool.inputSchema, forwarded);
    if (verdict.ok && verdict.warning) logger.warn(verdict.warning);
    return verdict.ok ? { ok: true, args: forwarded } : { ok: false, text: verdict.text };
  };
}
