/**
 * BoundedStdioTransport (gateway/fronts/stdio.ts) in front of a client that stops reading: notifications are
 * dropped once MAX_BACKLOG_BYTES wait unread, responses still go out, and reading again resumes them
 * (an upstream's progress flood to such a client grew the gateway's memory without bound); past
 * MAX_PENDING_OUTPUT_BYTES its answers become a short error (8 MB results to such a client did the same).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { BoundedStdioTransport, MAX_BACKLOG_BYTES, MAX_PENDING_OUTPUT_BYTES, MAX_STDIO_RESULT_BYTES } from '../../../src/gateway/fronts/stdio.js';

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

describe('a stdio client that stops reading its answers', () => {
  it('gets a short error for each answer past the pending limit, and whole answers again once it reads', async () => {
    const output = new PassThrough();
    const warnings: string[] = [];
    const transport = new BoundedStdioTransport(new PassThrough(), output, (w) => warnings.push(w));
    const big = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(8 * 1000 * 1000) }] } }) as JSONRPCMessage;
    // Each send resolves at once: a sender held until the client reads kept its whole result alive.
    for (let id = 1; id <= 12; id += 1) await transport.send(big(id));
    await expect(transport.send({ jsonrpc: '2.0', id: 'ask', method: 'elicitation/create', params: {} } as JSONRPCMessage)).rejects.toThrow(/^Not sent: over 40 MiB/);
    // The limit, one answer written over it, and one the PassThrough's readable side took: not all twelve.
    expect(output.writableLength + output.readableLength).toBeLessThan(MAX_PENDING_OUTPUT_BYTES + 2 * MAX_STDIO_RESULT_BYTES);
    expect(warnings).toEqual(['the client is not reading: over 40 MiB wait for it, so answers to it are replaced by an error and its input waits until it reads again']);

    const lines = (await readAll(output)).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result?: unknown; error?: { code: number; message: string } });
    expect(lines.map((l) => l.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const whole = lines.filter((l) => l.result).length;
    expect(whole).toBeGreaterThanOrEqual(MAX_PENDING_OUTPUT_BYTES / 8_000_000);
    expect(whole).toBeLessThan(12);
    for (const line of lines.slice(whole)) expect(line.error).toEqual({ code: -32603, message: 'Not sent: over 40 MiB of earlier output wait unread for this client; read it, then retry' });

    void transport.send(big(13));
    expect(warnings[1]).toBe(`the client reads again; ${12 - whole + 1} message(s) to it were replaced by an error while it did not`);
    expect(JSON.parse((await readAll(output)).trim())).toMatchObject({ id: 13, result: {} });
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
