/**
 * The SDK Server that answers one modern (2026-07-28) request (HTTP) or connection (stdio). It holds
 * no client state: `tools/list` is the direct tools, `tool_search` and `call_tool`, the same bytes
 * before and after any search or call (nothing is ever promoted for a modern client), in the fixed
 * order of docs/tools.md; found tools run through `call_tool` or by their real name from the manifest.
 * What varies per client (discovery mode, description limit) is read from the request's own `_meta`
 * clientInfo, never from a connection. Source: docs/tools.md, docs/protocol-eras.md; MCP spec 2026-07-28, Server › Tools
 * (Capabilities: the list must not vary per connection or as a side effect of other requests).
 */
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type BaseContext,
  type CallToolRequest,
  type Implementation,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type Result,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { advertisedEvent, modernCallToolOn, modernTools, TOOLS_LIST_CACHE, type ModernListOptions } from '../toolList.js';
import { CALL_TOOL, TOOL_SEARCH } from '../bridgeTools.js';
import { canElicitForm } from '../confirm.js';
import { discoveryMode } from '../clients.js';
import { dispatchCall } from '../dispatch.js';
import { handleRequest, withInstructions } from '../handlers.js';
import { instructionsForList, reopen, SHELF_INSTRUCTIONS } from '../instructions.js';
import { passthroughCapabilities, registerPassthrough } from '../passthrough.js';
import { fitResult } from '../results.js';
import type { SessionOptions } from '../sessionOptions.js';
import type { HeldCalls } from './callRounds.js';
import type { LaneTarget } from '../fronts/callLane.js';
import { noRoots } from '../../lib/relayedRequests.js';
import type { RequestOrigin } from '../../upstream/types.js';

/** What a modern server is built from: the session options without an id (a modern client has no session), and the process's held calls. */
export type ModernOptions = Omit<SessionOptions, 'id'> & { readonly held: HeldCalls };

/** The opening of the server instructions for modern clients (server/discover), in place of {@link SHELF_INSTRUCTIONS}. */
export const MODERN_INSTRUCTIONS =
  'Tools not in your list are on the shelf: tool_search finds them by what you want to do; run one with call_tool or by its name.';

/** {@link MODERN_INSTRUCTIONS} for a client whose list has no call_tool (`bridge.callTool: "never"`). */
export const MODERN_INSTRUCTIONS_BY_NAME = 'Tools not in your list are on the shelf: tool_search finds them by what you want to do; run one by its name.';

let calls = 0;

/**
 * The SDK Server with its tools/call seam kept for `input_required` (the era check, the at-least-one
 * rule, the client-capability gate) but a complete result passed back as the upstream sent it: the
 * seam's result re-validation would drop fields (the reason GatewayServer bypasses it).
 */
export class ModernServer extends Server {
  /** The tools/call function its handler runs, for the stdio call lane (fronts/callLane.ts); set by {@link modernServer}. */
  serveCall: LaneTarget['serve'] = () => Promise.reject(new Error('no tools/call handler'));
  private readonly implementation: Implementation;
  /**
   * Whether the SDK's stdio era entry has delivered a request other than `server/discover`: only
   * then is the connection pinned modern. After `server/discover` alone it is still a probe that a
   * legacy `initialize` replaces, so lane calls wait: served before, they kept the SDK from pinning.
   */
  private pinned = false;
  /**
   * The `instructions` of a `server/discover` answer for the client named in the request (undefined:
   * unnamed); undefined leaves the field out. Unset: the constructor's, the same for every client.
   */
  discoverInstructions: ((clientName: string | undefined) => string | undefined) | undefined;

  constructor(info: Implementation, options: ConstructorParameters<typeof Server>[1]) {
    super(info, options);
    this.implementation = info;
  }

  /** What the stdio call lane serves this connection's plain tools/call with, once the connection is pinned modern. */
  laneTarget(): LaneTarget {
    return { era: 'modern', server: this, serverInfo: this.implementation, ready: () => this.pinned, serve: (request, ctx) => this.serveLane(request, ctx) };
  }

  /**
   * {@link serveCall} for a lane call. An `input_required` result goes through the SDK's tools/call
   * seam as the SDK handler's does: the at-least-one rule, and every embedded request covered by the
   * capabilities the request declared, mode-aware (sampling with tools needs `sampling.tools`), else
   * -32021; a complete result needs none of it, so the common call skips the seam.
   */
  private async serveLane(request: CallToolRequest, ctx: ServerContext): Promise<Result> {
    const result = await this.serveCall(request, ctx);
    if (!isInputRequiredResult(result)) return result;
    const seam = super._wrapHandler('tools/call', () => Promise.resolve(result));
    return seam({ jsonrpc: '2.0', id: ctx.mcpReq.id, ...request } as JSONRPCRequest, ctx);
  }

  /** Runs for each request the SDK delivers with a handler: notes the first past the opening `server/discover` ({@link pinned}). */
  protected override buildContext(ctx: BaseContext, transportInfo?: MessageExtraInfo): ServerContext {
    if (ctx.mcpReq.method !== 'server/discover') this.pinned = true;
    return super.buildContext(ctx, transportInfo);
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (method === 'server/discover') {
      const discover = super._wrapHandler(method, handler);
      return async (request, ctx) => {
        const result = await discover(request, ctx);
        const choose = this.discoverInstructions;
        return choose ? withInstructions(result, choose(clientName(ctx))) : result;
      };
    }
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const complete = new WeakMap<JSONRPCRequest, Result>();
    const seam = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if (isInputRequiredResult(result)) return result;
      complete.set(request, result);
      return { content: [] };
    });
    return async (request, ctx) => {
      const result = await seam(request, ctx);
      return complete.get(request) ?? result;
    };
  }
}

/** Builds the Server for one modern request or connection. */
export function modernServer(options: ModernOptions): ModernServer {
  const capabilities = passthroughCapabilities(options.passthrough.directory);
  const server = new ModernServer(
    { name: 'toolshelf', version: options.version },
    { capabilities: { tools: { listChanged: true }, ...capabilities }, instructions: modernInstructions(options.instructions ?? SHELF_INSTRUCTIONS), cacheHints: { 'tools/list': TOOLS_LIST_CACHE } },
  );
  server.discoverInstructions = (name) => modernInstructionsFor(options, name);
  handleRequest(server, ListToolsRequestSchema, (request, ctx) => {
    if (request.params?.cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown cursor: tools/list has a single page');
    const tools = modernTools(options, clientName(ctx));
    options.trace.record(advertisedEvent(tools, options.shelf().catalogue, [], { session: 'modern', era: 'modern' }, options.measure));
    return { tools };
  });
  server.serveCall = (request, ctx) =>
    options.held.serve(request, ctx, async (extra, origin) => {
      const name = clientName(ctx);
      const mode = discoveryMode(options.settings.discoveryMode, name);
      calls += 1;
      const outcome = await dispatchCall(withLogLevel(request, ctx), extra, {
        callId: `modern:${calls}`,
        session: 'modern',
        shelf: options.shelf(),
        caller: options.caller,
        admit: options.admit,
        ...(options.checkOutput ? { checkOutput: options.checkOutput } : {}),
        trace: options.trace,
        settings: { ...options.settings, discoveryEnabled: options.settings.discoveryEnabled && mode === 'own' },
        callToolEnabled: modernCallToolOn(options, mode),
        deferredListed: mode === 'client',
        // Nothing is promoted for a modern client (docs/tools.md): `outcome.promote` is not applied.
        isPromoted: () => false,
        origin,
        // Asked by input_required, as the client's envelope on this round declares elicitation.
        canConfirm: canElicitForm((ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as { elicitation?: unknown } | undefined)?.elicitation),
      });
      return fitResult(outcome.result, options.maxResultBytes, options.measure);
    });
  handleRequest(server, CallToolRequestSchema, (request, ctx) => server.serveCall(request, ctx));
  registerPassthrough(server, capabilities, {
    ...options.passthrough,
    originFor: unaskable,
    hold: (request, ctx, get) => options.held.serve(request, ctx, (extra, origin) => get(extra, origin)),
    subscriptions: new Set(),
    ...(options.maxResultBytes !== undefined ? { maxResultBytes: options.maxResultBytes } : {}),
  });
  return server;
}

/**
 * The instructions for a modern client named `name`, after what its tool list holds: the modern
 * opening when it has tool_search (naming call_tool only when that is listed too), none when it does
 * not (see {@link instructionsForList}); upstreams' own follow unchanged.
 */
export function modernInstructionsFor(options: ModernListOptions & { readonly instructions?: string }, name: string | undefined): string | undefined {
  const names = new Set(modernTools(options, name).map((tool) => tool.name));
  const full = modernInstructions(options.instructions ?? SHELF_INSTRUCTIONS);
  const opening = names.has(CALL_TOOL) || !full.startsWith(MODERN_INSTRUCTIONS) ? MODERN_INSTRUCTIONS : MODERN_INSTRUCTIONS_BY_NAME;
  const text = reopen(full, MODERN_INSTRUCTIONS, opening);
  return instructionsForList(text, opening, names.has(TOOL_SEARCH));
}

/** The instructions with the modern opening in place of the legacy one; upstreams' own follow unchanged. */
export function modernInstructions(legacy: string): string {
  return reopen(legacy, SHELF_INSTRUCTIONS, MODERN_INSTRUCTIONS);
}

/**
 * `request` with the log level its `_meta` envelope asked for (if any) kept in the `_meta` forwarded
 * upstream, so a modern upstream logs to the call at that level (a 2025 one ignores the key and logs
 * as it does; toolshelf filters). Source: MCP spec 2026-07-28, Server › Utilities › Logging.
 */
function withLogLevel(request: CallToolRequest, ctx: ServerContext): CallToolRequest {
  const level = ctx.mcpReq.envelope?.[LOG_LEVEL_META_KEY as never] as unknown;
  if (typeof level !== 'string' || request.params._meta?.[LOG_LEVEL_META_KEY] !== undefined) return request;
  return { ...request, params: { ...request.params, _meta: { ...request.params._meta, [LOG_LEVEL_META_KEY]: level } } };
}

/** Modern requests given an {@link unaskable} origin, to name each apart. */
let unaskableRequests = 0;

/**
 * The origin of a modern request that cannot answer `input_required` (completion/complete: the
 * revision allows it only on tools/call, prompts/get and resources/read, which are held instead):
 * the upstream's sampling or elicitation during it is refused (roots/list: no roots), and its log
 * messages are dropped. Counted as waiting, it keeps such a request from being taken for another
 * client's call on that upstream (it reached a legacy client whose call was in flight).
 * Source: MCP spec 2026-07-28, Basic › Patterns › Multi-round-trip requests (Supported Requests).
 */
function unaskable(): RequestOrigin {
  return {
    session: `modern-request:${(unaskableRequests += 1)}`,
    ask: (method) =>
      method === 'roots/list'
        ? Promise.resolve(noRoots())
        : Promise.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, `The client cannot be asked for ${method} during this request (MCP 2026-07-28 takes input only on tools/call, prompts/get and resources/read)`)),
    log: () => undefined,
  };
}

/** The requesting client's name from the request's `_meta` envelope (2026-07-28: clientInfo is per request). */
function clientName(ctx: ServerContext): string | undefined {
  const info = ctx.mcpReq.envelope?.[CLIENT_INFO_META_KEY as never] as Implementation | undefined;
  return typeof info?.name === 'string' ? info.name : undefined;
}
