/**
 * class GatewaySession: one legacy (2025-11-25 and earlier) client connection (stdio has one; each
 * Streamable HTTP session has its own). Holds the SDK Server, this client's promoted tools in promotion order, and what the client
 * last listed, so list_changed is sent only when what it sees changed. Source: docs/tools.md.
 */
import { CallToolRequestSchema, ListToolsRequestSchema, LoggingLevelSchema, ResultSchema } from '@modelcontextprotocol/core';
import { ProtocolError, ProtocolErrorCode, type CallToolRequest, type CallToolResult, type Tool, type Transport } from '@modelcontextprotocol/server';
import type { Logger } from '../../trace/log.js';
import { advertisedEvent, legacyShape, legacyTools } from '../toolList.js';
import { fitResult } from '../results.js';
import { instructionsForList, reopen, SHELF_INSTRUCTIONS, SHELF_INSTRUCTIONS_BRIDGE } from '../instructions.js';
import { CALL_TOOL, TOOL_SEARCH } from '../bridgeTools.js';
import { GatewayServer, handleRequest, type Extra } from '../handlers.js';
import { dispatchCall } from '../dispatch.js';
import type { LaneTarget } from '../fronts/callLane.js';
import { clientUri, passthroughCapabilities, registerPassthrough, upstreamLog } from '../passthrough.js';
import { RELAY_TIMEOUT_MS, type SessionOptions } from '../sessionOptions.js';
import { ClientLacksCapability, clientCapabilityFor, noRoots } from '../../lib/relayedRequests.js';
import { textDigest } from '../../lib/hash.js';
import { canElicitForm } from '../confirm.js';
import type { RequestOrigin } from '../../upstream/types.js';

/** Log levels from least to most severe: the SDK's schema order (RFC 5424 as MCP names them; MCP spec, Server › Utilities › Logging). */
const LOG_LEVELS: readonly string[] = LoggingLevelSchema.options;

/** Whether a message at `level` is below `threshold` (false when either is not a known level: nothing is dropped on a guess). */
function below(level: unknown, threshold: string | undefined): boolean {
  const at = LOG_LEVELS.indexOf(String(level));
  const min = threshold === undefined ? -1 : LOG_LEVELS.indexOf(threshold);
  return at >= 0 && min >= 0 && at < min;
}

export class GatewaySession {
  readonly server: GatewayServer;
  private readonly promoted: string[] = [];
  /** The digest of the JSON of the tools last listed to this client ({@link textDigest}). */
  private lastListed: string | undefined;
  private callCount = 0;
  private readonly capabilities: Record<string, unknown>;
  /** Client-visible resource URIs this client subscribed to. */
  private readonly subscriptions = new Set<string>();
  /** The least severe log level this client asked for (`logging/setLevel`); undefined: every level. */
  private logLevel: string | undefined;

  /** Who toolshelf says it is to this client: in the handshake and in the lane's results. */
  private readonly implementation: { readonly name: string; readonly version: string };

  /** Where this session's connection logs (stderr in stdio mode). */
  get logger(): Logger {
    return this.options.logger;
  }

  constructor(private readonly options: SessionOptions) {
    this.implementation = { name: 'toolshelf', version: options.version };
    const { directory } = options.passthrough;
    this.capabilities = passthroughCapabilities(directory);
    this.server = new GatewayServer(
      this.implementation,
      {
        capabilities: { tools: { listChanged: true }, ...this.capabilities },
        instructions: options.instructions ?? SHELF_INSTRUCTIONS,
      },
    );
    // Known once initialize has run: whether this client's list has tool_search, which the opening names.
    this.server.initializeInstructions = () => {
      const names = new Set(this.currentTools().map((tool) => tool.name));
      const opening = names.has(CALL_TOOL) ? SHELF_INSTRUCTIONS_BRIDGE : SHELF_INSTRUCTIONS;
      return instructionsForList(reopen(options.instructions ?? SHELF_INSTRUCTIONS, SHELF_INSTRUCTIONS, opening), opening, names.has(TOOL_SEARCH));
    };
    handleRequest(this.server, ListToolsRequestSchema, (request) => {
      if (request.params?.cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown cursor: tools/list has a single page');
      return { tools: this.listTools() };
    });
    handleRequest(this.server, CallToolRequestSchema, (request, extra) => this.callTool(request, extra));
    registerPassthrough(this.server, this.capabilities, {
      ...options.passthrough,
      originFor: (extra) => this.originFor(extra),
      onSetLevel: (level) => (this.logLevel = level),
      subscriptions: this.subscriptions,
      resourceSubscriptions: { holder: options.id, upstream: options.passthrough.upstreamSubscriptions },
      ...(options.maxResultBytes !== undefined ? { maxResultBytes: options.maxResultBytes } : {}),
    });
  }

  /**
   * Relays an upstream notification this client can receive: resource and prompt list changes,
   * updates of resources it subscribed to, and log messages (logger prefixed with the server key).
   */
  forwardNotification(server: string, notification: { method: string; params?: Record<string, unknown> }): void {
    const send = (method: string, params?: Record<string, unknown>): void =>
      void this.server.notification({ method, ...(params ? { params } : {}) } as never).catch(() => undefined);
    const { method, params } = notification;
    if (method === 'notifications/resources/list_changed' && this.capabilities.resources) send(method);
    else if (method === 'notifications/prompts/list_changed' && this.capabilities.prompts) send(method);
    else if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      const uri = clientUri(this.options.passthrough.routes, server, params.uri);
      if (this.subscriptions.has(uri)) send(method, { ...params, uri });
    } else if (method === 'notifications/message' && params) this.sendLog(server, params);
  }

  /**
   * Sends an upstream's log message to this client, logger prefixed with the server key, when logging
   * is offered at all and the message is at or above this client's own `logging/setLevel`: an
   * upstream's level is set by whichever client set it last, for every client (B at
   * warning got debug lines once A set debug). Source: MCP spec 2025-11-25, Server › Utilities › Logging.
   */
  private sendLog(server: string, params: Record<string, unknown>): void {
    if (!this.capabilities.logging || below(params.level, this.logLevel)) return;
    void this.server.notification({ method: 'notifications/message', params: upstreamLog(server, params) } as never).catch(() => undefined);
  }

  /** The client's `clientInfo.name`, once initialized. */
  get clientName(): string | undefined {
    return this.server.getClientVersion()?.name;
  }

  /** The session id, as trace events name it. */
  get id(): string {
    return this.options.id;
  }

  /** The tools promoted into this client's list, in promotion order (docs/tools.md). */
  get promotedTools(): readonly string[] {
    return [...this.promoted];
  }

  /**
   * What the stdio call lane serves this session's plain tools/call with (fronts/callLane.ts): the same
   * call function as the SDK handler, once the client has initialized.
   */
  laneTarget(): LaneTarget {
    return {
      era: 'legacy',
      server: this.server,
      serverInfo: this.implementation,
      ready: () => this.server.getClientVersion() !== undefined,
      serve: (request, extra) => this.callTool(request, extra),
    };
  }

  /** Connects the SDK Server to a transport. */
  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /** The tools/list answer for this client now (docs/tools.md order), recorded as what it last saw. */
  listTools(): Tool[] {
    const tools = this.currentTools();
    this.lastListed = textDigest(JSON.stringify(tools));
    this.options.trace.record(advertisedEvent(tools, this.options.shelf().catalogue, this.promoted, { session: this.options.id, era: 'legacy' }, this.options.measure));
    return tools;
  }

  private currentTools(): Tool[] {
    return legacyTools(this.options.shelf(), this.options.settings, this.clientName, this.promoted);
  }

  /** Called after the catalogue was replaced: tells the client only if its list changed (docs/tools.md). */
  catalogueChanged(): void {
    if (this.lastListed === undefined) return;
    if (textDigest(JSON.stringify(this.currentTools())) === this.lastListed) return;
    this.server.sendToolListChanged().catch((error: Error) => this.options.logger.debug(`session ${this.options.id}: ${error.message}`));
  }

  /** Adds names to the promoted list; returns those that were new (docs/tools.md). */
  private promote(names: readonly string[]): string[] {
    const fresh = names.filter((n) => !this.promoted.includes(n));
    this.promoted.push(...fresh);
    return fresh;
  }

  private async callTool(request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
    this.callCount += 1;
    const { mode, search, callTool } = legacyShape(this.options.settings, this.clientName);
    const outcome = await dispatchCall(request, extra, {
      callId: `${this.options.id}:${this.callCount}`,
      session: this.options.id,
      shelf: this.options.shelf(),
      caller: this.options.caller,
      admit: this.options.admit,
      ...(this.options.checkOutput ? { checkOutput: this.options.checkOutput } : {}),
      trace: this.options.trace,
      settings: { ...this.options.settings, discoveryEnabled: search },
      callToolEnabled: callTool,
      deferredListed: mode === 'client',
      isPromoted: (name) => this.promoted.includes(name),
      origin: this.originFor(extra),
      canConfirm: canElicitForm(this.server.getClientCapabilities()?.elicitation),
    });
    // In client mode every deferred tool is listed already: the list never changes because of a call.
    if (mode === 'own' && outcome.promote.length > 0 && this.promote(outcome.promote).length > 0 && this.lastListed !== undefined) {
      // Sent on the request's own stream so HTTP clients without a GET stream still receive it.
      await extra.mcpReq.notify({ method: 'notifications/tools/list_changed' }).catch(() => undefined);
    }
    return this.fitResult(outcome.result);
  }

  private fitResult(result: CallToolResult): CallToolResult {
    return fitResult(result, this.options.maxResultBytes, this.options.measure);
  }

  /**
   * The origin of upstream requests made for this client's request `extra`: the upstream's sampling
   * and elicitation during it are put to this client on that request's own stream (over HTTP, the
   * POST's SSE response, which every client reads).
   */
  private originFor(extra: Extra): RequestOrigin {
    // A log sent during this client's call is this client's alone: broadcast, one client's call
    // leaked what it logged (file names, queries) to every other legacy client.
    return { session: this.options.id, ask: (method, params, signal) => this.ask(method, params, signal, extra), log: (server, params) => this.sendLog(server, params) };
  }

  /** Whether this client declared the capability an upstream request needs (sampling, elicitation, roots). */
  private canAnswer(method: string): boolean {
    const capability = clientCapabilityFor(method);
    return capability !== undefined && this.server.getClientCapabilities()?.[capability] !== undefined;
  }

  /**
   * Sends an upstream's request (sampling/createMessage, elicitation/create, roots/list) to this client as part
   * of its request `extra`, and returns its result verbatim (roots/list to a client without roots:
   * no roots, lib/relayedRequests.ts noRoots). Rejects with -32601 ({@link ClientLacksCapability}) when this client did not declare the capability, with the client's error, or on `signal`.
   */
  private async ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal, extra: Extra): Promise<Record<string, unknown>> {
    if (!this.canAnswer(method)) {
      if (method === 'roots/list') return noRoots();
      throw new ClientLacksCapability(method);
    }
    return (await extra.mcpReq.send({ method, ...(params ? { params } : {}) } as never, ResultSchema, { signal, timeout: RELAY_TIMEOUT_MS })) as Record<string, unknown>;
  }

  /** Closes the SDK Server (and with it the transport), and drops this client's upstream subscriptions. */
  close(): Promise<void> {
    this.options.passthrough.upstreamSubscriptions.release(this.options.id);
    return this.server.close();
  }
}
