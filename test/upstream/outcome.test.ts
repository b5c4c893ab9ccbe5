import { ProtocolError, SdkErrorCode, SdkError, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { classifyFailure, isSessionExpired } from '../../src/upstream/outcome.js';

const call = { timeoutMs: 500, aborted: false, closed: false };

describe('classifyFailure', () => {
  it('reads the SDK idle timeout as a timeout of the call’s timeoutMs', () => {
    const error = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 500 });
    expect(classifyFailure(error, call)).toEqual({ kind: 'timeout', ms: 500 });
  });

  it('reads the total cap as a timeout of the cap', () => {
    const error = new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: 9000 });
    expect(classifyFailure(error, call)).toEqual({ kind: 'timeout', ms: 9000 });
  });

  it('keeps a server’s own -32001 error an upstream error (no timeout data)', () => {
    const error = new ProtocolError(-32001, 'backend timed out');
    expect(classifyFailure(error, call)).toEqual({ kind: 'upstream_error', code: -32001, message: 'backend timed out' });
  });

  it('reads a caller abort as cancelled, whatever the error', () => {
    expect(classifyFailure(new Error('AbortError'), { ...call, aborted: true })).toEqual({ kind: 'cancelled' });
  });

  it('reads ConnectionClosed as unavailable only when our connection did close, with the retry time', () => {
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(classifyFailure(closed, { ...call, closed: true, retryInMs: 1200 })).toEqual({
      kind: 'unavailable',
      reason: 'the connection closed during the call',
      retryInMs: 1200,
    });
    // Regression: a server answering {code: -32000, message: 'database is locked'}.
    const serverError = new ProtocolError(-32000, 'database is locked');
    expect(classifyFailure(serverError, call)).toEqual({ kind: 'upstream_error', code: -32000, message: 'database is locked' });
  });

  it('reads a serialisation failure as not sent, not as the upstream failing', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    let error: unknown;
    try {
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: deep } });
    } catch (thrown) {
      error = thrown;
    }
    expect(classifyFailure(error, call)).toEqual({
      kind: 'upstream_error',
      message: 'the arguments could not be sent: they are nested too deeply to serialise (Maximum call stack size exceeded); nothing reached the upstream',
      notSent: true,
    });
    expect(classifyFailure(new RangeError('Invalid string length'), call)).toMatchObject({ notSent: true, message: expect.stringContaining('Invalid string length') });
  });

  it('keeps any other error as an upstream error with its message', () => {
    expect(classifyFailure(new TypeError('fetch failed'), call)).toEqual({ kind: 'upstream_error', message: 'fetch failed' });
    expect(classifyFailure('odd', call)).toEqual({ kind: 'upstream_error', message: 'odd' });
  });
});

describe('isSessionExpired', () => {
  it('is true for a Streamable HTTP 404 only', () => {
    expect(isSessionExpired(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Session not found', { status: 404, statusText: 'Not Found' }))).toBe(true);
    expect(isSessionExpired(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'boom', { status: 500, statusText: 'Internal Server Error' }))).toBe(false);
    expect(isSessionExpired(new ProtocolError(404, 'not found'))).toBe(false);
  });
});
