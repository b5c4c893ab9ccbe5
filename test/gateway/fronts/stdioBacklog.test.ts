/**
 * BoundedStdioTransport (gateway/fronts/stdio.ts) in front of a client that stops reading: notifications are
 * dropped once MAX_BACKLOG_BYTES wait unread, responses still go out, and reading again resumes them
 * (an upstream's progress flood to such a client grew the gateway's memory without bound).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { BoundedStdioTransport, MAX_BACKLOG_BYTES } from '../../../src/gateway/fronts/stdio.js';

const MiB = 1024 * 1024;
const progress = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n, message: 'p'.repeat(MiB) } });

describe('a stdio client that stops reading', () => {
  it('gets no more notifications past the backlog limit, still gets responses, and gets notifications again once it reads', async () => {
    const output = new PassThrough();
    const warnings: string[] = [];
    const transport = new BoundedStdioTransport(new PassThrough(), output, (w) => warnings.push(w));
    const count = MAX_BACKLOG_BYTES / MiB + 30;
    for (let n = 1; n <= count; n += 1) void transport.send(progress(n)).catch(() => undefined);
    void transport.send({ jsonrpc: '2.0', id: 7, result: { content: [] } } as JSONRPCMessage);
    // Held: about the limit plus one message, not the whole flood.
    expect(output.writableLength + output.readableLength).toBeLessThan(MAX_BACKLOG_BYTES + 2 * MiB);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the client is not reading: over 20 MiB wait for it/);

    const lines = (await readAll(output)).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; params?: { progress: number } });
    expect(lines.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [] } });
    const delivered = lines.filter((l) => l.params).map((l) => l.params!.progress);
    expect(delivered.length).toBeLessThan(count);
    expect(delivered).toEqual(delivered.map((_, i) => i + 1));

    void transport.send(progress(count + 1));
    expect(warnings[1]).toBe(`the client reads again; ${count - delivered.length} notification(s) were dropped while it did not`);
  });
});

/** Everything buffered in `stream` so far, read out (which lets its writable side drain). */
async function readAll(stream: PassThrough): Promise<string> {
  const chunks: Buffer[] = [];
  for (let chunk = stream.read() as Buffer | null; chunk !== null || stream.writableLength > 0; chunk = stream.read() as Buffer | null) {
    if (chunk) chunks.push(chunk);
    else await new Promise((r) => setImmediate(r));
  }
  return Buffer.concat(chunks).toString('utf8');
}
