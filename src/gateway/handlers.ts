/**
 * Request handler registration for the gateway's SDK Server. Two SDK behaviours are corrected here:
 * a request whose params fail the method's schema is answered with -32602 Invalid params (MCP spec,
 * Basic › JSON-RPC errors) instead of the SDK Protocol's -32603 with a Zod dump, and a handler's
 * result goes back as given (the Server's own tools/call wrapper re-parses results and strips fields
 * upstreams sent; issue #2 item 9).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, McpError, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** Handler context from the SDK: abort signal, sendNotification, request id. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What is needed of an SDK request schema (zod): a safe parse and a way to keep only `method`. */
interface RequestSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
  pick(keys: { method: true }): { passthrough(): unknown };
}

/**
 * Registers `handler` for the method of `schema`. Params that fail `schema` get `McpError(-32602)`
 * naming the first bad field; anything the handler throws is answered as the SDK does.
 */
export function handleRequest<T>(server: Server, schema: RequestSchema<T>, handler: (request: T, extra: Extra) => unknown): void {
  // Routing only needs the method; validation happens below so its failure can be -32602.
  const routing = schema.pick({ method: true }).passthrough();
  const register = Protocol.prototype.setRequestHandler as unknown as (this: Server, s: unknown, h: (r: unknown, e: Extra) => unknown) => void;
  register.call(server, routing, (request, extra) => {
    const parsed = schema.safeParse(request);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, describeIssue(parsed.error.issues));
    return handler(parsed.data, extra);
  });
}

function describeIssue(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (!first) return 'Invalid params';
  const path = first.path.map(String).join('.');
  return `Invalid params${path ? ` at ${path}` : ''}: ${first.message}`;
}
