/**
 * The call lane of one stdio connection: a plain `tools/call` (the common shape, nothing for the SDK
 * to decide) is served by the connection's own tools/call function without the SDK Server's request
 * machinery (era dispatch, zod parse of the request, context, result codec), which is most of the
 * time a stdio call spends in toolshelf (proxy overhead per call). What the call
 * does is unchanged: the same function the SDK handler runs (admission, routing, promotion, sampling
 * relay, `input_required`, tracing), with a context whose `send` and `notify` go through the same
 * SDK Server. Anything else, and every message this lane is not sure of, goes to the SDK as before.
 * Source: MCP spec, Basic › JSON-RPC; Utilities › Cancellation; 2026-07-28 Basic › `_meta` (the
 * per-request envelope) and Server › Tools (`resultType`); the SDK 2.4.0 server seam it stands in
 * for (`Protocol._onrequest`, the 2026 codec's `encodeResult`).
 */
import { ClientCapabilitiesSchema, ImplementationSchema } from '@modelcontextprotocol/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  ProtocolErrorCode,
  type CallToolRequest,
  type Implementation,
  type JSONRPCMessage,
  type RequestId,
  type Result,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isPlainObject, onlyKeys } from '../../lib/plainObject.js';

/** The 2026-07-28 revision, the one modern version the lane serves; any other goes to the SDK (which answers or refuses it). */
export const LANE_MODERN_VERSION = '2026-07-28';

/** Which era a connection is pinned to, and so how its requests and results look on the wire (docs/protocol-eras.md). */
export type LaneEra = 'legacy' | 'modern';

/** A tools/call the lane can serve: its id, the request as the SDK handler would see it, and the modern envelope. */
export interface LaneCall {
  readonly id: RequestId;
  readonly request: CallToolRequest;
  /** The 2026-07-28 `_meta` envelope (protocol version, client info, capabilities); absent for legacy. */
  readonly envelope?: Record<string, unknown>;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

/**
 * The 2026-07-28 envelope's clientCapabilities as the SDK checks them: the 2025 schema's
 * experimental, sampling, elicitation, roots and extensions (SDK 2.4.0 `ClientCapabilities2026Schema`).
 */
const CAPABILITIES_2026 = ClientCapabilitiesSchema.pick({ experimental: true, sampling: true, elicitation: true, roots: true, extensions: true });

/** The JSON of the last envelope found valid: a client sends the same one with every call, so it is checked once. */
let validEnvelope: string | undefined;

/**
 * Whether clientInfo and clientCapabilities pass the SDK's 2026 envelope check (`checkInboundEnvelope`,
 * which answers -32602 otherwise): a call the SDK would refuse must reach the SDK.
 */
function envelopeAccepted(info: unknown, capabilities: unknown): boolean {
  const key = JSON.stringify([info, capabilities]);
  if (key === validEnvelope) return true;
  if (!ImplementationSchema.safeParse(info).success || !CAPABILITIES_2026.safeParse(capabilities).success) return false;
  validEnvelope = key;
  return true;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * `value` as a call the lane serves on a connection pinned to `era`, or undefined when the SDK must
 * see it. A lane call is a JSON-RPC request for `tools/call` whose params are a string `name`, an
 * optional plain-object `arguments` without an own `__proto__` key, and an optional `_meta` holding only:
 * - legacy: a progress token (string or integer);
 * - modern: the three envelope keys, version {@link LANE_MODERN_VERSION}, clientInfo and capabilities
 *   that pass the SDK's envelope check; no log level, no progress token, no `inputResponses` or
 *   `requestState` (a retry resumes a held call through the SDK seam). The envelope is lifted out of
 *   the request's `_meta` as the SDK lifts it (`liftWireOnlyMaterial`): it describes this request to
 *   toolshelf and is never forwarded upstream.
 * Every such request passes the SDK's CallToolRequest schema and its 2026 envelope check. Pure (one
 * envelope found valid is remembered).
 */
export function laneCall(value: unknown, era: LaneEra): LaneCall | undefined {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || value.method !== 'tools/call' || !isRequestId(value.id) || !onlyKeys(value, REQUEST_KEYS)) return undefined;
  const params = value.params;
  if (!isPlainObject(params) || typeof params.name !== 'string' || !onlyKeys(params, PARAM_KEYS)) return undefined;
  // The SDK's schema parse rebuilds `arguments` and drops an own `__proto__` key (assigning it sets the prototype instead).
  if (params.arguments !== undefined && (!isPlainObject(params.arguments) || Object.hasOwn(params.arguments, '__proto__'))) return undefined;
  const meta = params._meta;
  if (meta !== undefined && !isPlainObject(meta)) return undefined;
  if (era === 'legacy') {
    if (meta !== undefined) for (const key in meta) if (key !== 'progressToken' || !isRequestId(meta[key])) return undefined;
    return { id: value.id, request: { method: 'tools/call', params } as CallToolRequest };
  }
  if (meta === undefined || !onlyKeys(meta, ENVELOPE_KEYS) || meta[PROTOCOL_VERSION_META_KEY] !== LANE_MODERN_VERSION) return undefined;
  const info = meta[CLIENT_INFO_META_KEY];
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string' || !isPlainObject(capabilities) || !envelopeAccepted(info, capabilities)) return undefined;
  const { _meta: _envelope, ...lifted } = params;
  return { id: value.id, request: { method: 'tools/call', params: lifted } as CallToolRequest, envelope: meta };
}

/**
 * A tools/call result as it goes on the wire in `era`: unchanged for legacy; for modern without a
 * `tasks` key in a top-level `capabilities` object (a field the revision deleted), with `resultType`
 * (`complete` unless the handler set one) and toolshelf's `serverInfo` in `_meta` unless there
 * already (the SDK 2.4.0 2026 codec's `encodeResult` for tools/call, which is not a cacheable
 * method). Pure.
 */
export function encodeLaneResult(result: Result, era: LaneEra, serverInfo: Implementation): Result {
  if (era === 'legacy') return result;
  const kept = withoutDeletedTasks(result);
  const typed = kept.resultType === undefined ? { ...kept, resultType: 'complete' } : kept;
  const meta = typed._meta;
  if (meta === undefined) return { ...typed, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return typed;
  return { ...typed, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}

/** `result` without `capabilities.tasks`, as the 2026 codec's `enforceDeletedFields` drops it from every result; the same object when absent. */
function withoutDeletedTasks(result: Result): Result {
  const capabilities = result.capabilities;
  if (!isPlainObject(capabilities) || !('tasks' in capabilities)) return result;
  const { tasks: _deleted, ...rest } = capabilities;
  return { ...result, capabilities: rest };
}

/**
 * The error response for what a handler threw, as the SDK writes it: the error's integer `code`
 * (else -32603; -32002 becomes -32602 as both era codecs do), its message, its `data`. Pure.
 */
export function laneErrorResponse(id: RequestId, error: unknown): JSONRPCMessage {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const thrown = Number.isSafeInteger(code) ? (code as number) : ProtocolErrorCode.InternalError;
  return {
    jsonrpc: '2.0',
    id,
    error: { code: thrown === -32002 ? ProtocolErrorCode.InvalidParams : thrown, message: typeof message === 'string' ? message : 'Internal error', ...(data !== undefined ? { data } : {}) },
  };
}

/** What serves lane calls once the connection is pinned: its era, its SDK Server, and its tools/call function. */
export interface LaneTarget {
  readonly era: LaneEra;
  /** The connection's SDK Server: a call's requests and notifications to the client go through it. */
  readonly server: Server;
  readonly serverInfo: Implementation;
  /** Whether calls may be taken now (a legacy connection: once initialized). */
  ready(): boolean;
  /** The connection's tools/call function, the one its SDK handler runs. */
  serve(request: CallToolRequest, ctx: ServerContext): Promise<Result>;
}

/** Resolves to undefined: a request log without a level in the envelope is dropped (the SDK's request logger does the same). */
const noLog = (): Promise<void> => Promise.resolve();
const noState = <T>(): T | undefined => undefined;

/**
 * The SDK Server's handlers running, by request id (SDK 2.4.0 `Protocol._requestHandlerAbortControllers`,
 * read each time: the SDK replaces it when the connection closes). Its own cancellation handler aborts
 * the entry under a cancelled id, and a later request under the same id takes the entry over;
 * undefined when the SDK has no such map.
 */
function handlersRunning(server: Server): Map<RequestId, AbortController> | undefined {
  const map = (server as unknown as { _requestHandlerAbortControllers?: unknown })._requestHandlerAbortControllers;
  return map instanceof Map ? (map as Map<RequestId, AbortController>) : undefined;
}

/**
 * How many ids of requests passed to the SDK the lane keeps: the SDK enters a request within a few
 * messages of receiving it; an id older than this is long entered (or done, and a call under it is
 * then served by the SDK: slower, never different).
 */
const PASSED_ON_KEPT = 64;

/**
 * Serves lane calls for one connection. `write` sends a message to the client (the connection's SDK
 * transport, which frames it). Each call is entered in the SDK Server's own map of running handlers,
 * so a client's cancellation reaches it through the SDK's cancellation handler, its schemas and its
 * id rules (the latest request under an id owns it, lane call or not) exactly as for an SDK-path
 * call; as the SDK does, no response is sent for a cancelled call. The connection's end aborts every
 * call still running. An SDK without that map leaves every call to the SDK.
 */
export class CallLane {
  private target: LaneTarget | undefined;
  private readonly running = new Set<AbortController>();
  /** Ids of the last requests passed to the SDK (at most {@link PASSED_ON_KEPT}), oldest first. */
  private readonly passedOn = new Set<RequestId>();

  constructor(private readonly write: (message: JSONRPCMessage) => Promise<void>) {}

  /** The connection is pinned: calls are served by `target` from now on (when its Server keeps the map). */
  pin(target: LaneTarget): void {
    this.target = handlersRunning(target.server) ? target : undefined;
  }

  /**
   * Sees one inbound message before the SDK: true when the lane took it (the SDK must not see it).
   * A call under the id of a request just passed to the SDK that the SDK has not entered yet goes to
   * the SDK too, which enters both in their order (entered here first, the call would be taken over
   * by the earlier request).
   */
  take(value: unknown): boolean {
    const target = this.target;
    if (target === undefined || !target.ready()) return this.passOn(value);
    const call = laneCall(value, target.era);
    const handlers = handlersRunning(target.server);
    if (call === undefined || handlers === undefined || (this.passedOn.has(call.id) && !handlers.has(call.id))) return this.passOn(value);
    const abort = new AbortController();
    this.running.add(abort);
    handlers.set(call.id, abort);
    // A microtask later, as the SDK runs handlers: requests before this one in the stream start first.
    queueMicrotask(() => void this.serve(target, call, abort));
    return true;
  }

  /** Runs `call` and writes its response, unless it was cancelled (the SDK sends none then). Never rejects. */
  private async serve(target: LaneTarget, call: LaneCall, abort: AbortController): Promise<void> {
    let response: JSONRPCMessage;
    try {
      const result = await target.serve(call.request, this.context(target, call, abort.signal));
      response = { result: encodeLaneResult(result, target.era, target.serverInfo), jsonrpc: '2.0', id: call.id } as JSONRPCMessage;
    } catch (error) {
      response = laneErrorResponse(call.id, error);
    }
    if (!abort.signal.aborted) await this.write(response).catch(() => undefined);
    this.running.delete(abort);
    const handlers = handlersRunning(target.server);
    if (handlers?.get(call.id) === abort) handlers.delete(call.id);
  }

  /** Leaves `value` to the SDK, remembering its id when it is a request (one the SDK may not have entered yet). */
  private passOn(value: unknown): false {
    if (!isPlainObject(value) || typeof value.method !== 'string' || !isRequestId(value.id)) return false;
    this.passedOn.delete(value.id);
    this.passedOn.add(value.id);
    if (this.passedOn.size > PASSED_ON_KEPT) this.passedOn.delete(this.passedOn.values().next().value as RequestId);
    return false;
  }

  /** The connection ended: every running call is aborted. */
  close(): void {
    for (const abort of this.running) abort.abort(new Error('the client connection closed'));
    this.running.clear();
  }

  /** The handler context the SDK would build for `call`: its requests and notifications to the client go through the connection's Server. */
  private context(target: LaneTarget, call: LaneCall, signal: AbortSignal): ServerContext {
    const related = { relatedRequestId: call.id };
    const send = (request: { method: string; params?: Record<string, unknown> }, schema?: unknown, options?: Record<string, unknown>): Promise<unknown> =>
      (target.server.request as (r: unknown, s: unknown, o: unknown) => Promise<unknown>)(request, schema, { ...options, ...related });
    return {
      mcpReq: {
        id: call.id,
        method: 'tools/call',
        ...(call.request.params._meta !== undefined ? { _meta: call.request.params._meta } : {}),
        ...(call.envelope !== undefined ? { envelope: call.envelope } : {}),
        requestState: noState,
        signal,
        send,
        notify: (notification: { method: string; params?: Record<string, unknown> }) => target.server.notification(notification as never, related),
        log: noLog,
      },
    } as unknown as ServerContext;
  }
}
