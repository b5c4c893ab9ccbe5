/** The era decisions: which handshake, which cached verdict becomes `prior`. */
import { SdkError, SdkErrorCode, type DiscoverResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { negotiationFor, priorFor, probeEndedChild, STDIO_PROBE_TIMEOUT_MS } from '../../src/upstream/era.js';
import { ERA_VERDICT_MAX_AGE_MS, isFresh, serverChanged, stampNow } from '../../src/upstream/eraVerdict.js';
import { cachedVerdict } from '../../src/upstream/listingCache.js';

const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private', resultType: 'complete' } as unknown as DiscoverResult;

describe('era', () => {
  it('probes by default, bounding a stdio probe by half the start timeout', () => {
    expect(negotiationFor(undefined, true, 30_000)).toEqual({ mode: 'auto', probe: { timeoutMs: STDIO_PROBE_TIMEOUT_MS } });
    expect(negotiationFor('auto', true, 4_000)).toEqual({ mode: 'auto', probe: { timeoutMs: 2_000 } });
    expect(negotiationFor('auto', false, 30_000)).toEqual({ mode: 'auto' });
    expect(negotiationFor('legacy', true, 30_000)).toEqual({ mode: 'legacy' });
    expect(negotiationFor('modern', false, 30_000)).toEqual({ mode: { pin: '2026-07-28' } });
  });

  it('turns a cached verdict into a prior unless the setting fixes the other era', () => {
    expect(priorFor(undefined, undefined)).toBeUndefined();
    expect(priorFor('auto', { era: 'legacy' })).toEqual({ kind: 'legacy' });
    expect(priorFor('auto', { era: 'modern', discover })).toEqual({ kind: 'modern', discover });
    expect(priorFor('legacy', { era: 'modern', discover })).toBeUndefined();
    expect(priorFor('modern', { era: 'legacy' })).toBeUndefined();
    expect(priorFor('modern', { era: 'modern', discover })).toEqual({ kind: 'modern', discover });
  });

  it('tells a child that exited on the probe from other negotiation failures', () => {
    const closed = new SdkError(SdkErrorCode.EraNegotiationFailed, 'Version negotiation failed: the connection closed during the server/discover probe (this transport probed in place — …)');
    const callerClosed = new SdkError(SdkErrorCode.EraNegotiationFailed, 'Version negotiation failed: the transport was closed during the server/discover probe');
    expect(probeEndedChild(closed)).toBe(true);
    expect(probeEndedChild(callerClosed)).toBe(false);
    expect(probeEndedChild(new Error('the connection closed during the server/discover probe'))).toBe(false);
  });

  it('trusts a stamped verdict for 7 days, not an unstamped, future-dated or older one', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const at = (ms: number): { eraCheckedAt: string } => ({ eraCheckedAt: new Date(now - ms).toISOString() });
    expect(isFresh(at(0), now)).toBe(true);
    expect(isFresh(at(ERA_VERDICT_MAX_AGE_MS - 1), now)).toBe(true);
    expect(isFresh(at(ERA_VERDICT_MAX_AGE_MS), now)).toBe(false);
    expect(isFresh(at(-3_600_000), now)).toBe(false);
    expect(isFresh(undefined, now)).toBe(false);
    expect(isFresh({ eraCheckedAt: 'yesterday' }, now)).toBe(false);
    const tools: never[] = [];
    expect(cachedVerdict({ tools, era: 'legacy', ...at(1000) }, now)).toEqual({ era: 'legacy' });
    expect(cachedVerdict({ tools, era: 'legacy', ...at(ERA_VERDICT_MAX_AGE_MS + 1) }, now)).toBeUndefined();
    expect(cachedVerdict({ tools, era: 'legacy' }, now)).toBeUndefined();
    expect(cachedVerdict({ tools, era: 'modern', discover, ...at(1000) }, now)).toEqual({ era: 'modern', discover });
  });

  it('takes another serverInfo name or version than at the probe for a changed server; unknown is no change', () => {
    const stamp = stampNow({ name: 'notifier', version: '1.0.0' }, Date.parse('2026-12-01T12:00:00Z'));
    expect(stamp).toEqual({ eraCheckedAt: '2026-12-01T12:00:00.000Z', eraServerInfo: { name: 'notifier', version: '1.0.0' } });
    expect(serverChanged(stamp, { name: 'notifier', version: '1.0.0' })).toBe(false);
    expect(serverChanged(stamp, { name: 'notifier', version: '1.1.0' })).toBe(true);
    expect(serverChanged(stamp, { name: 'other', version: '1.0.0' })).toBe(true);
    expect(serverChanged(stamp, undefined)).toBe(false);
    expect(serverChanged(stampNow(undefined), { name: 'notifier', version: '2.0.0' })).toBe(false);
  });
});
