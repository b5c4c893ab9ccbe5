/**
 * Risky calls carry their risk (docs/security.md "Risky calls"), through `toolshelf --http` with real
 * SDK Clients of both eras in front of a fixture whose tools declare each kind of annotation
 * (risky.mjs): call_tool is annotated destructive and open-world; the manifest marks destructive and
 * read-only tools and search answers carry the hints; a destructive tool run through call_tool is
 * confirmed with the user (legacy: elicitation; modern: input_required), refused with how to allow
 * it where the client can be asked neither way, and never gated when called by its own name; over
 * stdio too, where plain calls take the call lane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cliPath, fixture, startHttp, textOf, writeConfig, type HttpGateway } from '../helpers/gateway.js';

type Round = { resultType?: string; inputRequests?: Record<string, { method: string; params?: { message?: string; requestedSchema?: unknown } }>; requestState?: string; isError?: boolean; content?: unknown };
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/** A legacy client that answers elicitation with `answer()` and keeps each message it was asked; or one without elicitation. */
async function legacyClient(url: string, answer?: () => Answer): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 'risk-legacy', version: '1.0.0' }, { capabilities: answer ? { elicitation: {} } : {} });
  if (answer) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(String((request.params as { message?: unknown }).message));
      return answer();
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

async function modernClient(url: string, elicitation: boolean): Promise<Client> {
  const client = new Client({ name: 'risk-modern', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const bridged = (client: Client, name: string, extra: Record<string, unknown> = {}): Promise<Round> =>
  client.callTool({ name: 'call_tool', arguments: { name, arguments: { target: 'all' } }, ...extra } as never, { allowInputRequired: true } as never) as Promise<Round>;

describe('risky calls through the gateway, both eras', () => {
  let gateway: HttpGateway;
  let answer: Answer = { action: 'accept', content: { allow: true } };
  let asking: { client: Client; asked: string[] };
  let mute: Client;
  let modern: Client;
  let modernMute: Client;
  const count = async (): Promise<string> => textOf(await mute.callTool({ name: 'call_tool', arguments: { name: 'risky__count' } }));

  beforeAll(async () => {
    gateway = await startHttp(writeConfig({ mcpServers: { risky: { command: 'node', args: [fixture('risky.mjs')] } }, bridge: { callTool: 'always' } }));
    asking = await legacyClient(gateway.url, () => answer);
    mute = (await legacyClient(gateway.url)).client;
    modern = await modernClient(gateway.url, true);
    modernMute = await modernClient(gateway.url, false);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([asking.client.close(), mute.close(), modern.close(), modernMute.close()]);
    await gateway.stop();
  });

  it('call_tool is annotated destructive and open-world in both eras; the manifest marks and search answers carry the hints', async () => {
    for (const client of [mute, modern]) {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'call_tool')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
      const manifest = tools.find((t) => t.name === 'tool_search')?.description ?? '';
      expect(manifest).toMatch(/risky__wipe \(destructive\): /);
      expect(manifest).toMatch(/risky__peek \(read-only\): /);
      expect(manifest).toMatch(/risky__plain: /);
    }
    const found = (await mute.callTool({ name: 'tool_search', arguments: { query: 'risky__wipe' } })).structuredContent as { tools: { name: string; hints?: string }[] };
    expect(found.tools[0]).toMatchObject({ name: 'risky__wipe', hints: 'destructive' });
    const reads = (await mute.callTool({ name: 'tool_search', arguments: { query: 'read the records of a target' } })).structuredContent as { tools: { name: string; hints?: string }[] };
    expect(reads.tools.find((t) => t.name === 'risky__peek')?.hints).toBe('read-only');
    expect(reads.tools.find((t) => t.name === 'risky__plain')).not.toHaveProperty('hints');
  });

  it('legacy client with elicitation: asked once; yes runs the call, no stops it before the upstream', async () => {
    answer = { action: 'accept', content: { allow: true } };
    expect(textOf(await bridged(asking.client, 'risky__wipe'))).toBe('wipe ran');
    expect(asking.asked).toHaveLength(1);
    expect(asking.asked[0]).toMatch(/^The model wants to run risky__wipe from server "risky" through call_tool\. The tool declares itself destructive\. Arguments: \{"target":"all"\}\. Allow this call\?$/);
    expect(await count()).toBe('wiped 1');
    for (const no of [{ action: 'decline' }, { action: 'cancel' }, { action: 'accept', content: { allow: false } }] as Answer[]) {
      answer = no;
      const declined = await bridged(asking.client, 'risky__wipe');
      expect(declined.isError).toBe(true);
      expect(textOf(declined)).toMatch(/^The user declined to run risky__wipe; nothing was sent to the tool\./);
    }
    expect(await count()).toBe('wiped 1');
    // Read-only, unannotated and additive tools run without asking under the default policy.
    for (const name of ['risky__peek', 'risky__plain', 'risky__fetch_url']) expect(textOf(await bridged(asking.client, name))).toBe(`${name.slice(7)} ran`);
    expect(asking.asked).toHaveLength(4);
  });

  it('a client that can be asked neither way is refused with how to allow it; by its real name the tool is not gated', async () => {
    for (const client of [mute, modernMute]) {
      const refused = await bridged(client, 'risky__wipe');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^risky__wipe was not run: the tool declares itself destructive, and calls through call_tool to such tools need the user's confirmation/);
      expect(textOf(refused)).toContain('"tools": {"wipe": {"exposure": "direct"}} under server "risky"');
      expect(textOf(refused)).toContain('"bridge": {"confirm": "off"}');
    }
    expect(await count()).toBe('wiped 1');
    // Its own name: the client's own approval applies, toolshelf does not ask again.
    expect(textOf(await mute.callTool({ name: 'risky__wipe', arguments: { target: 'all' } }))).toBe('wipe ran');
    expect(textOf(await modernMute.callTool({ name: 'risky__wipe', arguments: { target: 'all' } }))).toBe('wipe ran');
    expect(await count()).toBe('wiped 3');
  });

  it('modern client: the confirmation is an input_required round; yes runs the call, decline stops it', async () => {
    const first = await bridged(modern, 'risky__wipe');
    expect(first.resultType).toBe('input_required');
    const [key, request] = Object.entries(first.inputRequests ?? {})[0] ?? [];
    expect(request?.method).toBe('elicitation/create');
    expect(request?.params?.message).toMatch(/^The model wants to run risky__wipe/);
    expect(request?.params?.requestedSchema).toMatchObject({ type: 'object', required: ['allow'] });
    const done = await bridged(modern, 'risky__wipe', { inputResponses: { [key as string]: { action: 'accept', content: { allow: true } } }, requestState: first.requestState });
    expect(textOf(done)).toBe('wipe ran');
    expect(await count()).toBe('wiped 4');

    const again = await bridged(modern, 'risky__wipe');
    const [again_key] = Object.keys(again.inputRequests ?? {});
    const declined = await bridged(modern, 'risky__wipe', { inputResponses: { [again_key as string]: { action: 'decline' } }, requestState: again.requestState });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/^The user declined to run risky__wipe/);
    expect(await count()).toBe('wiped 4');
  });
});

describe('over stdio (the call lane), a legacy client that declares elicitation', () => {
  it('is asked, and its no stops the call before the upstream', async () => {
    const config = writeConfig({ mcpServers: { risky: { command: 'node', args: [fixture('risky.mjs')] } } });
    const client = new Client({ name: 'claude-ai', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let answer: Answer = { action: 'decline' };
    client.setRequestHandler('elicitation/create', () => answer);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, '--config', config], env: { ...process.env } as Record<string, string> }));
    try {
      const declined = await bridged(client, 'risky__wipe');
      expect(textOf(declined)).toMatch(/^The user declined to run risky__wipe/);
      answer = { action: 'accept', content: { allow: true } };
      expect(textOf(await bridged(client, 'risky__wipe'))).toBe('wipe ran');
      expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'risky__count' } }))).toBe('wiped 1');
    } finally {
      await client.close();
    }
  }, 60_000);
});
