/**
 * class UpstreamPool: every configured upstream, started in parallel with failures isolated, and one
 * "tools changed" callback for all of them. Knows no catalogue. Start-up waits at most the start
 * timeout for the slowest upstream: `options.startTimeoutMs`, else the environment variable
 * `TOOLSHELF_START_TIMEOUT_MS` (a positive integer, in ms), else 30 s. Source: docs/robustness.md, docs/benchmarks.md.
 *
 * The connection code (and through it the MCP SDK's client package, ~5 MiB of RSS) is imported with
 * the first upstream, so a gateway with no upstreams never loads it (docs/performance.md, "Memory").
 */
import type { UpstreamTool } from '../catalog/types.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../config/defaults.js';
import type { ServerConfig } from '../config/types.js';
import { LONGEST_TIMER_MS } from '../lib/timers.js';
import { stableJson } from '../lib/hash.js';
import type { UpstreamConnection, ConnectionOptions } from './connection.js';
import type { UpstreamAuth } from './types.js';
import { GroupWatchdog } from './watchdog.js';

/** Environment variable that sets the start timeout in ms when the caller passes none. */
export const START_TIMEOUT_ENV = 'TOOLSHELF_START_TIMEOUT_MS';

/**
 * The start timeout from `env[START_TIMEOUT_ENV]`, in ms; undefined when unset or not a positive
 * integer a timer can wait ({@link LONGEST_TIMER_MS}: a longer one would fire at once).
 */
export function startTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = Number(env[START_TIMEOUT_ENV]);
  return Number.isSafeInteger(value) && value > 0 && value <= LONGEST_TIMER_MS ? value : undefined;
}
import type { CallOptions, CallOutcome } from './types.js';

/** Per-upstream state for summaries. */
export interface UpstreamSummary {
  readonly key: string;
  readonly status: UpstreamConnection['status'];
  readonly tools: number;
  readonly error?: string;
  /** The protocol era it speaks, once known: `legacy` (2025 revisions) or `modern` (2026-07-28). */
  readonly era?: 'legacy' | 'modern';
  /** Starts on first use and stops when idle. */
  readonly lazy: boolean;
}

/** Which servers a reload touched, by key. */
export interface Reconciled {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Entries whose upstream part changed: restarted. */
  readonly restarted: readonly string[];
}

/**
 * The part of an entry that decides the upstream process or connection: everything but the
 * catalogue's own keys (exposure, per-tool rules, prefix, schemas), which a shelf rebuild applies,
 * and toolshelf's own limits (timeouts, instructions budget, lazy start and idle stop), which the
 * connection reads at each use. Raising `timeoutMs` restarted the upstream and lost its state (an
 * open browser, an in-memory store).
 */
function upstreamPart(server: ServerConfig): string {
  const { exposure: _e, tools: _t, prefix: _p, schemas: _s, timeoutMs: _to, maxTotalMs: _mt, startTimeoutMs: _st, instructionsBytes: _ib, lazy: _l, idleStopMs: _is, ...rest } = server;
  return stableJson(rest);
}

/**
 * The pool's options: each connection's, where the sign-in services may instead be given by
 * `loadAuth`, called with the first upstream (auth/ loads the SDK's client package too).
 */
export interface PoolOptions extends ConnectionOptions {
  readonly loadAuth?: () => Promise<UpstreamAuth>;
}

/** What makes an upstream's connection: the class, once its module is imported. */
type ConnectionClass = typeof UpstreamConnection;

/** Every configured upstream by server key; satisfies the gateway's `UpstreamCaller`. */
export class UpstreamPool {
  private connections = new Map<string, UpstreamConnection>();
  /** Set by close(): nothing starts after it. */
  private closed = false;
  /** Connections a reload removed or replaced, ending once their calls end. */
  private readonly retiring = new Set<UpstreamConnection>();
  private options: ConnectionOptions;
  private readonly loadAuth: PoolOptions['loadAuth'];
  /** Ends the stdio upstreams' process groups if this process dies without closing the pool. */
  private readonly watchdog: GroupWatchdog | undefined;
  /** The connection class, imported with the first upstream ({@link connectionClass}). */
  private connectionModule: Promise<ConnectionClass> | undefined;

  /**
   * A pool of `servers`, each connection made (not yet opened). `options.groups`, when given,
   * replaces the pool's own {@link GroupWatchdog}. Imports the connection code only when `servers`
   * is not empty.
   */
  static async open(servers: Readonly<Record<string, ServerConfig>>, options: PoolOptions): Promise<UpstreamPool> {
    const pool = new UpstreamPool(options);
    if (Object.keys(servers).length === 0) return pool;
    const Connection = await pool.connectionClass();
    for (const [key, server] of Object.entries(servers)) {
      pool.connections.set(key, new Connection(key, server, pool.options));
    }
    return pool;
  }

  private constructor(options: PoolOptions) {
    const { loadAuth, ...rest } = options;
    const startTimeoutMs = rest.startTimeoutMs ?? startTimeoutFromEnv(process.env);
    if (!rest.groups) this.watchdog = new GroupWatchdog((message) => rest.logger.warn(message));
    const groups = rest.groups ?? this.watchdog;
    this.options = { ...rest, ...(startTimeoutMs !== undefined ? { startTimeoutMs } : {}), ...(groups ? { groups } : {}) };
    this.loadAuth = loadAuth;
  }

  /** The connection class, its module (and `loadAuth`'s services) imported on the first call. */
  private connectionClass(): Promise<ConnectionClass> {
    this.connectionModule ??= Promise.all([import('./connection.js'), this.loadAuth?.()]).then(([{ UpstreamConnection }, auth]) => {
      if (auth) this.options = { ...this.options, auth };
      return UpstreamConnection;
    });
    return this.connectionModule;
  }

  /**
   * Opens every upstream at once (see {@link UpstreamConnection.open}: one with a cached listing is
   * served from it at once); resolves when each uncached one is ready or has failed, by the start
   * timeout at the latest, or at once after close(). Never rejects. An upstream that comes up later
   * (on a retry, or behind a cached listing) is announced with `onToolsChanged`. `gate`: eager
   * upstreams served from the cache start once it resolves ({@link UpstreamConnection.open}).
   */
  async start(gate?: Promise<void>): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.open(gate)));
  }

  /**
   * Resolves once every start under way now has ended (ready or failed): those {@link start} left
   * running in the background (an eager upstream served from the cached catalogue). Never rejects.
   */
  async startsEnded(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.startEnded()));
  }

  /**
   * Applies a reloaded config's servers: ends removed ones, restarts those whose
   * upstream part changed, opens added ones (in the background; `onToolsChanged` announces them),
   * and leaves the rest running. Order follows `servers`. A removed or replaced upstream ends once the
   * calls under way on it have ended, at most its call timeout later (`timeoutMs`, else
   * {@link DEFAULT_CALL_TIMEOUT_MS}); a replacement starts after it ended (two copies of one server
   * may contend for its files or port), and calls meanwhile wait for the replacement. Resolves once
   * removed and replaced upstreams have ended. After close() it changes nothing.
   */
  async reconcile(servers: Readonly<Record<string, ServerConfig>>): Promise<Reconciled> {
    // A reload that comes after close() (one queued behind another while the gateway shut down) starts nothing.
    if (this.closed) return { added: [], removed: [], restarted: [] };
    // Loaded whenever there is a server, so the steps below run without a pause between them.
    const Connection = Object.keys(servers).length > 0 ? await this.connectionClass() : undefined;
    if (this.closed) return { added: [], removed: [], restarted: [] };
    const old = this.connections;
    const removed = [...old.keys()].filter((key) => !Object.hasOwn(servers, key));
    const added: string[] = [];
    const restarted: string[] = [];
    const next = new Map<string, UpstreamConnection>();
    const fresh: UpstreamConnection[] = [];
    for (const [key, server] of Object.entries(servers)) {
      const existing = old.get(key);
      if (existing && upstreamPart(existing.server) === upstreamPart(server)) {
        existing.reconfigure(server);
        next.set(key, existing);
        continue;
      }
      (existing ? restarted : added).push(key);
      const connection = new Connection!(key, server, this.options);
      next.set(key, connection);
      fresh.push(connection);
    }
    this.connections = next;
    const ended = new Map([...removed, ...restarted].map((key) => [key, this.retire(old.get(key)!)]));
    for (const connection of fresh) connection.openAfter(ended.get(connection.key) ?? Promise.resolve());
    await Promise.all(ended.values());
    return { added, removed, restarted };
  }

  /** Ends `connection` once its calls have ended ({@link reconcile}), tracked meanwhile so close() and killNow() reach it. */
  private async retire(connection: UpstreamConnection): Promise<void> {
    this.retiring.add(connection);
    try {
      await connection.retire(connection.server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
    } finally {
      this.retiring.delete(connection);
    }
  }

  /** Starts upstream `server` if it is idle (a search found its tools); unknown keys are ignored. */
  warm(server: string): void {
    this.connections.get(server)?.warm();
  }

  /** Each server key with its last-listed tools (empty for one that never came up). */
  toolsByServer(): Map<string, readonly UpstreamTool[]> {
    return new Map([...this.connections].map(([key, c]) => [key, c.tools]));
  }

  /** Each server key with its last-listed tools, its `instructions`, and whether they were listed live or are the cache's (trust/judge.ts). */
  listings(): Map<string, { readonly tools: readonly UpstreamTool[]; readonly instructions?: string; readonly source: 'live' | 'cache' }> {
    return new Map([...this.connections].map(([key, c]) => [key, { tools: c.tools, ...(c.instructions ? { instructions: c.instructions } : {}), source: c.listingSource }]));
  }

  /** Each server key with the `instructions` its last initialize gave, for those that gave any. */
  instructionsByServer(): Map<string, string> {
    return new Map([...this.connections].flatMap(([key, c]) => (c.instructions ? [[key, c.instructions] as [string, string]] : [])));
  }

  /** Status of every upstream, in config order. */
  summary(): UpstreamSummary[] {
    return [...this.connections.values()].map((c) => ({
      key: c.key,
      status: c.status,
      tools: c.tools.length,
      ...(c.status === 'ready' ? {} : { error: c.lastError }),
      ...(c.era ? { era: c.era } : {}),
      lazy: c.lazy,
    }));
  }

  /** Begins the browser sign-in of `server` when it waits for one (UpstreamConnection.signInNow); undefined when it does not. */
  signInNow(server: string): Promise<boolean> | undefined {
    return this.connections.get(server)?.signInNow();
  }

  /** Calls `tool` on upstream `server`; an unknown server key is reported as unavailable. */
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome> {
    const connection = this.connections.get(server);
    if (!connection) return Promise.resolve({ kind: 'unavailable', reason: `no upstream named "${server}"` });
    return connection.callTool(tool, args, options);
  }

  /** Capabilities of every ready upstream, in config order (for resources/prompts pass-through). */
  capabilities(): [string, Record<string, unknown>][] {
    return [...this.connections.values()].flatMap((c) => (c.capabilities ? [[c.key, c.capabilities] as [string, Record<string, unknown>]] : []));
  }

  /** Sends a request to upstream `server`; an unknown key is an error value, never a throw. */
  request(
    server: string,
    method: string,
    params: Record<string, unknown> | undefined,
    options?: Parameters<UpstreamConnection['request']>[2],
  ): ReturnType<UpstreamConnection['request']> {
    const connection = this.connections.get(server);
    if (!connection) return Promise.resolve({ ok: false, error: { code: -32602, message: `no upstream named "${server}"` } });
    return connection.request(method, params, options);
  }

  /** Synchronously SIGKILLs every stdio upstream's process group (for `process.on('exit')`). */
  killNow(): void {
    for (const c of [...this.connections.values(), ...this.retiring]) c.killNow();
  }

  /** Ends every upstream in parallel, then lets the watchdog exit. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.connections.values(), ...this.retiring].map((c) => c.close()));
    this.watchdog?.close();
  }
}
