import { SdkErrorCode, SdkError } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { capIdle, capTotal } from '../../src/upstream/totalCap.js';

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

describe('capIdle (a call waiting on its client’s answer is not idle)', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('aborts after timeoutMs without a touch, with a RequestTimeout carrying timeout', () => {
    const idle = capIdle(1000, () => 0, new AbortController().signal);
    vi.advanceTimersByTime(600);
    idle.touch();
    vi.advanceTimersByTime(999);
    expect(idle.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect((idle.signal.reason as SdkError).data).toEqual({ timeout: 1000 });
  });

  it('does not run while the client’s turn is open, and counts from when it was answered', () => {
    let turn: 'open' | number = 'open';
    const idle = capIdle(1000, () => (turn === 'open' ? performance.now() : turn), new AbortController().signal);
    vi.advanceTimersByTime(60_000);
    expect(idle.signal.aborted).toBe(false);
    turn = performance.now();
    vi.advanceTimersByTime(999);
    expect(idle.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(idle.signal.aborted).toBe(true);
  });

  it('follows the caller’s signal; after dispose nothing aborts it', () => {
    const caller = new AbortController();
    const idle = capIdle(1000, () => 0, caller.signal);
    caller.abort('user cancelled');
    expect(idle.signal.reason).toBe('user cancelled');
    const other = new AbortController();
    const disposed = capIdle(1000, () => 0, other.signal);
    disposed.dispose();
    other.abort();
    vi.advanceTimersByTime(5000);
    expect(disposed.signal.aborted).toBe(false);
  });
});
