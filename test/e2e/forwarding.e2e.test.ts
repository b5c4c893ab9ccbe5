/**
 * Forwarding through the built CLI: results come back unchanged (every content type,
 * structuredContent, isError, _meta), upstream errors and timeouts become isError results naming the
 * server, an upstream's list_changed burst reaches the client once, and the trace records every
 * event with its origin. Source: docs/tools.md, docs/cli.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { fixture, serverEntry, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected } from '../helpers/gateway.js';

describe('forwarding', () => {
  let gw: Connected;
  let tracePath: string;
  beforeAll(async () => {
    const dir = tempDir();
    tracePath = join(dir, 'trace.jsonl');
    const path = writeConfig(
      {
        mcpServers: {
          counter: { command: 'node', args: [fixture('counter.mjs')], timeoutMs: 500, tools: { rich: { exposure: 'direct' }, grow: { exposure: 'direct' } } },
          everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
        },
      },
      dir,
    );
    gw = await startStdio(path, ['--trace', tracePath]);
  });
  afterAll(() => gw.close());

  it('returns an upstream result unchanged: every content type, structuredContent, isError, _meta', async () => {
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ command: 'node', args: [fixture('counter.mjs')], stderr: 'ignore' }));
    const expected = await direct.request({ method: 'tools/call', params: { name: 'rich', arguments: {} } }, (await import('@modelcontextprotocol/core')).ResultSchema);
    await direct.close();
    const through = await gw.client.request(
      { method: 'tools/call', params: { name: 'counter__rich', arguments: {} } },
      (await import('@modelcontextprotocol/core')).ResultSchema,
    );
    expect(through).toEqual(expected);
    expect(JSON.stringify(through)).toBe(JSON.stringify(expected));
  });

  it('forwards server-everything results unchanged (image content)', async () => {
    const result = await gw.client.callTool({ name: 'everything__get-tiny-image', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.content as { type: string }[]).map((c) => c.type)).toContain('image');
  });

  it('turns an upstream JSON-RPC error into isError naming the server and the reason', async () => {
    const result = await gw.client.callTool({ name: 'counter__fail', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/upstream server "counter" \(tool "fail"\) failed: database is locked/);
  });

  it('turns an upstream timeout into isError naming the server, and the gateway keeps serving', async () => {
    // The isError names the 500 ms timeout: a tool answering after 5 s would have succeeded (no wall-clock bound).
    const result = await gw.client.callTool({ name: 'counter__slow', arguments: { ms: 5000 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/upstream server "counter" \(tool "slow"\) did not answer within 500 ms/);
    const echo = await gw.client.callTool({ name: 'everything__echo', arguments: { message: 'still here' } });
    expect(textOf(echo)).toContain('still here');
  });

  it('re-lists an upstream after its list_changed burst and tells the client once', async () => {
    const before = (await gw.client.listTools()).tools.find((t) => t.name === 'tool_search')?.description ?? '';
    expect(before).not.toContain('counter__extra_tool');
    let notified = 0;
    gw.client.setNotificationHandler('notifications/tools/list_changed', () => void (notified += 1));
    await gw.client.callTool({ name: 'counter__grow', arguments: {} });
    expect(await waitFor(() => notified > 0, 5000)).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(notified).toBe(1);
    const after = (await gw.client.listTools()).tools.find((t) => t.name === 'tool_search')?.description ?? '';
    expect(after).toContain('counter__extra_tool');
  });

  it('writes tools_advertised, tool_searched and tool_called with origin to the trace', async () => {
    await gw.client.callTool({ name: 'tool_search', arguments: { query: 'echo' } });
    await gw.client.callTool({ name: 'everything__echo', arguments: { message: 'x' } });
    await gw.client.callTool({ name: 'call_tool', arguments: { name: 'everything__get-sum', arguments: { a: 1, b: 2 } } });
    await gw.client.callTool({ name: 'everything__get-env', arguments: {} });
    await gw.client.callTool({ name: 'made_up_tool', arguments: {} });
    await gw.client.callTool({ name: 'counter__rich', arguments: {} });
    const events = (): Record<string, unknown>[] =>
      readFileSync(tracePath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const expected = ['everything__echo', 'everything__get-sum', 'everything__get-env', 'made_up_tool', 'counter__rich'];
    const traced = (): boolean => expected.every((name) => events().some((e) => e.event === 'tool_called' && e.name === name));
    expect(await waitFor(traced, 10_000)).toBe(true);
    const all = events();
    expect(all.some((e) => e.event === 'tools_advertised' && typeof e.schemaBytes === 'number')).toBe(true);
    const searched = all.find((e) => e.event === 'tool_searched');
    expect(searched).toMatchObject({ ranker: 'bm25' });
    expect(searched).not.toHaveProperty('query');
    const origin = (name: string) => all.findLast((e) => e.event === 'tool_called' && e.name === name)?.origin;
    expect(origin('everything__echo')).toBe('promoted');
    expect(origin('everything__get-sum')).toBe('bridge');
    expect(origin('everything__get-env')).toBe('catalog');
    expect(origin('made_up_tool')).toBe('unknown');
    expect(origin('counter__rich')).toBe('direct');
  });

  it('call_tool given tool_search runs the search; given itself, says what to pass instead', async () => {
    const direct = await gw.client.callTool({ name: 'tool_search', arguments: { query: 'add two numbers' } });
    const bridged = await gw.client.callTool({ name: 'call_tool', arguments: { name: 'tool_search', arguments: { query: 'add two numbers' } } });
    expect(bridged).toEqual(direct);
    expect(JSON.stringify(bridged.content)).toContain('everything__get-sum');
    const itself = await gw.client.callTool({ name: 'call_tool', arguments: { name: 'call_tool', arguments: {} } });
    expect(itself).toEqual({ isError: true, content: [{ type: 'text', text: 'call_tool does not run itself: give "name" the exact name of the tool to run, and "arguments" its parameters.' }] });
  });
});
