/** fitLine (gateway/fronts/stdioLine.ts): what goes to a stdio client whose line is at most N bytes. */
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { fitLine as fitSerialised } from '../../../src/gateway/fronts/stdioLine.js';

const fitLine = (message: JSONRPCMessage, max: number) => fitSerialised(message, JSON.stringify(message), max);

const MAX = 1024 * 1024;

describe('fitLine', () => {
  it('a line within the limit is sent as it is, counted in UTF-8 bytes with its newline', () => {
    const line = (text: string) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: text } });
    const overhead = JSON.stringify(line('')).length + 1;
    expect(fitLine(line('x'.repeat(MAX - overhead)), MAX)).toEqual({ kind: 'fits' });
    expect(fitLine(line('x'.repeat(MAX - overhead + 1)), MAX).kind).toBe('drop');
    // '€' is one UTF-16 unit and three UTF-8 bytes: 350,000 of them are over 1 MiB.
    expect(fitLine(line('€'.repeat(350_000)), MAX).kind).toBe('drop');
  });

  it('a response over the limit becomes an error response under its id; a notification is dropped; a request is refused', () => {
    const big = 'x'.repeat(MAX);
    expect(fitLine({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: big }] } }, MAX)).toEqual({
      kind: 'replace',
      reason: 'the response is 1.0 MiB, more than a stdio client reads on one line (1.0 MiB)',
      message: { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'the response is 1.0 MiB, more than a stdio client reads on one line (1.0 MiB)' } },
    });
    expect(fitLine({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: big } }, MAX)).toEqual({
      kind: 'drop',
      reason: 'notifications/progress is 1.0 MiB, more than a stdio client reads on one line (1.0 MiB)',
    });
    expect(fitLine({ jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: { messages: [big], maxTokens: 1 } }, MAX).kind).toBe('refuse');
  });
});
