import { describe, expect, it } from 'vitest';
import { CallToolRequestSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/core';
import { Server } from '@modelcontextprotocol/server';
import { CallLane, encodeLaneResult, laneCall, laneErrorResponse, type LaneTarget } from '../../../src/gateway/fronts/callLane.js';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const legacyCall = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'up__echo', arguments: { message: 'hi' } } };
const modernCall = { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'up__echo', arguments: { text: 'hi' }, _meta: envelope } };
const info = { name: 'toolshelf', version: '9.9.9' };

/** Variants of a call, some the lane takes and some it must leave to the SDK. */
function variants(base: Record<string, unknown>): unknown[] {
  const params = base.params as Record<string, unknown>;
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  return [
    base,
    { ...base, id: 1.5 },
    { ...base, id: null },
    { ...base, id: 2 ** 60 },
    { ...base, jsonrpc: '1.0' },
    { ...base, method: 'tools/list' },
    { ...base, extra: 1 },
    { ...base, params: undefined },
    { ...base, params: [] },
    { ...base, params: { ...params, name: 5 } },
    { ...base, params: { ...params, arguments: [] } },
    { ...base, params: { ...params, arguments: 'x' } },
    { ...base, params: { ...params, arguments: undefined } },
    { ...base, params: { ...params, arguments: JSON.parse('{"__proto__":{"x":1},"a":1}') as unknown } },
    { ...base, params: { ...params, task: { ttl: 1 } } },
    { ...base, params: { ...params, inputResponses: {} } },
    { ...base, params: { ...params, requestState: 's' } },
    { ...base, params: { ...params, _meta: 'x' } },
    { ...base, params: { ...params, _meta: { ...meta, progressToken: 3 } } },
    { ...base, params: { ...params, _meta: { ...meta, progressToken: 'p' } } },
    { ...base, params: { ...params, _meta: { ...meta, progressToken: 1.5 } } },
    { ...base, params: { ...params, _meta: { ...meta, 'io.modelcontextprotocol/logLevel': 'info' } } },
    { ...base, params: { ...params, _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } },
    { ...base, params: { ...params, _meta: { ...meta, 'io.modelcontextprotocol/clientInfo': { name: 'c' } } } },
    { ...base, params: { ...params, _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': [] } } },
    { ...base, params: { ...params, _meta: { ...meta, 'x-trace': 1 } } },
    { ...base, params: { ...params, _meta: envelope } },
    { ...base, params: { name: 'bare' } },
  ];
}

describe('the stdio call lane takes only plain tools/call requests', () => {
  it('a legacy call with a name and arguments, or a progress token, is taken; the modern envelope is not legacy', () => {
    expect(laneCall(legacyCall, 'legacy')).toEqual({ id: 7, request: { method: 'tools/call', params: legacyCall.params } });
    expect(laneCall({ ...legacyCall, params: { name: 'x', _meta: { progressToken: 'p' } } }, 'legacy')?.id).toBe(7);
    expect(laneCall(modernCall, 'legacy')).toBeUndefined();
  });

  it('a modern call needs the whole 2026-07-28 envelope and nothing more in _meta', () => {
    // The envelope is lifted out of _meta, as the SDK does: it is never forwarded upstream.
    expect(laneCall(modernCall, 'modern')).toEqual({ id: 'a', request: { method: 'tools/call', params: { name: 'up__echo', arguments: { text: 'hi' } } }, envelope });
    expect(laneCall(legacyCall, 'modern')).toBeUndefined();
    const { 'io.modelcontextprotocol/clientInfo': _info, ...noInfo } = envelope;
    expect(laneCall({ ...modernCall, params: { ...modernCall.params, _meta: noInfo } }, 'modern')).toBeUndefined();
  });

  it('a modern envelope the SDK would refuse with -32602 is left to it, also after a valid one was taken', () => {
    const withEnvelope = (changes: Record<string, unknown>): unknown => ({ ...modernCall, params: { ...modernCall.params, _meta: { ...envelope, ...changes } } });
    const info = 'io.modelcontextprotocol/clientInfo';
    const caps = 'io.modelcontextprotocol/clientCapabilities';
    expect(laneCall(withEnvelope({ [caps]: { sampling: {}, elicitation: {}, roots: { listChanged: true }, tasks: 'ignored in 2026' } }), 'modern')).toBeDefined();
    for (const bad of [{ [info]: { name: 'c', version: '1', title: 5 } }, { [info]: { name: 'c', version: '1', icons: {} } }, { [caps]: { sampling: 5 } }, { [caps]: { elicitation: 'x' } }, { [caps]: { roots: { listChanged: 'yes' } } }]) {
      expect(laneCall(modernCall, 'modern')).toBeDefined();
      expect(laneCall(withEnvelope(bad), 'modern'), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('everything it takes passes the SDK request schemas; the unusual rest is left to the SDK', () => {
    for (const era of ['legacy', 'modern'] as const) {
      let taken = 0;
      for (const value of variants(era === 'legacy' ? legacyCall : modernCall)) {
        const call = laneCall(value, era);
        if (call === undefined) continue;
        taken += 1;
        expect(JSONRPCRequestSchema.safeParse(value).success, JSON.stringify(value)).toBe(true);
        const parsed = CallToolRequestSchema.safeParse(call.request);
        expect(parsed.success, JSON.stringify(value)).toBe(true);
        // The handler sees the arguments the SDK's parse would have given it.
        expect(JSON.stringify(parsed.data?.params.arguments), JSON.stringify(value)).toBe(JSON.stringify(call.request.params.arguments));
      }
      expect(taken).toBeGreaterThanOrEqual(era === 'legacy' ? 5 : 3);
      expect(taken).toBeLessThan(variants(legacyCall).length / 2);
    }
  });
});

describe('lane results are written as the SDK writes them', () => {
  const result = { content: [{ type: 'text', text: 'x' }] };

  it('legacy: the result as it is', () => {
    expect(encodeLaneResult(result, 'legacy', info)).toBe(result);
  });

  it('modern: resultType complete, then toolshelf as serverInfo in _meta, in that key order', () => {
    const encoded = encodeLaneResult({ ...result, _meta: { k: 1 } }, 'modern', info);
    expect(JSON.stringify(encoded)).toBe('{"content":[{"type":"text","text":"x"}],"_meta":{"k":1,"io.modelcontextprotocol/serverInfo":{"name":"toolshelf","version":"9.9.9"}},"resultType":"complete"}');
    expect(JSON.stringify(encodeLaneResult(result, 'modern', info))).toBe(
      '{"content":[{"type":"text","text":"x"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"toolshelf","version":"9.9.9"}}}',
    );
  });

  it('modern: an input_required result keeps its type; a serverInfo already there is kept', () => {
    const asked = { resultType: 'input_required', requestState: 's', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'other', version: '1' } } };
    expect(encodeLaneResult(asked, 'modern', info)).toEqual(asked);
  });

  it('a thrown error keeps its integer code, message and data; -32002 becomes -32602; anything else is -32603', () => {
    expect(laneErrorResponse(3, Object.assign(new Error('bad'), { code: -32021, data: { requiredCapabilities: { sampling: {} } } }))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32021, message: 'bad', data: { requiredCapabilities: { sampling: {} } } },
    });
    expect(laneErrorResponse(3, Object.assign(new Error('gone'), { code: -32002 }))).toMatchObject({ error: { code: -32602, message: 'gone' } });
    expect(laneErrorResponse('x', new Error('boom'))).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32603, message: 'boom' } });
    expect(laneErrorResponse('x', undefined)).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32603, message: 'Internal error' } });
  });
});

describe('lane calls are entered in the SDK Server map of running handlers', () => {
  const target = (server: Server): LaneTarget => ({ era: 'legacy', server, serverInfo: info, ready: () => true, serve: () => new Promise(() => undefined) });

  it('a lane call is entered under its id while it runs, so the SDK cancellation handler finds it', () => {
    const server = new Server(info, { capabilities: { tools: {} } });
    const lane = new CallLane(() => Promise.resolve());
    lane.pin(target(server));
    expect(lane.take(legacyCall)).toBe(true);
    const running = (server as unknown as { _requestHandlerAbortControllers: Map<unknown, AbortController> })._requestHandlerAbortControllers;
    expect(running.get(7)?.signal.aborted).toBe(false);
    lane.close();
    expect(running.get(7)?.signal.aborted).toBe(true);
  });

  it('an SDK without that map gets every call: the lane stays off', () => {
    const server = new Server(info, { capabilities: { tools: {} } });
    delete (server as unknown as Record<string, unknown>)._requestHandlerAbortControllers;
    const lane = new CallLane(() => Promise.resolve());
    lane.pin(target(server));
    expect(lane.take(legacyCall)).toBe(false);
  });
});
