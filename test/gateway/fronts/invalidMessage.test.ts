import { describe, expect, it } from 'vitest';
import { invalidReason, invalidRequestAnswer, readableId } from '../../../src/gateway/fronts/invalidMessage.js';

describe('invalid requests are answered with their id when it can be read (JSON-RPC 2.0 §5)', () => {
  it('the exact input of the issue gets -32600 with id 2 and says params must be an object', () => {
    expect(invalidRequestAnswer(JSON.parse('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}'))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: 'Invalid Request: "params" must be an object' },
    });
  });

  it('string and number ids are readable; objects, arrays, booleans, null, batches and responses are not', () => {
    expect(readableId({ id: 'a' })).toBe('a');
    expect(readableId({ id: 1.5, method: 'x' })).toBe(1.5);
    for (const value of [{ id: {} }, { id: [1] }, { id: true }, { id: null }, {}, [{ id: 1 }], 'x', null, { id: 3, result: 'x' }, { id: 3, error: 1 }]) {
      expect(readableId(value), JSON.stringify(value)).toBeNull();
    }
  });

  it('a valid message, or one with no readable id, is left to the SDK (undefined)', () => {
    expect(invalidRequestAnswer({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBeUndefined();
    expect(invalidRequestAnswer({ jsonrpc: '2.0', id: {}, method: 'ping' })).toBeUndefined();
    expect(invalidRequestAnswer(undefined)).toBeUndefined();
  });

  it('the message names the rule broken', () => {
    expect(invalidReason({ id: 1, method: 'ping' })).toBe('"jsonrpc" must be exactly "2.0"');
    expect(invalidReason({ jsonrpc: '2.0', id: 1, method: 7 })).toBe('"method" must be a string');
    expect(invalidReason({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toBe('"id" must be a string or an integer');
    expect(invalidReason([])).toBe('a batch must be a non-empty array of JSON-RPC 2.0 messages');
    expect(invalidReason(42)).toBe('not a JSON-RPC 2.0 message (an object)');
  });
});
