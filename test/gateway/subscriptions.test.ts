/**
 * Shared upstream resource subscriptions and the listen filters they come from:
 * one client's unsubscribe never ends another's updates; a refused URI is not held nor promised.
 */
import { describe, expect, it } from 'vitest';
import { cancelledRequest, holdUris, listenRequest, MAX_LISTEN_URIS, StdioListens, withResourceSubscriptions } from '../../src/gateway/modern/listens.js';
import { UpstreamSubscriptions } from '../../src/gateway/subscriptions.js';

/** Registry over a fake upstream that knows `note://a` and `note://b`, recording what it was asked. */
function registry(): { subs: UpstreamSubscriptions; asked: string[] } {
  const asked: string[] = [];
  const subs = new UpstreamSubscriptions(async (method, uri) => {
    if (!uri.startsWith('note://')) throw new Error(`Resource ${uri} not found`);
    asked.push(`${method === 'resources/subscribe' ? '+' : '-'}${uri}`);
  });
  return { subs, asked };
}

const listen = (id: number, uris: unknown): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }, notifications: { toolsListChanged: true, resourceSubscriptions: uris } },
});

describe('UpstreamSubscriptions', () => {
  it('unsubscribes upstream only when the last holder of a URI lets go', async () => {
    const { subs, asked } = registry();
    await subs.add('session-1', 'note://a');
    await subs.add('http-1:listen', 'note://a');
    expect(subs.count('note://a')).toBe(2);
    await subs.remove('session-1', 'note://a');
    expect(asked).toEqual(['+note://a', '+note://a']);
    subs.release('http-1:listen');
    await Promise.resolve();
    expect(asked).toEqual(['+note://a', '+note://a', '-note://a']);
    expect(subs.count('note://a')).toBe(0);
  });

  it('holds nothing for a URI the upstream refused', async () => {
    const { subs } = registry();
    await expect(subs.add('session-1', 'file:///nowhere')).rejects.toThrow('not found');
    expect(subs.count('file:///nowhere')).toBe(0);
  });
});

describe('listen filters', () => {
  it("reads a listen request's id and string URIs, and a cancellation's request id", () => {
    expect(listenRequest(listen(7, ['note://a', 3, 'note://a', 'note://b']))).toEqual({ id: 7, uris: ['note://a', 'note://b'] });
    expect(listenRequest(listen(8, undefined))).toEqual({ id: 8, uris: [] });
    expect(listenRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(listenRequest(null)).toBeUndefined();
    expect(cancelledRequest({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })).toBe(7);
    expect(cancelledRequest({ jsonrpc: '2.0', method: 'notifications/progress', params: { requestId: 7 } })).toBeUndefined();
  });

  it('passes on only the URIs upstreams agreed to, the rest of the request unchanged', async () => {
    const { subs } = registry();
    const held = await holdUris(subs, 'h', ['note://a', 'file:///nowhere', 'note://b']);
    expect(held).toEqual(['note://a', 'note://b']);
    const request = listen(3, ['note://a', 'file:///nowhere', 'note://b']);
    expect(withResourceSubscriptions(request, held)).toEqual(listen(3, held));
  });

  it('holds the first MAX_LISTEN_URIS URIs of a filter and asks upstream for no more (1,500 URIs were 1,500 subscribes)', async () => {
    const { subs, asked } = registry();
    const uris = Array.from({ length: MAX_LISTEN_URIS + 500 }, (_, i) => `note://n${i}`);
    const held = await holdUris(subs, 'h', uris);
    expect(held).toEqual(uris.slice(0, MAX_LISTEN_URIS));
    expect(asked).toHaveLength(MAX_LISTEN_URIS);
    expect(subs.count(`note://n${MAX_LISTEN_URIS}`)).toBe(0);
  });

  it('on stdio, holds a stream until it is cancelled or the connection ends', async () => {
    const { subs, asked } = registry();
    const listens = new StdioListens('stdio-1', () => subs);
    expect(await listens.observe(listen(1, ['note://a']))).toEqual(listen(1, ['note://a']));
    expect(await listens.observe(listen(2, ['note://b', 'file:///x']))).toEqual(listen(2, ['note://b']));
    expect(listens.observe({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).toBeUndefined();
    listens.observe({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await Promise.resolve();
    expect(subs.count('note://a')).toBe(0);
    expect(subs.count('note://b')).toBe(1);
    listens.close();
    await Promise.resolve();
    expect(asked).toEqual(['+note://a', '+note://b', '-note://a', '-note://b']);
  });
});
