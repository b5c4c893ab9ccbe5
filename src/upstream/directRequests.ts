/**
 * Requests toolshelf sends on a stdio upstream's transport beside its SDK Client: a plain
 * `tools/call` to a 2025-era upstream (calls.ts `sendDirectToolCall`) skips the Client's request
 * machinery (codec, schema parse of every response, per-request abort plumbing), most of what an
 * upstream call costs the gateway (proxy overhead per call). Their ids are
 * negative integers, which the SDK Client (counting up from 0) never uses; their responses and
 * progress notifications are taken here and never reach the Client, and are handed on exactly as the
 * Client would hand them (its id matching, schema parse and 2025 codec).
 * Source: JSON-RPC 2.0 §4, §5 (an id is a string or a number); MCP spec, Utilities › Progress (the
 * token is the caller's choice).
 */
import { ProgressNotificationParamsSchema } from '@modelcontextprotocol/core';
import { isPlainObject, onlyKeys } from '../lib/plainObject.js';

/** How a direct request ended: its result object, or the JSON-RPC error the upstream sent. */
export type DirectResponse = { readonly result: Record<string, unknown> } | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/** What a direct request is told. */
export interface DirectHandlers {
  /** A progress notification for the request: its params without the token. */
  progress(params: Record<string, unknown>): void;
  /** Its response. */
  settle(response: DirectResponse): void;
  /** The connection ended before the response. */
  closed(): void;
}

/**
 * The waiting id an inbound id or progress token names: a number as is, a string read as a number
 * (`"-3"` is -3), as the SDK Client matches responses and progress (`Number(id)`): servers that keep
 * ids as text answer toolshelf's numeric ids under strings. Anything else names no request.
 */
function idKey(value: unknown): number | undefined {
  return typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : undefined;
}

const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);

/** `value` without an own `__proto__` key: the SDK's schema parse rebuilds objects by assignment, which drops it. */
function withoutProtoKey(value: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(value, '__proto__')) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') copy[key] = value[key];
  return copy;
}

/**
 * `result` as the SDK Client's `ResultSchema` parse leaves it (a loose object with `_meta` in its
 * shape): `_meta` first when present, the other keys in their order, no own `__proto__` key at the
 * top or in `_meta`. The same object when there is nothing to change (the common result). Pure.
 */
function asParsedResult(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta;
  if (meta === undefined) return withoutProtoKey(result);
  const parsed: Record<string, unknown> = { _meta: withoutProtoKey(meta as Record<string, unknown>) };
  for (const key of Object.keys(result)) if (key !== '_meta' && key !== '__proto__') parsed[key] = result[key];
  return parsed;
}

/**
 * A 2025-era result as the SDK Client's 2025 codec decodes it (`decodeResult`): without
 * `resultType`, which that era does not have (so an upstream cannot pass an `input_required` on to
 * a modern client), the other keys in their order. The same object when it has none. Pure.
 */
export function legacyResult(result: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(result, 'resultType')) return result;
  const { resultType: _dropped, ...rest } = result;
  return rest;
}

/**
 * `value` as a response the SDK Client would accept for a request (a result object whose `_meta`, if
 * any, is an object, shaped as its parse leaves it; or an error with an integer code and a string
 * message), else undefined: such a line takes the transport's usual path, which reports and drops
 * what is not JSON-RPC. Pure.
 */
export function directResponse(value: Record<string, unknown>): DirectResponse | undefined {
  if (value.jsonrpc !== '2.0') return undefined;
  const { result, error } = value;
  if (isPlainObject(result) && onlyKeys(value, RESULT_KEYS) && (result._meta === undefined || isPlainObject(result._meta))) return { result: asParsedResult(result) };
  if (isPlainObject(error) && onlyKeys(value, ERROR_KEYS) && Number.isSafeInteger(error.code) && typeof error.message === 'string') {
    return { error: { code: error.code as number, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
  }
  return undefined;
}

/**
 * A progress notification's params as the SDK Client's schema parse hands them to its progress
 * handler, token aside: `_meta`, `progress`, `total`, `message` in that order, unknown keys dropped;
 * undefined when that parse fails (the SDK reports and drops such a notification, which the
 * transport's usual path then does). The common shape is checked without the schema. Pure.
 */
function progressParams(params: Record<string, unknown>): Record<string, unknown> | undefined {
  const { progress, total, message } = params;
  // Finite: JSON.parse reads 1e400 as Infinity, which the schema refuses.
  if (Number.isFinite(progress) && (total === undefined || Number.isFinite(total)) && (message === undefined || typeof message === 'string') && params._meta === undefined) {
    return { progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
  }
  const parsed = ProgressNotificationParamsSchema.safeParse(params);
  if (!parsed.success) return undefined;
  const { progressToken: _token, ...rest } = parsed.data;
  return rest;
}

/** The direct requests waiting on one transport, by id. */
export class DirectRequests {
  private readonly waiting = new Map<number, DirectHandlers>();
  private last = 0;

  /** A fresh id, also used as the request's progress token: -1, -2, … */
  nextId(): number {
    this.last -= 1;
    return this.last;
  }

  /** Waits for the response to request `id`. */
  add(id: number, handlers: DirectHandlers): void {
    this.waiting.set(id, handlers);
  }

  /** Stops waiting for `id` (cancelled, timed out); true when it was waiting. */
  forget(id: number): boolean {
    return this.waiting.delete(id);
  }

  /**
   * Takes one parsed inbound message when it is a direct request's response or progress; false
   * leaves it to the transport's usual path (the SDK Client).
   */
  route(value: unknown): boolean {
    if (this.waiting.size === 0 || !isPlainObject(value)) return false;
    if ('method' in value) {
      // Only a JSON-RPC notification (the SDK's strict schema): anything else is reported and dropped on the usual path.
      if (value.method !== 'notifications/progress' || value.jsonrpc !== '2.0' || !onlyKeys(value, NOTIFICATION_KEYS) || !isPlainObject(value.params)) return false;
      const token = idKey(value.params.progressToken);
      const handlers = token === undefined ? undefined : this.waiting.get(token);
      const params = handlers && progressParams(value.params);
      if (!handlers || !params) return false;
      handlers.progress(params);
      return true;
    }
    const key = idKey(value.id);
    if (key === undefined || !this.waiting.has(key)) return false;
    const response = directResponse(value);
    return response !== undefined && this.settle(key, response);
  }

  /** Settles waiting request `id` with `response` (a dropped oversized answer); false when it is not one. */
  settle(id: unknown, response: DirectResponse): boolean {
    const key = idKey(id);
    const handlers = key === undefined ? undefined : this.waiting.get(key);
    if (key === undefined || !handlers) return false;
    this.waiting.delete(key);
    handlers.settle(response);
    return true;
  }

  /** The connection ended: every waiting request is told, and forgotten. */
  closeAll(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const handlers of all) handlers.closed();
  }
}
