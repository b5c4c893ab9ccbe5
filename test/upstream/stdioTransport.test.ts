import { describe, expect, it } from 'vitest';
import { oversizedResponseId } from '../../src/upstream/stdioTransport.js';

const line = (head: string, tail: string) => ({ bytes: 1e8, head, tail });

describe('oversizedResponseId', () => {
  it('reads the id at the end of a TypeScript SDK response ({result, jsonrpc, id})', () => {
    expect(oversizedResponseId(line('{"result":{"content":[{"type":"text","text":"xxx', 'xxx"}]},"jsonrpc":"2.0","id":12}'))).toBe(12);
  });

  it('reads the id at the start of a Python SDK response ({jsonrpc, id, result})', () => {
    expect(oversizedResponseId(line('{"jsonrpc":"2.0","id":"abc-1","result":{"content":[', 'xx"}]}}'))).toBe('abc-1');
    expect(oversizedResponseId(line('{ "id" : 3, "jsonrpc":"2.0", "result": {', '}}'))).toBe(3);
  });

  it('ignores ids of nested objects', () => {
    expect(oversizedResponseId(line('{"result":{"items":[{"id":5,"name":"x', 'x"}]}}'))).toBeUndefined();
    expect(oversizedResponseId(line('{"result":{"x":"', '","id":5}}'))).toBeUndefined();
  });

  it('ignores requests and notifications from the server', () => {
    expect(oversizedResponseId(line('{"method":"sampling/createMessage","params":{', '},"jsonrpc":"2.0","id":0}'))).toBeUndefined();
    expect(oversizedResponseId(line('{"jsonrpc":"2.0","id":4,"method":"roots/list","params":{', '}}'))).toBeUndefined();
  });

  it('gives up on ids it cannot read', () => {
    expect(oversizedResponseId(line('xxxxxxxx', 'yyyyyyyy'))).toBeUndefined();
    expect(oversizedResponseId(line('{"jsonrpc":"2.0","result":{', '},"id":7,"extra":1}'))).toBeUndefined();
  });
});
