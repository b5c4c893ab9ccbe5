/**
 * No line toolshelf writes to a stdio client is longer than the client reads (10 MiB for the SDK's
 * stdio clients, which close the connection on a longer one): an upstream's progress or log message
 * over it, sent during a call, is dropped; a sampling request over it is refused to the upstream; the
 * call and the connection go on; a burst of progress reaches the client whole and in order. Over stdio with the real SDK Client of each era, against rude.mjs
 * (a 2025-era upstream, so calls go out directly). Source: MCP spec, Transports › stdio;
 * docs/robustness.md (an 11 MiB progress message ended the client's session).
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, fixture, textOf, writeConfig } from '../helpers/gateway.js';
import { startRawStdio, type RawStdio } from '../gateway/wire.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'line-e2e', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let config: string;
beforeAll(() => {
  config = writeConfig({ mcpServers: { rude: { command: 'node', args: [fixture('rude.mjs')], exposure: 'direct', timeoutMs: 20_000 } } });
});

describe.each([
  ['legacy', {}],
  ['modern', { versionNegotiation: { mode: { pin: '2026-07-28' } } as const }],
])('a %s SDK Client over stdio', (era, negotiation) => {
  let client: Client;
  let closed = false;
  const stderr: string[] = [];
  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config, '--no-share'], stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    client = new Client({ name: 'line-e2e', version: '1' }, { ...negotiation, capabilities: { sampling: {} } });
    client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled' } }));
    client.onclose = () => (closed = true);
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe(era);
  });
  afterAll(async () => {
    await client.close();
  });

  it('an upstream progress message and log message of 11 MiB are dropped: the call answers and the connection stays (it was closed by the client)', async () => {
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'rude__huge', arguments: {} }, { onprogress: (p) => void progress.push(p), timeout: 20_000 });
    expect(textOf(result)).toBe('after huge messages');
    expect(progress).toEqual([]);
    expect(textOf(await client.callTool({ name: 'rude__args', arguments: { n: 1 } }))).toBe('{"n":1}');
    expect(closed).toBe(false);
    expect(stderr.join('')).toContain('not sent to the client: notifications/progress is 11.0 MiB, more than a stdio client reads on one line (10.0 MiB)');
  });

  it('a sampling request of 11 MiB is not sent to the client: the call ends with an answer and the connection stays', async () => {
    const outcome = await client.callTool({ name: 'rude__askhuge', arguments: {} }, { timeout: 20_000 }).then(
      (result) => textOf(result),
      (error: Error) => error.message,
    );
    // Legacy: the request is refused and the upstream told; modern: the input_required round carrying it is answered with an error instead.
    expect(outcome).toMatch(era === 'legacy' ? /^asked: .*more than a stdio client reads on one line/ : /the response is 1\d\.\d MiB, more than a stdio client reads on one line/);
    expect(textOf(await client.callTool({ name: 'rude__args', arguments: { n: 1 } }))).toBe('{"n":1}');
    expect(closed).toBe(false);
  });
});

describe.each(['legacy', 'modern'] as const)('a %s client over raw stdio', (era) => {
  let raw: RawStdio;
  beforeAll(async () => {
    raw = startRawStdio(config);
    if (era === 'legacy') await raw.initialize();
    else await raw.discover(ENVELOPE);
  });
  afterAll(async () => {
    await raw.close();
  });

  it('20,000 upstream progress notifications in one burst are written whole and in order, then the result (behind a full pipe: one shared drain wait)', async () => {
    const progressToken = `flood-${era}`;
    const _meta = era === 'modern' ? { ...ENVELOPE, progressToken } : { progressToken };
    const answer = await raw.request({ jsonrpc: '2.0', id: 'flood', method: 'tools/call', params: { name: 'rude__progressflood', arguments: { count: 20_000 }, _meta } }, 60_000);
    expect(textOf(answer.result)).toBe('after 20000 progress notifications');
    // On the wire, not through an SDK Client: that one drops progress read in the same chunk as the response.
    const upToAnswer = raw.received.slice(0, raw.received.indexOf(answer));
    const progress = upToAnswer.filter((m) => m.method === 'notifications/progress').map((m) => (m.params as { progress: number }).progress);
    expect(progress.length).toBe(20_000);
    expect(progress.every((value, i) => value === i + 1)).toBe(true);
  });
});
