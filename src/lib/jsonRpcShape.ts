/**
 * A quick structural test for the JSON-RPC messages that make up nearly all traffic (a request or
 * notification whose params carry no `_meta`, or a progress token only; a result without `_meta`),
 * so the hot path can skip a zod parse of every line (proxy overhead per call).
 * It is only ever a shortcut: `true` means the SDK's `JSONRPCMessageSchema` (strict objects, SDK
 * 2.4.0 `@modelcontextprotocol/core` schemas.ts) accepts the value too; `false` means "not known",
 * and the caller runs the schema as before. Pure. Source: JSON-RPC 2.0 §4, §5.
 */
import { isPlainObject, onlyKeys } from './plainObject.js';

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);

/** A string or a safe integer: the SDK's `z.number().int()` refuses 1e21 and 2^53, which `Number.isInteger` takes. */
function isRequestId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** Absent params, or an object whose `_meta` is absent or holds at most a valid progress token. */
function plainParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  for (const key in meta) if (key !== 'progressToken' || !isRequestId(meta[key])) return false;
  return true;
}

/**
 * Whether `value` is certainly a valid JSON-RPC 2.0 request, notification or success response by the
 * SDK's message schema. False for error responses, results with `_meta`, and anything unusual: those
 * take the full schema.
 */
export function isPlainJsonRpcMessage(value: unknown): boolean {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return false;
  if ('method' in value) {
    if (typeof value.method !== 'string' || !plainParams(value.params)) return false;
    return 'id' in value ? isRequestId(value.id) && onlyKeys(value, REQUEST_KEYS) : onlyKeys(value, NOTIFICATION_KEYS);
  }
  return 'result' in value && isRequestId(value.id) && isPlainObject(value.result) && value.result._meta === undefined && onlyKeys(value, RESULT_KEYS);
}
