/** The era decisions (issue #9 point 4): which handshake, which cached verdict becomes `prior`. */
import { SdkError, SdkErrorCode, type DiscoverResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { negotiationFor, priorFor, probeEndedChild, STDIO_PROBE_TIMEOUT_MS } from '../../src/upstream/era.js';

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
});
