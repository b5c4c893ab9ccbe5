/**
 * An upstream that stops reading its stdin (its pipe fills with the gateway's writes) costs only its
 * own calls: each times out as an isError result, another upstream still answers, and the gateway
 * ends with both upstreams when the client leaves, the writes still queued. Real SDK Client of each
 * era over stdio, deaf.mjs (reads nothing after `deafen`) and counter.mjs (the
 * upstream side of the shared drain, stdioTransport writeLine).
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { alive, cliPath, descendants, fixture, textOf, waitFor, writeConfig } from '../helpers/gateway.js';

describe.each([
  ['legacy', {}],
  ['modern', { versionNegotiation: { mode: { pin: '2026-07-28' } } as const }],
])('a %s client, an upstream that stopped reading', (era, negotiation) => {
  it('times out its calls, leaves the other upstream answering, and the gateway ends with both', async () => {
    const config = writeConfig({
      mcpServers: {
        deaf: { command: 'node', args: [fixture('deaf.mjs')], exposure: 'direct', timeoutMs: 3000 },
        ok: { command: 'node', args: [fixture('counter.mjs')], exposure: 'direct' },
      },
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config, '--no-share'], stderr: 'pipe' });
    const client = new Client({ name: `deaf-${era}`, version: '1' }, negotiation);
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe(era);
    const gw = { client, pid: transport.pid as number, close: () => client.close() };
    const upstreams = descendants(gw.pid);
    try {
      expect(textOf(await gw.client.callTool({ name: 'deaf__deafen', arguments: {} }))).toBe('deaf now');
      // 4 calls of 4 MiB each: far more than a pipe holds, so the writes wait on the upstream's drain.
      const big = 'x'.repeat(4 * 1024 * 1024);
      const stuck = await Promise.all([1, 2, 3, 4].map(() => gw.client.callTool({ name: 'deaf__echo', arguments: { text: big } })));
      for (const result of stuck) expect(result.isError).toBe(true);
      expect(textOf(await gw.client.callTool({ name: 'ok__call_count', arguments: {} }))).toBe('1');
    } finally {
      await gw.close();
    }
    expect(await waitFor(() => !alive(gw.pid) && upstreams.every((pid) => !alive(pid)), 20_000)).toBe(true);
  }, 120_000);
});
