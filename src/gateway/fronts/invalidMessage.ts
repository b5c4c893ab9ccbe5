/**
 * Answers for client messages that are not valid JSON-RPC 2.0, shared by the stdio and HTTP fronts:
 * the error response carries the request's own `id` whenever it can be read, `null` only when it
 * cannot (JSON-RPC 2.0 §5: "If there was an error in detecting the id in the Request object (e.g.
 * Parse error/Invalid Request), it MUST be Null"), and its message says which rule was broken.
 * Pure. Source: JSON-RPC 2.0 §4, §5, §5.1.
 */
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { ProtocolErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { isPlainJsonRpcMessage } from '../../lib/jsonRpcShape.js';

/** A request id as JSON-RPC 2.0 §4 defines it, or null when none can be read. */
export type ReadableId = string | number | null;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The id of `value` when it can be read: a string or finite number `id` of a single object that is not
 * a response (one with `result` or `error` is never answered with its own id, so two peers cannot
 * bounce errors at each other). Null otherwise (batches included: which member failed is not one id).
 */
export function readableId(value: unknown): ReadableId {
  if (!isRecord(value) || 'result' in value || 'error' in value) return null;
  const { id } = value;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Which JSON-RPC 2.0 §4 rule `value` breaks, for the error message. */
export function invalidReason(value: unknown): string {
  if (Array.isArray(value)) return 'a batch must be a non-empty array of JSON-RPC 2.0 messages';
  if (!isRecord(value)) return 'not a JSON-RPC 2.0 message (an object)';
  if (value.jsonrpc !== '2.0') return '"jsonrpc" must be exactly "2.0"';
  if ('method' in value && typeof value.method !== 'string') return '"method" must be a string';
  if ('params' in value && !isRecord(value.params)) return '"params" must be an object';
  if ('id' in value && !(typeof value.id === 'string' || Number.isInteger(value.id))) return '"id" must be a string or an integer';
  return 'not a JSON-RPC 2.0 message';
}

/** A JSON-RPC error response. The SDK types the id as a non-null string or number, hence the cast. */
export function errorResponse(id: ReadableId, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
}

/**
 * For one parsed message that the SDK would refuse (it fails `JSONRPCMessageSchema`) but whose id
 * can be read: the -32600 Invalid Request response carrying that id. Undefined for a valid message,
 * and for one without a readable id (the transports answer those with id null, as before).
 */
export function invalidRequestAnswer(value: unknown): JSONRPCMessage | undefined {
  const id = readableId(value);
  if (id === null || isPlainJsonRpcMessage(value) || JSONRPCMessageSchema.safeParse(value).success) return undefined;
  return errorResponse(id, ProtocolErrorCode.InvalidRequest, `Invalid Request: ${invalidReason(value)}`);
}
