import { describe, expect, it } from 'vitest';
import { JSONRPCErrorResponseSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/core';
import { DirectRequests, directResponse, type DirectResponse } from '../../src/upstream/directRequests.js';

function waiting(requests: DirectRequests): { id: number; seen: (DirectResponse | 'closed' | Record<string, unknown>)[] } {
  const seen: (DirectResponse | 'closed' | Record<string, unknown>)[] = [];
  const id = requests.nextId();
  requests.add(id, { progress: (p) => seen.push(p), settle: (r) => seen.push(r), closed: () => seen.push('closed') });
  return { id, seen };
}

describe('direct requests beside the SDK Client', () => {
  it('ids are negative integers, never one the SDK Client counts up to', () => {
    const requests = new DirectRequests();
    expect([requests.nextId(), requests.nextId(), requests.nextId()]).toEqual([-1, -2, -3]);
  });

  it('takes its own response and progress; leaves the Client its own and anything after the answer', () => {
    const requests = new DirectRequests();
    const call = waiting(requests);
    expect(requests.route({ jsonrpc: '2.0', id: 0, result: {} })).toBe(false);
    expect(requests.route({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1 } })).toBe(false);
    expect(requests.route({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: call.id, progress: 1, total: 2 } })).toBe(true);
    expect(requests.route({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })).toBe(false);
    expect(requests.route({ result: { content: [] }, jsonrpc: '2.0', id: call.id })).toBe(true);
    expect(requests.route({ result: { content: [] }, jsonrpc: '2.0', id: call.id })).toBe(false);
    expect(call.seen).toEqual([{ progress: 1, total: 2 }, { result: { content: [] } }]);
  });

  it('a malformed answer is left to the usual path (reported and dropped); the call still waits', () => {
    const requests = new DirectRequests();
    const call = waiting(requests);
    for (const bad of [
      { jsonrpc: '2.0', id: call.id, result: 'x' },
      { jsonrpc: '2.0', id: call.id, result: { _meta: 5 } },
      { jsonrpc: '2.0', id: call.id, result: {}, extra: 1 },
      { jsonrpc: '2.0', id: call.id, error: { code: 1.5, message: 'x' } },
      { jsonrpc: '1.0', id: call.id, result: {} },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: call.id, progress: 'half' } },
    ]) {
      expect(requests.route(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(call.seen).toEqual([]);
    expect(requests.route({ jsonrpc: '2.0', id: call.id, error: { code: -32602, message: 'no', data: { why: 1 } } })).toBe(true);
    expect(call.seen).toEqual([{ error: { code: -32602, message: 'no', data: { why: 1 } } }]);
  });

  it('every response it accepts is one the SDK schemas accept', () => {
    const candidates: Record<string, unknown>[] = [
      { jsonrpc: '2.0', id: -1, result: {} },
      { jsonrpc: '2.0', id: -1, result: { _meta: {} } },
      { jsonrpc: '2.0', id: -1, result: { _meta: { 'io.modelcontextprotocol/serverInfo': 5 } } },
      { jsonrpc: '2.0', id: -1, result: [] },
      { jsonrpc: '2.0', id: -1, error: { code: -1, message: 'm' } },
      { jsonrpc: '2.0', id: -1, error: { code: -1 } },
      { jsonrpc: '2.0', id: -1, error: { code: -1, message: 'm', data: null } },
      { jsonrpc: '2.0', id: -1, error: { code: -1, message: 'm' }, result: {} },
    ];
    for (const value of candidates) {
      const response = directResponse(value);
      if (response === undefined) continue;
      const schema = 'result' in response ? JSONRPCResultResponseSchema : JSONRPCErrorResponseSchema;
      expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(true);
    }
    expect(candidates.filter((v) => directResponse(v) !== undefined)).toHaveLength(5);
  });

  it('forgotten requests (cancelled, timed out) take nothing more; the end of the connection tells those still waiting', () => {
    const requests = new DirectRequests();
    const gone = waiting(requests);
    const kept = waiting(requests);
    expect(requests.forget(gone.id)).toBe(true);
    expect(requests.forget(gone.id)).toBe(false);
    expect(requests.route({ jsonrpc: '2.0', id: gone.id, result: {} })).toBe(false);
    expect(requests.settle(kept.id, { error: { code: -32603, message: 'too big' } })).toBe(true);
    const last = waiting(requests);
    requests.closeAll();
    expect(gone.seen).toEqual([]);
    expect(kept.seen).toEqual([{ error: { code: -32603, message: 'too big' } }]);
    expect(last.seen).toEqual(['closed']);
  });
});
