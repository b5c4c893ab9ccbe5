/**
 * class UpstreamConnection: one upstream MCP server seen as a client. Owns the SDK Client and the I/O
 * of its lifecycle: start-up within a time limit (whatever hangs), restarts with backoff after a
 * crash or a failed start, reconnection when a remote session expires, the rate limit on its other
 * notifications, and close. Which state follows which event is decided by lifecycle.ts alone (its
 * diagram: docs/robustness.md, "The connection's lifecycle"); this class does what each state asks.
 * Leaves the per-call machinery (timeout, total cap, cancellation, progress, outcomes) to calls.ts,
 * the listing and throttled re-list on `notifications/tools/list_changed` to relist.ts, the client's
 * construction with the sampling/elicitation relay to relay.ts, and which client's call such a
 * request belongs to to callRouting.ts (the connection tracks its calls there and connects outside
 * any call). Knows no qualified names or exposure. An upstream failure never escapes it: calls
 * resolve to a {@link CallOutcome}. Timers use the global clock, so tests drive them with fake timers
 * (test/upstream/connection.test.ts, connection.faults.test.ts).
 */
import { ProtocolErrorCode, SdkErrorCode, SdkError } from '@modelcontextprotocol/client';
import type { Client, PriorDiscovery, Transport } from '@modelcontextprotocol/client';
import type { UpstreamTool } from '../catalog/types.js';
import { isRemote, type ServerConfig } from '../config/types.js';
import type { Logger } from '../trace/log.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { msUntilRetry, nextState, PENDING, startsOnUse, statusOf, type Lifecycle, type LifecycleEvent, type Transition } from './lifecycle.js';
import { argumentValues, describeFailure, isUnreachable, secretValues, withoutSecrets, withoutSecretsInTools, withoutSplitSecrets } from './failure.js';
import { directTransport, sendDirectToolCall } from './directCall.js';
import { EXPIRED_AGAIN, LEGACY_REQUEST_TIMEOUT, sendRequest, sendToolCall, SESSION_EXPIRED, type CallContext, type RequestOutcome } from './calls.js';
import { CallRouter, outsideCalls, type Owner } from './callRouting.js';
import { NotificationGate, type UpstreamNotification } from './notificationGate.js';
import { shownAnswer, shownResult, shownValue } from '../lib/shownText.js';
import { signInFailure } from './outcome.js';
import { newUpstreamClient, type ServerRequestRelay } from './relay.js';
import { changedSince, fingerprint, Relister } from './relist.js';
import { cachedVerdict, type ListingStore } from './listingCache.js';
import { isStdioShaped, listenForChanges, negotiationFor, priorFor, probeEndedChild, verdictOf } from './era.js';
import { serverChanged, stampNow, type EraVerdict, type VerdictStamp } from './eraVerdict.js';
import { ResourceSubscriptions } from './resourceSubscriptions.js';
import { SignInGate } from './signIn.js';
import { StderrTail } from './stderrTail.js';
import { IdleStop } from './idleStop.js';
import type { ChildStdioTransport } from './stdioTransport.js';
import { transportsFor, type TransportFactory } from './transport.js';
import type { CallOptions, CallOutcome, RequestOrigin, UpstreamAuth, UpstreamStatus } from './types.js';
import type { GroupRegistry } from './watchdog.js';
import { cleanedWarning, cleanText, removedTotal } from '../trust/clean.js';
import { counted } from '../lib/plural.js';

/** Characters of one upstream stderr line written to the debug log. */
const MAX_STDERR_LOG_CHARS = 2000;
/** Longest wait for the process or connection, `initialize` and the whole first `tools/list`, in ms. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** Construction options. `random`, `backoff` and `transports` are injectable for tests. */
export interface ConnectionOptions {
  /** Folder relative stdio `cwd`s resolve against. */
  readonly baseDir: string;
  readonly logger: Logger;
  /** toolshelf's version, sent as clientInfo. */
  readonly version: string;
  /**
   * Called after the tool list changed: the first listing (which may complete after a caller that
   * stopped waiting built its view), a re-list after list_changed, a restart or a reconnection.
   */
  readonly onToolsChanged: (key: string) => void;
  /**
   * Every other notification from the upstream (resources, prompts, logging), for pass-through,
   * rate-limited per upstream by a {@link NotificationGate}.
   */
  readonly onNotification?: (key: string, notification: { method: string; params?: Record<string, unknown> }) => void;
  /**
   * Answers the upstream's requests meant for the client (sampling/createMessage, elicitation/create).
   * When given, toolshelf declares those capabilities to the upstream; when absent it declares none
   * (only capabilities really forwarded are advertised: docs/tools.md, "Sampling, elicitation and roots").
   */
  readonly onServerRequest?: ServerRequestRelay;
  /** Start-up time limit in ms (default {@link DEFAULT_START_TIMEOUT_MS}). */
  readonly startTimeoutMs?: number;
  readonly backoff?: BackoffOptions;
  /**
   * False for a one-shot command (`inspect`, `search`): a failed start is reported and never retried,
   * and its message says nothing of retries (default true).
   */
  readonly retry?: boolean;
  /** Jitter source in [0, 1) (default Math.random). */
  readonly random?: () => number;
  /** How to reach the server (default: {@link transportsFor} `baseDir` and `groups`). */
  readonly transports?: TransportFactory;
  /** The catalogue cache: read at construction, written after every listing (docs/operations.md, "The state folder"). */
  readonly cache?: ListingStore;
  /**
   * The config's defaults for a server's `lazy` and `idleStopMs` (ms; 0 never stops), read at each
   * use so a reloaded config applies to running upstreams (default: eager).
   */
  readonly lazyDefaults?: () => { readonly lazy: boolean; readonly idleStopMs: number };
  /** OAuth sign-in for remote upstreams (docs/sign-in.md); without it remote servers get only their `headers`. */
  readonly auth?: UpstreamAuth;
  /** Told of every stdio process group, so the groups end even if the gateway is killed (set by the pool). */
  readonly groups?: GroupRegistry;
}

/** One upstream server: its tools as last listed, its status, and calls that never reject. One per server entry, held by the pool. */
export class UpstreamConnection {
  /** The upstream's tools as last listed, verbatim. Kept while the upstream is down. */
  tools: readonly UpstreamTool[] = [];
  /** Where the connection is in its life; changed only by {@link move} (lifecycle.ts). */
  private state: Lifecycle = PENDING;
  /** Why the upstream last failed, for messages and summaries; kept once it is up again (read only while it is not). */
  lastError = '';
  /** The `instructions` of the upstream's last initialize result, if any, cleaned (`trust/clean.ts`). Kept while it is down. */
  instructions: string | undefined;
  /** The instructions as last received, so a restart with the same text warns about them once. */
  private rawInstructions: string | undefined;
  /** The cause last logged as a warning or error; the same cause again is logged at debug. */
  private lastWarned: string | undefined;
  private client: Client | undefined;
  private transport: Transport | undefined;
  /** Transports being ended in the background, awaited by close(). */
  private readonly ending = new Map<Transport, Promise<void>>();
  /** The restart of the `retrying` state, armed on entering it and cleared on leaving it ({@link move}). */
  private retryTimer: NodeJS.Timeout | undefined;
  private renewing: Promise<Client | undefined> | undefined;
  /** Counts start attempts; a step of an abandoned attempt (timed out, closed) sees a newer number and changes nothing. */
  private generation = 0;
  /** Ends the start in progress at once (for close()). */
  private abandonStart: ((reason: Error) => void) | undefined;
  private readonly stderrTail = new StderrTail();
  /** Requests waiting on this upstream for a client, to route its sampling and elicitation (docs/tools.md, "Sampling, elicitation and roots"). */
  private readonly calls: CallRouter;
  /** The gateway's relay of this upstream's requests to clients, each counted as its client's turn (undefined: none relayed). */
  private readonly relay: ServerRequestRelay | undefined;
  private readonly notifications: NotificationGate | undefined;
  private readonly relister: Relister;
  /** Capabilities from the cache, reported while the upstream is stopped. */
  private cachedCapabilities: Record<string, unknown> | undefined;
  /** The protocol era this upstream speaks, from the cache or the last connect (docs/protocol-eras.md, "Upstreams of either era"). */
  private verdict: EraVerdict | undefined;
  /** When {@link verdict} was probed and the server's name and version then (it expires: docs/protocol-eras.md). */
  private stamp: VerdictStamp | undefined;
  /** The resource URIs subscribed for clients, kept across restarts (a modern upstream: one listen stream; docs/tools.md, "Resource subscriptions and log messages"). */
  private readonly resources = new ResourceSubscriptions(
    () => (this.state.kind === 'ready' ? this.client : undefined),
    (error) => this.options.logger.debug(`upstream "${this.key}": subscribing resources again: ${this.said(error)}`),
  );
  /** Whether the tools came from the cache and no listing has confirmed them yet. */
  private fromCache = false;
  /** Whether {@link tools} came from a listing of this process (not the cache, nor a sign-in's remembered tools). */
  private listedLive = false;
  /** Set by {@link retire}: ending once its calls end, so never restarted. */
  private retiring = false;
  /** The start in progress, awaited by a first use. */
  private starting: Promise<void> | undefined;
  /** Lets a start held by {@link open}'s `gate` begin now (a use, a search, close); undefined once begun. */
  private releaseHeld: (() => void) | undefined;
  /** Calls and requests under way; an idle lazy upstream is stopped only when none is. */
  private readonly idle = new IdleStop({
    idleMs: () => (this.lazy ? this.idleStopMs : 0),
    ready: () => this.state.kind === 'ready',
    stop: () => this.stopIdle(),
  });
  private readonly authProvider: ReturnType<UpstreamAuth['providerFor']>;
  /** The needs-sign-in state of an OAuth upstream (docs/sign-in.md). */
  private readonly signIn: SignInGate | undefined;

  constructor(
    readonly key: string,
    /** The entry; replaced by a reload that changed only keys read at each use ({@link reconfigure}). */
    public server: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    // Only a remote server's Streamable HTTP streams can name the call a request belongs to.
    this.calls = new CallRouter(isRemote(server) && server.transport !== 'sse');
    const relay = options.onServerRequest;
    // The client's answer is its turn: the calls it answers for are not idle meanwhile (callRouting.ts).
    this.relay = relay && ((...args) => this.calls.asking(args[4], () => relay(...args)));
    const forward = options.onNotification;
    if (forward) {
      this.notifications = new NotificationGate(key, ({ origin, ...notification }) =>
        origin?.log ? origin.log(key, notification.params ?? {}) : forward(key, notification),
      );
    }
    this.relister = new Relister({
      key,
      logger: options.logger,
      said: (error) => this.said(error),
      listTimeoutMs: () => this.startTimeoutMs(),
      readyClient: () => (this.state.kind === 'ready' ? this.client : undefined),
      tools: () => this.tools,
      setTools: (tools) => {
        this.tools = this.maskedTools(tools);
        this.saveListing();
      },
      onToolsChanged: () => options.onToolsChanged(key),
    });
    this.authProvider = isRemote(server) ? options.auth?.providerFor(key, server) : undefined;
    if (this.authProvider && options.auth && isRemote(server) && server.auth?.grantType !== 'client_credentials') {
      this.signIn = new SignInGate(key, server, options.auth, options.logger, () => void this.start());
      this.tools = options.auth.lastTools(key, server);
    }
  }

  /**
   * Where {@link tools} came from: `live` once this process listed the upstream, `cache` while they are
   * the catalogue cache's or a sign-in's remembered ones (never a source of trust: docs/security.md).
   */
  get listingSource(): 'live' | 'cache' {
    return this.listedLive ? 'live' : 'cache';
  }

  /** The lifecycle state as inspect, the dashboard, summaries and traces read it (lifecycle.ts `statusOf`). */
  get status(): UpstreamStatus {
    return statusOf(this.state);
  }

  /**
   * Moves the lifecycle on `event` (lifecycle.ts `nextState`) under the policy of the moment: the
   * config's `lazy` is read at each use, and a retiring connection is not retried. The retry timer
   * belongs to the `retrying` state, so leaving that state clears it. A refused event changes nothing.
   */
  private move(event: LifecycleEvent): Transition {
    const step = nextState(this.state, event, { lazy: this.lazy, retry: this.options.retry !== false && !this.retiring, backoff: this.options.backoff ?? DEFAULT_BACKOFF });
    if (!step.ok) return step;
    if (this.state.kind === 'retrying' && step.state !== this.state) clearTimeout(this.retryTimer);
    this.state = step.state;
    return step;
  }

  /** The protocol era this upstream speaks, once a connect or the cache told it. */
  get era(): EraVerdict['era'] | undefined {
    return this.verdict?.era;
  }

  /** Whether this upstream starts on first use and stops when idle (docs/configuration.md, `lazy`). */
  get lazy(): boolean {
    return this.server.lazy ?? this.options.lazyDefaults?.().lazy ?? false;
  }

  /** How long this lazy upstream may stay unused before it is stopped, in ms (0: never). */
  private get idleStopMs(): number {
    return this.server.idleStopMs ?? this.options.lazyDefaults?.().idleStopMs ?? 0;
  }

  /**
   * Begins the upstream's life in the pool. With a cached listing the cached tools are served at
   * once: a lazy upstream stays `idle` (nothing spawned) until first use, an eager one starts in
   * the background, once `gate` resolves when given (status `starting` meanwhile; a use, a search's
   * {@link warm} or close() begin it sooner). Without a cached listing it starts and this resolves as
   * {@link start} does.
   */
  open(gate?: Promise<void>): Promise<void> {
    const cached = this.options.cache?.load(this.key, this.server);
    if (!cached) return this.start();
    // A cache written before a credential was masked in the listing is masked on load.
    this.tools = this.maskedTools(cached.tools);
    this.instructions = this.cleanInstructions(cached.instructions, false);
    this.cachedCapabilities = cached.capabilities;
    this.verdict = cachedVerdict(cached);
    if (this.verdict && cached.eraCheckedAt) this.stamp = { eraCheckedAt: cached.eraCheckedAt, ...(cached.eraServerInfo ? { eraServerInfo: cached.eraServerInfo } : {}) };
    else if (cached.era) this.options.logger.debug(`upstream "${this.key}": the cached ${cached.era} verdict is over 7 days old (or unstamped); probing its era again`);
    this.fromCache = true;
    if (this.lazy) this.move({ type: 'rest' });
    else if (!gate) void this.start();
    else if (this.move({ type: 'hold' }).ok) this.holdStart(gate);
    return Promise.resolve();
  }

  /**
   * Holds an eager upstream's start until `gate` resolves or {@link releaseHeld} is called (a use, a
   * search's {@link warm}, close()). Why the serving gateway holds them: toolshelf.ts
   * `CACHED_START_DELAY_MS`.
   */
  private holdStart(gate: Promise<void>): void {
    const released = new Promise<void>((resolve) => (this.releaseHeld = resolve));
    void gate.then(() => this.releaseHeld?.());
    this.starting = released
      .then(() => {
        this.releaseHeld = undefined;
        return outsideCalls(() => this.startNow());
      })
      .finally(() => (this.starting = undefined));
  }

  /** Resolves when the start under way (if any) has ended, ready or not; never rejects. */
  startEnded(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  /**
   * Waits for the start under way, or starts an `idle` upstream (also one that a start waited for
   * left idle: {@link openAfter} of a lazy entry served from the cache); then the status says how it went.
   */
  private async ensureStarted(): Promise<void> {
    // A start waited for by openAfter may hand over to the start it begins: wait for that one too.
    let waited: Promise<void> | undefined;
    while (this.status === 'starting' && this.starting && this.starting !== waited) {
      waited = this.starting;
      // A start held by open()'s gate begins now: this use needs it.
      this.releaseHeld?.();
      await waited;
    }
    if (startsOnUse(this.state)) await this.start();
  }

  /**
   * Takes an entry a reload changed only in keys read at each use (pool.ts `upstreamPart`), or left
   * as it was while the config's lazy defaults may have changed: an idle upstream that is no longer
   * lazy starts, and the idle time is counted afresh under the new `idleStopMs`.
   */
  reconfigure(server: ServerConfig): void {
    this.server = server;
    if (this.state.kind === 'idle' && !this.lazy) void this.start();
    else this.idle.touch();
  }

  /**
   * {@link open} once `before` resolves (the connection this one replaces has ended: pool.ts
   * reconcile); meanwhile the status is `starting` and a use waits for it rather than being refused.
   */
  openAfter(before: Promise<void>): void {
    const waiting: Promise<void> = before.then(() => {
      this.starting = undefined;
      return this.isClosed() ? undefined : this.open();
    });
    this.starting = waiting;
    // open() may have begun a start of its own, which is `starting` now.
    void waiting.finally(() => {
      if (this.starting === waiting) this.starting = undefined;
    });
  }

  /**
   * Ends this upstream once the calls and requests under way have ended (a config reload replaced or
   * removed its entry), at most `graceMs` later; no new use reaches it (the pool no longer routes to
   * it) and it is not restarted meanwhile. Cutting a call in flight would answer it "the connection
   * closed during the call" (test/e2e/reload.e2e.test.ts).
   */
  async retire(graceMs: number): Promise<void> {
    this.retiring = true;
    this.move({ type: 'retire' });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle.unused(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    await this.close();
  }

  /**
   * Starts an `idle` upstream in the background (a search found its tools, so a call is likely
   * next); does nothing in any other state.
   */
  warm(): void {
    if (startsOnUse(this.state)) void this.start();
    else {
      this.releaseHeld?.();
      this.idle.touch();
    }
  }

  /** Runs `op` with the upstream started (if idle) and counted as in use; idle time counts from the end. */
  private async inUseFor<T>(op: () => Promise<T>): Promise<T> {
    this.idle.begin();
    try {
      await this.ensureStarted();
      return await op();
    } finally {
      this.idle.end();
    }
  }

  /** Stops a lazy upstream nobody used for its idle time; its tools stay served from the last listing. */
  private stopIdle(): void {
    if (!this.move({ type: 'idleStop', now: Date.now() }).ok) return;
    this.options.logger.info(`upstream "${this.key}" stopped after ${this.idleStopMs} ms unused; it starts again on first use`);
    this.cachedCapabilities = this.client?.getServerCapabilities() as Record<string, unknown> | undefined;
    this.endClient();
  }

  /**
   * `text` (initialize instructions, from the upstream or the cache) cleaned and its credentials
   * masked; with `warn`, what was removed is logged once for this text (docs/security.md, "Clean text
   * and fenced instructions").
   */
  private cleanInstructions(text: string | undefined, warn: boolean): string | undefined {
    if (text === undefined) return undefined;
    const cleaned = cleanText(text);
    if (warn && removedTotal(cleaned.removed) > 0 && text !== this.rawInstructions) this.options.logger.warn(cleanedWarning(this.key, 'its instructions', cleaned.removed));
    if (warn) this.rawInstructions = text;
    return withoutSecrets(cleaned.text, this.secretList());
  }

  /** Writes the current listing to the cache (after a start or a re-list). */
  private saveListing(): void {
    const client = this.client;
    const given = client?.getInstructions();
    // Masked as the tools are, a credential split by invisible characters too (cleaned on load, and on
    // arrival before this): the cache must not keep a credential in clear.
    const instructions = given === undefined ? undefined : withoutSplitSecrets(given, this.secretList());
    const capabilities = client?.getServerCapabilities() as Record<string, unknown> | undefined;
    this.fromCache = false;
    this.listedLive = true;
    this.options.cache?.save(this.key, this.server, { tools: this.tools, ...(instructions ? { instructions } : {}), ...(capabilities ? { capabilities } : {}), ...this.verdict, ...(this.verdict ? this.stamp : {}) });
  }

  /** Start timeout in ms: the server's `startTimeoutMs`, else the pool's option, else 30 s. */
  private startTimeoutMs(): number {
    return this.server.startTimeoutMs ?? this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  /**
   * Connects and lists tools within the start timeout, whatever hangs (a process, a remote stream
   * that never opens, a server that never answers). Never rejects: on failure the status is `failed`
   * (never up) or `down` (was up) and a restart is scheduled. A process that did not start in time
   * is ended in the background, so this never waits past the start timeout for it; close() ends it
   * at once. Tools that differ from before (the first listing too) are announced with
   * `onToolsChanged`. A failure with the cause last reported is logged at debug, so one that keeps
   * failing the same way (a missing command, a refused port) is reported once (docs/robustness.md).
   * Runs outside any client call, so nothing it connects is taken for a call's stream.
   */
  start(): Promise<void> {
    this.releaseHeld?.();
    this.starting ??= outsideCalls(() => this.startNow()).finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async startNow(): Promise<void> {
    if (!this.move({ type: 'start' }).ok) return;
    const timeoutMs = this.startTimeoutMs();
    const generation = ++this.generation;
    const before = fingerprint(this.tools);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })), timeoutMs);
        this.abandonStart = reject;
        void this.connect(generation, Date.now() + timeoutMs)
          .then(resolve, reject)
          .finally(() => clearTimeout(timer));
      });
      if (!this.move({ type: 'started', now: Date.now() }).ok) return this.endClient();
      this.resources.resume();
      this.saveListing();
      this.stderrTail.markUp();
      if (this.signIn && isRemote(this.server)) void this.options.auth?.rememberTools(this.key, this.server, this.tools);
      if (changedSince(before, this.tools)) this.options.onToolsChanged(this.key);
      // A list_changed that came while the first listing was in flight is re-listed now (docs/robustness.md).
      this.relister.resume();
      this.idle.touch();
    } catch (error) {
      const was = this.state;
      // Closed meanwhile: nothing to report or retry.
      if (was.kind !== 'starting') return;
      if (this.signIn && signInFailure(error)) return this.needSignIn(true);
      // Each step of a start gets what is left of the start timeout, so any timeout here is that one: named, so it can be raised.
      const failure = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout ? new Error(`did not finish starting within ${timeoutMs / 1000} s (startTimeoutMs)`) : error;
      this.lastError = describeFailure(failure, isRemote(this.server) ? { url: this.server.url } : { stderrQuote: this.stderrTail.quote() });
      const now = Date.now();
      const step = this.move({ type: 'startFailed', wasUp: this.tools.length > 0 && !this.fromCache, now, jitter: this.jitter() });
      const repeated = this.lastError === this.lastWarned;
      const note = repeated || this.options.retry === false || was.backedOff ? '' : ' (retried with backoff; logged again only if the cause changes)';
      this.report(was.failures === 0 ? 'error' : 'warn', `upstream "${this.key}" failed to start: ${this.lastError}${note}`, this.lastError);
      this.endClient();
      this.afterFailure(step, now, repeated);
    } finally {
      // A step of this attempt still under way (after a timeout or close()) now changes nothing.
      this.abandonStart = undefined;
      this.generation += 1;
    }
  }

  /** True while start attempt `generation` is the live one (not timed out, not closed). */
  private isCurrent(generation: number): boolean {
    return generation === this.generation && !this.isClosed();
  }

  /**
   * `error` in words fit for a log line: a remote upstream's URL left out as in its start failure
   * (fetch quotes a URL with credentials whole, user, password, query and all, and debug lines
   * printed them: test/e2e/debugSecrets.e2e.test.ts), a stdio upstream's message as it is.
   */
  private said(error: unknown): string {
    return describeFailure(error, isRemote(this.server) ? { url: this.server.url } : {});
  }

  private async connect(generation: number, deadline: number): Promise<void> {
    const make = this.options.transports ?? transportsFor(this.options.baseDir, this.options.groups);
    let lastError: unknown = new Error('no transport for this server');
    this.stderrTail.clear();
    for (const candidate of make(this.server, (line) => this.onStderr(line), this.authProvider)) {
      if (!this.isCurrent(generation)) break;
      try {
        const client = await this.connectInEra(candidate, generation, deadline);
        client.onclose = () => this.onClosed(client);
        client.onerror = (error) => this.options.logger.debug(`upstream "${this.key}": ${this.said(error)}`);
        // A list_changed on a call's stream must not run the re-list as part of that call.
        client.setNotificationHandler('notifications/tools/list_changed', () => outsideCalls(() => this.relister.schedule()));
        client.fallbackNotificationHandler = async (notification) => {
          const owned = this.withOwner(notification as UpstreamNotification);
          if (owned) this.notifications?.push(owned);
        };
        listenForChanges(client, () => this.client === client, (error) => this.options.logger.debug(`upstream "${this.key}": subscriptions/listen: ${this.said(error)}`));
        const tools = await this.relister.list(client, deadline);
        if (!this.isCurrent(generation)) throw new Error('the start was abandoned');
        this.tools = this.maskedTools(tools);
        this.instructions = this.cleanInstructions(client.getInstructions(), true);
        return;
      } catch (error) {
        lastError = error;
        // A cached verdict may be stale (the server changed era): the next start probes afresh.
        this.verdict = undefined;
        this.stamp = undefined;
        if (!this.isCurrent(generation)) break;
        this.endClient();
        // Credentials are refused whatever the transport, and a host that cannot be reached stays so:
        // trying SSE would only ask again, or quote its own failure instead of the first one.
        if (signInFailure(error) || isUnreachable(error)) break;
        this.options.logger.debug(`upstream "${this.key}": ${this.said(error)}; trying the next transport`);
      }
    }
    throw lastError;
  }

  /**
   * Connects a new Client over `candidate()` in the upstream's era: the cached verdict as `prior`
   * (no probe), else as the entry's `protocol` says (era.ts). A stdio child that exits on the probe
   * is a legacy server: it is spawned once more and connected with `{ kind: 'legacy' }` (docs/protocol-eras.md).
   * Records the verdict. @throws what the connect throws.
   */
  private async connectInEra(candidate: () => Transport, generation: number, deadline: number): Promise<Client> {
    const setting = this.server.protocol;
    const open = async (prior: PriorDiscovery | undefined): Promise<Client> => {
      const transport = candidate();
      const negotiation = negotiationFor(setting, isStdioShaped(transport), this.startTimeoutMs());
      const client = newUpstreamClient(this.key, this.options.version, this.relay, (method) => this.ownerOfRequest(method), negotiation, (text) => withoutSecrets(text, this.secretList()));
      this.client = client;
      this.transport = transport;
      await client.connect(this.transport, { timeout: remaining(deadline), ...(prior ? { prior } : {}) });
      return client;
    };
    const openInEra = async (prior: PriorDiscovery | undefined): Promise<Client> => {
      try {
        return await open(prior);
      } catch (error) {
        if (!probeEndedChild(error) || !this.isCurrent(generation)) throw error;
        this.options.logger.debug(`upstream "${this.key}" exited on the server/discover probe: a legacy server; starting it again`);
        this.endClient();
        return open({ kind: 'legacy' });
      }
    };
    const prior = priorFor(setting, this.verdict);
    let client = await openInEra(prior);
    // A server that now gives another name or version than when its legacy verdict was probed may have
    // gained the 2026-07-28 revision: probe it now rather than in 7 days (docs/protocol-eras.md).
    if (prior?.kind === 'legacy' && serverChanged(this.stamp, client.getServerVersion()) && this.isCurrent(generation)) {
      this.options.logger.debug(`upstream "${this.key}" is now ${client.getServerVersion()?.version}; probing its era again`);
      this.endClient();
      client = await openInEra(priorFor(setting, undefined));
      this.verdict = undefined;
    }
    const verdict = verdictOf(client);
    // A verdict taken from the cache keeps its stamp: its age counts from the probe that made it.
    if (!prior || !this.verdict || verdict?.era !== this.verdict.era) this.stamp = stampNow(client.getServerVersion());
    this.verdict = verdict;
    return client;
  }

  /**
   * Logs `message` at `level` unless `cause` is the one last reported, which goes to debug: a crash
   * loop or a server that keeps failing the same way says so once, not on every retry (docs/robustness.md).
   */
  private report(level: 'error' | 'warn', message: string, cause: string): void {
    this.options.logger[cause === this.lastWarned ? 'debug' : level](message);
    this.lastWarned = cause;
  }

  /** Who the upstream request `method` being handled belongs to (callRouting.ts); a refusal is logged (not a roots/list with no call waiting: relay.ts answers it). */
  private ownerOfRequest(method: string): Owner {
    const owner = this.calls.owner();
    if (!owner.ok && !(owner.idle && method === 'roots/list')) this.options.logger.info(`upstream "${this.key}": refused a request for the client: ${owner.reason}`);
    return owner;
  }

  /**
   * A log message sent during a client's request goes to that client alone (a legacy session, or a
   * modern call's own stream); which request it belongs to is decided as for sampling (callRouting.ts).
   * One sent while no client's request waits is the upstream's own, passed to every legacy session;
   * one that could be either of two clients' is dropped (undefined), as their sampling is refused:
   * passed to every session, one client's call's line would reach the other (test/e2e/modernNotify.e2e.test.ts).
   */
  private withOwner(sent: UpstreamNotification): UpstreamNotification | undefined {
    if (sent.method !== 'notifications/message') return sent;
    const notification = this.shownLog(sent);
    const owner = this.calls.owner();
    if (owner.ok) return owner.origin.log ? { ...notification, origin: owner.origin } : notification;
    return owner.idle ? notification : undefined;
  }

  /**
   * A log message with every string and key of its params {@link shown} (its `logger`, and its `data`
   * whole, text, object or array): a client may show it to a model or print it (docs/security.md,
   * "Results"). One nested too deeply to walk keeps its level and logger, its data left out.
   */
  private shownLog(notification: UpstreamNotification): UpstreamNotification {
    const params = notification.params;
    if (!params) return notification;
    let shownParams: Record<string, unknown>;
    try {
      shownParams = shownValue(params, (text) => this.shown(text), (key) => this.shownKey(key)) as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      shownParams = { level: params.level, ...(typeof params.logger === 'string' ? { logger: this.shown(params.logger) } : {}), data: '(data nested too deeply to be shown)' };
    }
    return shownParams === params ? notification : { ...notification, params: shownParams };
  }

  /** `options` with its progress messages {@link shown}, as a result's text is. */
  private shownProgress(options: CallOptions): CallOptions {
    const onProgress = options.onProgress;
    if (!onProgress) return options;
    return { ...options, onProgress: (update) => onProgress(typeof update.message === 'string' ? { ...update, message: this.shown(update.message) } : update) };
  }

  /** The credentials a stdio upstream could echo on stderr, for the entry they were taken from. */
  private secrets: { readonly of: ServerConfig; readonly values: readonly string[] } | undefined;

  /** The credential values this upstream could echo: its `env`, the environment it inherits and its `args` (none for a remote one), longest first. */
  private secretList(): readonly string[] {
    const server = this.server;
    if (this.secrets?.of !== server) this.secrets = { of: server, values: isRemote(server) ? [] : secretValues(server.env, process.env, argumentValues(server.args)) };
    return this.secrets.values;
  }

  /**
   * Text the upstream chose (an error's message, a failure reason quoting its stderr) as a client may
   * see it: cleaned ({@link cleanText}), then with the credentials it could echo masked as its stderr is
   * in the log, so a token split by an invisible character is masked too (docs/security.md).
   */
  private shown(text: string): string {
    return withoutSecrets(cleanText(text).text, this.secretList());
  }

  /**
   * A listing with the credentials this upstream could echo masked in every declaration but its
   * names (failure.ts `withoutSecretsInTools`): what the catalogue, the cache and the pins get.
   */
  private maskedTools(tools: readonly UpstreamTool[]): readonly UpstreamTool[] {
    return withoutSecretsInTools(tools, this.secretList());
  }

  /** An object key as a client may see it: {@link shown}, on one line. */
  private shownKey(key: string): string {
    return withoutSecrets(cleanText(key, { lines: false }).text, this.secretList());
  }

  /**
   * `outcome` with its upstream text {@link shown}; for an `ok` one, every string and key of the whole
   * result (content blocks with their `_meta`, annotations and resource links, `structuredContent`,
   * `_meta`), line breaks kept in values: what a model reads is cleaned as every upstream string is
   * (docs/security.md, "Results"). Binary payloads pass as they are. The same result object when
   * nothing changed; one nested too deeply to walk is refused as an upstream error.
   */
  private masked(outcome: CallOutcome): CallOutcome {
    if (outcome.kind === 'upstream_error') return { ...outcome, message: this.shown(outcome.message) };
    if (outcome.kind === 'unavailable') return { ...outcome, reason: this.shown(outcome.reason) };
    if (outcome.kind === 'ok') {
      let result: Record<string, unknown>;
      try {
        result = shownResult(outcome.result, (text) => this.shown(text), (key) => this.shownKey(key));
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        return { kind: 'upstream_error', code: ProtocolErrorCode.InternalError, message: 'its result is nested too deeply to be checked' };
      }
      return result === outcome.result ? outcome : { ...outcome, result };
    }
    return outcome;
  }

  private onStderr(raw: string): void {
    const secrets = this.secretList();
    // Masked before it is cut, and past the cut by the longest secret, so no part of one is left.
    const line = withoutSecrets(raw.slice(0, MAX_STDERR_LOG_CHARS + (secrets[0]?.length ?? 0)), secrets).slice(0, MAX_STDERR_LOG_CHARS);
    this.stderrTail.push(line);
    this.options.logger.debug(`[${this.key}] ${line}`);
  }

  private onClosed(client: Client): void {
    if (client !== this.client) return;
    const now = Date.now();
    const step = this.move({ type: 'crashed', now, jitter: this.jitter() });
    // Not up (a start or a close ended it): nothing crashed.
    if (!step.ok) return;
    this.calls.forgetAbandoned();
    const endedBy = (this.transport as Partial<ChildStdioTransport> | undefined)?.endedBy ?? 'exited';
    const quote = this.stderrTail.quote();
    // What it printed while up may quote a client's call (a path, a query): the log gets it; the reason
    // every client and the shared instance's status lines are told does not (test/e2e/shared.e2e.test.ts).
    this.lastError = `the server ${endedBy}`;
    // Up long enough for the failure count to start over: the same cause is worth a warning again.
    if (step.recovered) this.lastWarned = undefined;
    const logged = `${this.lastError}${quote ? `: ${quote}` : ''}`;
    this.report('warn', `upstream "${this.key}" disconnected; ${logged}`, logged);
    this.endClient();
    this.afterFailure(step, now, false);
  }

  /**
   * Does what the transition after a failure at `now` asks: a `retrying` state's restart is armed and
   * logged (at debug when `quiet`: a cause already reported), a lazy upstream backing off says so once
   * (docs/operations.md, "Retries and lazy back-off"); a one-shot command's or a retiring connection's
   * failure schedules nothing.
   */
  private afterFailure(step: Transition, now: number, quiet: boolean): void {
    if (!step.ok) return;
    const state = step.state;
    if (state.kind === 'backedOff' && step.backingOff) {
      this.options.logger.warn(`upstream "${this.key}" failed ${state.failures} times in a row; as a lazy upstream it is no longer retried, and starts again when a call or search needs it`);
    }
    if (state.kind !== 'retrying') return;
    const delay = state.retryAt - now;
    this.options.logger[quiet ? 'debug' : 'info'](`upstream "${this.key}" will be retried in ${(delay / 1000).toFixed(1)} s (attempt ${state.failures})`);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.restart(), delay);
    this.retryTimer.unref();
  }

  /** A jitter in [0, 1) for the backoff schedule (the `random` option in tests). */
  private jitter(): number {
    return (this.options.random ?? Math.random)();
  }

  private async restart(): Promise<void> {
    await this.start();
    if (this.state.kind === 'ready') this.options.logger.info(`upstream "${this.key}" is back with ${counted(this.tools.length, 'tool')}`);
  }

  /** What the upstream declared at initialize; undefined while it is not connected. */
  get capabilities(): Record<string, unknown> | undefined {
    // Starting from the cache: what it had, so a client that connects meanwhile is offered the same (its requests wait for the start).
    if (this.status === 'idle' || (this.status === 'starting' && this.fromCache)) return this.cachedCapabilities;
    return this.state.kind === 'ready' ? (this.client?.getServerCapabilities() as Record<string, unknown> | undefined) : undefined;
  }

  /**
   * Calls `tools/call` upstream with the tool's upstream name. Resolves to the result verbatim, or to
   * a timeout / unavailable / cancelled / upstream_error outcome; never rejects. A remote session
   * that expired (HTTP 404) is renewed and the call sent once more.
   */
  callTool(name: string, args: Record<string, unknown>, given: CallOptions = {}): Promise<CallOutcome> {
    const options = this.shownProgress(given);
    const ready = this.state.kind === 'ready' && this.renewing === undefined ? this.client : undefined;
    const direct = ready && directTransport(ready);
    // Not through an async function: the direct path is the one every stdio call takes (docs/benchmarks.md, proxy overhead).
    return ready && direct ? this.callDirect(ready, direct, name, args, options) : this.callGeneral(name, args, options).then((outcome) => this.masked(outcome));
  }

  /** {@link callTool} on any connection: waits for a start, renews an expired remote session, steps up sign-in scope. */
  private async callGeneral(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    const send = (): Promise<CallOutcome | typeof SESSION_EXPIRED | undefined> =>
      this.inUseFor(() =>
        this.calls.track(options.origin, () => this.withRenewal((client) => sendToolCall(client, name, args, options, this.callContext(options))), abandoned),
      );
    let outcome = await send();
    // A 403 insufficient_scope the SDK could not step up without a browser: sign in for the wider scope once, then retry once.
    if (outcome !== undefined && outcome !== SESSION_EXPIRED && outcome.kind === 'unavailable' && outcome.stepUpScope && (await this.signIn?.stepUp(outcome.stepUpScope))) {
      outcome = await send();
    }
    if (outcome === undefined) return this.unavailable();
    if (outcome === SESSION_EXPIRED) return { kind: 'unavailable', reason: EXPIRED_AGAIN };
    if (outcome.kind === 'unavailable' && outcome.needsSignIn && this.signIn) {
      this.needSignIn(false);
      return this.unavailable();
    }
    return outcome;
  }

  /**
   * A call on a ready 2025-era stdio connection, sent beside the SDK Client (directCall.ts). Nothing
   * of the general path applies to it: no start to wait for, no remote session to renew, no sign-in;
   * it is counted in use and routed for the upstream's requests as any call (docs/benchmarks.md, proxy overhead).
   */
  private async callDirect(client: Client, transport: ChildStdioTransport, name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    this.idle.begin();
    try {
      const outcome = await this.calls.track(options.origin, () => sendDirectToolCall(client, transport, name, args, options, this.callContext(options)), abandoned);
      return this.masked(outcome);
    } finally {
      this.idle.end();
    }
  }

  /** What a call made with `options` needs to know about this connection (calls.ts). */
  private callContext(options: CallOptions): CallContext {
    return { server: this.server, isCurrent: (sent) => sent === this.client, retryInMs: () => this.retryInMs(), clientActiveAt: () => this.calls.clientActiveAt(options.origin) };
  }

  /**
   * Begins a browser sign-in the user asked for (the dashboard), when this upstream waits for one;
   * undefined when it does not. Resolves true once signed in (the connection then starts again).
   */
  signInNow(): Promise<boolean> | undefined {
    return this.state.kind === 'needsSignIn' ? this.signIn?.signInNow() : undefined;
  }

  /** Final 401/403 or no credentials: wait for sign-in, no restart loop (docs/sign-in.md). The tools last listed stay. */
  private needSignIn(onStart: boolean): void {
    if (!this.move({ type: onStart ? 'startRefused' : 'callRefused' }).ok) return;
    this.endClient();
    this.signIn!.enter(onStart);
    this.lastError = this.signIn!.message();
  }

  /**
   * Sends any request upstream (resources, prompts, completion, logging) with the per-call timeout;
   * the answer comes back whole with every string and key {@link shown} but its binary payloads and
   * the fields that route (shownText.ts `shownAnswer`); one nested too deeply to walk is answered as
   * an error. Never rejects: failures come back with a JSON-RPC code. An expired
   * remote session is renewed and the request sent once more, as for calls.
   */
  async request(method: string, params: Record<string, unknown> | undefined, options: { signal?: AbortSignal; origin?: RequestOrigin } = {}): Promise<RequestOutcome> {
    const subscription = isSubscription(method) && typeof params?.uri === 'string' ? { method, uri: params.uri } : undefined;
    if (subscription) {
      // A modern upstream has no such method: its subscriptions are one listen stream (resourceSubscriptions.ts).
      const { method: verb, uri } = subscription;
      const listened = await this.inUseFor(async () => (ResourceSubscriptions.serves(this.client) ? { failure: await this.resources.change(verb, uri) } : undefined));
      if (listened) return listened.failure ? { ok: false, error: listened.failure } : { ok: true, result: {} };
    }
    const outcome = await this.inUseFor(() =>
      this.calls.track(
        options.origin,
        () => this.withRenewal((client) => sendRequest(client, method, params, { ...options, clientActiveAt: () => this.calls.clientActiveAt(options.origin) }, this.server)),
        (result) => result !== undefined && result !== SESSION_EXPIRED && !result.ok && (options.signal?.aborted === true || result.error.code === LEGACY_REQUEST_TIMEOUT),
      ),
    );
    if (outcome === undefined) return { ok: false, error: { code: ProtocolErrorCode.InternalError, message: `unavailable: ${this.shown(this.lastError || this.status)}` } };
    if (outcome === SESSION_EXPIRED) return { ok: false, error: { code: ProtocolErrorCode.InternalError, message: `unavailable: ${EXPIRED_AGAIN}` } };
    if (subscription && outcome.ok) this.resources.accepted(subscription.method, subscription.uri);
    if (!outcome.ok) return { ok: false, error: { ...outcome.error, message: this.shown(outcome.error.message) } };
    let result: Record<string, unknown>;
    try {
      result = shownAnswer(method, outcome.result, (text) => this.shown(text), (key) => this.shownKey(key));
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return { ok: false, error: { code: ProtocolErrorCode.InternalError, message: 'its answer is nested too deeply to be checked' } };
    }
    return result === outcome.result ? outcome : { ...outcome, result };
  }

  /** Runs `op` on the ready client (after a renewal in progress); on an expired session, renews it and runs `op` once more. Undefined when unavailable. */
  private async withRenewal<T>(op: (client: Client) => Promise<T | typeof SESSION_EXPIRED>): Promise<T | typeof SESSION_EXPIRED | undefined> {
    const client = this.renewing ? await this.renewing : this.client;
    if (!client || this.state.kind !== 'ready') return undefined;
    const first = await op(client);
    if (first !== SESSION_EXPIRED) return first;
    const renewed = await this.renewSession(client);
    return renewed ? op(renewed) : undefined;
  }

  /** Replaces a remote connection whose session the server forgot; concurrent callers share one reconnection. */
  private renewSession(expired: Client): Promise<Client | undefined> {
    if (this.renewing) return this.renewing;
    if (this.client !== expired) return Promise.resolve(this.state.kind === 'ready' ? this.client : undefined);
    this.renewing = (async () => {
      this.options.logger.info(`upstream "${this.key}": session expired; reconnecting`);
      this.endClient();
      await this.start();
      this.renewing = undefined;
      return this.state.kind === 'ready' ? this.client : undefined;
    })();
    return this.renewing;
  }

  private unavailable(): CallOutcome {
    if (this.state.kind === 'needsSignIn' && this.signIn) return { kind: 'unavailable', reason: this.signIn.message() };
    if (this.status === 'starting') return { kind: 'unavailable', reason: `${this.lastError || 'it is starting'}; it is restarting now` };
    const retryInMs = this.retryInMs();
    return { kind: 'unavailable', reason: this.lastError || this.status, ...(retryInMs !== undefined ? { retryInMs } : {}) };
  }

  /** In how many ms the scheduled restart comes; undefined when none is scheduled. */
  private retryInMs(): number | undefined {
    return msUntilRetry(this.state, Date.now());
  }

  /** Re-reads the status after an await (close() may have run meanwhile). */
  private isClosed(): boolean {
    return this.state.kind === 'closed';
  }

  /** Synchronous last resort at process exit: kill every stdio process group this connection started. */
  killNow(): void {
    for (const transport of [this.transport, ...this.ending.keys()]) (transport as Partial<ChildStdioTransport> | undefined)?.killNow?.();
  }

  /** Stops retries and ends the upstream (its whole process group for stdio); resolves once every process is gone. */
  async close(): Promise<void> {
    this.move({ type: 'close' });
    this.idle.close();
    this.relister.close();
    this.resources.close();
    this.notifications?.close();
    this.signIn?.close();
    this.abandonStart?.(new Error('closed'));
    // A held start begins and ends at once (closed), so startEnded() resolves.
    this.releaseHeld?.();
    this.endClient();
    await Promise.all(this.ending.values());
  }

  /** Detaches the current client and ends it and its transport in the background (tracked in `ending`). */
  private endClient(): void {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (!transport) return;
    const done = (async () => {
      await client?.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
    })();
    this.ending.set(transport, done);
    void done.finally(() => this.ending.delete(transport));
  }
}

/** Whether a call's outcome leaves it possibly still running upstream (callRouting.ts): it timed out or was cancelled. */
function abandoned(outcome: CallOutcome | typeof SESSION_EXPIRED | undefined): boolean {
  return outcome !== undefined && outcome !== SESSION_EXPIRED && (outcome.kind === 'timeout' || outcome.kind === 'cancelled');
}

/** `resources/subscribe` and `resources/unsubscribe`, whose URIs a connection keeps (resourceSubscriptions.ts). */
function isSubscription(method: string): method is 'resources/subscribe' | 'resources/unsubscribe' {
  return method === 'resources/subscribe' || method === 'resources/unsubscribe';
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}
