/**
 * Request handler registration for the gateway's SDK Server. Two SDK behaviours are corrected here:
 * a request whose params fail the method's schema is answered with -32602 Invalid params naming the
 * first bad field (MCP spec, Basic › JSON-RPC errors) instead of the SDK's -32603 with a Zod dump, and
 * a tools/call result goes back as given (the Server's own tools/call wrapper re-parses results and
 * strips fields upstreams sent).
 */
import { ProtocolError, ProtocolErrorCode, Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

/** Handler context from the SDK: abort signal (`mcpReq.signal`), `mcpReq.notify`, request id. */
export type Extra = ServerContext;

/** What is needed of an SDK request schema (zod, from `@modelcontextprotocol/core`): its method and a safe parse. */
interface RequestSchema<T> {
  readonly shape: { readonly method: { readonly value: string } };
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * Accepts any params, so the SDK routes the request here unchecked and {@link handleRequest} can
 * answer a bad one with -32602 itself (Standard Schema v1, the form the SDK's custom handlers take).
 */
const ANY_PARAMS = { '~standard': { version: 1, vendor: 'toolshelf', validate: (value: unknown) => ({ value }) } } as const;

/**
 * The SDK Server with tools/call left as registered: toolshelf's answer (an upstream's result, or its
 * own `isError`) is already a CallToolResult, and must reach the client with every field the upstream
 * sent. The SDK's wrapper would re-validate the request (we do) and rebuild the result through its
 * schema, dropping unknown content fields.
 */
export class GatewayServer extends Server {
  /**
   * The `instructions` of the initialize result, asked once the client's name is known (the
   * constructor's are the same for every client); undefined leaves the field out. Unset: the constructor's.
   */
  initializeInstructions: (() => string | undefined) | undefined;

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (method === 'tools/call') return handler;
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'initialize') return wrapped;
    return async (request, ctx) => {
      const result = await wrapped(request, ctx);
      const choose = this.initializeInstructions;
      return choose ? withInstructions(result, choose()) : result;
    };
  }
}

/** `result` with `instructions` set to `text`, or without the field when `text` is undefined. */
export function withInstructions(result: Result, text: string | undefined): Result {
  const { instructions: _given, ...rest } = result as Result & { instructions?: unknown };
  return text === undefined ? rest : { ...rest, instructions: text };
}

/**
 * Registers `handler` for the method of `schema`. Params that fail `schema` get
 * `ProtocolError(-32602)` naming the first bad field; anything the handler throws is answered as the
 * SDK does.
 */
export function handleRequest<T>(server: Server, schema: RequestSchema<T>, handler: (request: T, extra: Extra) => Result | Promise<Result>): void {
  const method = schema.shape.method.value;
  server.setRequestHandler(method, { params: ANY_PARAMS }, (params, extra) => {
    const parsed = schema.safeParse({ method, params });
    if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, describeIssue(parsed.error.issues));
    return handler(parsed.data, extra);
  });
}

function describeIssue(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (!first) return 'Invalid params';
  const path = first.path.map(String).join('.');
  return `Invalid params${path ? ` at ${path}` : ''}: ${first.message}`;
}
