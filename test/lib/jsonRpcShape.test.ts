import { describe, expect, it } from 'vitest';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { isPlainJsonRpcMessage } from '../../src/lib/jsonRpcShape.js';

const common = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
  { jsonrpc: '2.0', id: 'a-7', method: 'tools/list' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 5 } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } },
  { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'Echo: hi' }] } },
  { jsonrpc: '2.0', id: 'x', result: {} },
];

const odd: unknown[] = [
  null,
  [],
  [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
  'text',
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: true, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 },
  { jsonrpc: '2.0', method: 'notifications/x', id: undefined, extra: true },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 1.5 } } },
  // Integers, but not safe ones: the SDK schema refuses them (an id 1e21 was answered with id null).
  { jsonrpc: '2.0', id: 1e21, method: 'tools/call', params: { name: 'x' } },
  { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1e300 } } },
  { jsonrpc: '2.0', id: 2 ** 53, result: {} },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: null } } },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 3 } } } },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: [] } },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, result: { _meta: { 'io.modelcontextprotocol/serverInfo': 5 } } },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'bad' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'bad' } },
  { jsonrpc: '2.0', id: 1, method: 'ping', result: {} },
];

describe('isPlainJsonRpcMessage', () => {
  it('recognises the common requests, notifications and results, all of which the SDK schema accepts', () => {
    for (const message of common) {
      expect(isPlainJsonRpcMessage(message), JSON.stringify(message)).toBe(true);
      expect(JSONRPCMessageSchema.safeParse(message).success, JSON.stringify(message)).toBe(true);
    }
  });

  it('never says true where the SDK schema says no: odd values all take the full schema', () => {
    for (const value of odd) {
      if (isPlainJsonRpcMessage(value)) expect(JSONRPCMessageSchema.safeParse(value).success, JSON.stringify(value)).toBe(true);
    }
    expect(odd.filter((value) => isPlainJsonRpcMessage(value))).toEqual([]);
  });

  it('leaves objects with another prototype to the schema', () => {
    const message = Object.assign(Object.create({ inherited: true }), { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(isPlainJsonRpcMessage(message)).toBe(false);
  });
});
