import { SdkErrorCode, SdkError } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { capTotal } from '../../src/upstream/totalCap.js';

describe('capTotal', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts exactly at the cap with a RequestTimeout carrying maxTotalTimeout', () => {
    const capped = capTotal(3000, undefined);
    vi.advanceTimersByTime(2999);
    expect(capped.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(capped.signal.aborted).toBe(true);
    const reason = capped.signal.reason as SdkError;
    expect(reason).toBeInstanceOf(SdkError);
    expect(reason.code).toBe(SdkErrorCode.RequestTimeout);
    expect(reason.data).toEqual({ maxTotalTimeout: 3000 });
  });

  it('follows the caller’s signal, also one aborted before the call', () => {
    const caller = new AbortController();
    const capped = capTotal(3000, caller.signal);
    caller.abort('user cancelled');
    expect(capped.signal.reason).toBe('user cancelled');
    const early = capTotal(3000, AbortSignal.abort('gone'));
    expect(early.signal.reason).toBe('gone');
  });

  it('after dispose neither the cap nor the caller aborts it', () => {
    const caller = new AbortController();
    const capped = capTotal(1000, caller.signal);
    capped.dispose();
    caller.abort();
    vi.advanceTimersByTime(5000);
    expect(capped.signal.aborted).toBe(false);
  });
});
