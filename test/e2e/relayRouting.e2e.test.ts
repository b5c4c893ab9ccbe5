/**
 * An upstream's request goes only to the client it belongs to. Two real HTTP
 * sessions (SDK Clients that both answer sampling and elicitation) on one gateway, in front of the
 * sampler fixture over Streamable HTTP and over stdio. While B's call waits on the upstream, A's call
 * makes the upstream ask the client: with the related request id (the call's own response stream)
 * only A is asked and B never sees A's prompt; without it the upstream gets an error and nobody is
 * asked; with A's call the only one waiting, A is asked. server-everything's sampling tool over stdio
 * shows the same on a real npm server. Source: MCP spec 2025-11-25, Transports ›
 * Streamable HTTP; Client features › Sampling, Elicitation.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixture, serverEntry, startHttp, textOf, writeConfig, type HttpGateway } from '../helpers/gateway.js';
import { startHttpFixture } from '../upstream/e2eHelpers.js';

/** A client that answers sampling and elicitation, recording every prompt it was shown. */
interface Asked {
  readonly client: Client;
  readonly seen: string[];
}

async function capableClient(url: string, name: string): Promise<Asked> {
  const seen: string[] = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler('sampling/createMessage', (request) => {
    const prompt = (request.params.messages[0]?.content as { text: string }).text;
    seen.push(prompt);
    return { role: 'assistant', model: name, content: { type: 'text', text: `${name} read ${prompt}` } };
  });
  client.setRequestHandler('elicitation/create', (request) => {
    seen.push(request.params.message);
    return { action: 'accept', content: { ok: name === 'A' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, seen };
}

describe('upstream requests are routed by the call that caused them', () => {
  let upstream: { child: ChildProcess; url: string };
  let gateway: HttpGateway;
  let a: Asked;
  let b: Asked;
  beforeAll(async () => {
    upstream = await startHttpFixture(fixture('sampler.mjs'), ['--http']);
    const config = writeConfig({
      mcpServers: {
        remote: { url: upstream.url, transport: 'streamable-http', exposure: 'direct' },
        local: { command: 'node', args: [fixture('sampler.mjs')], exposure: 'direct' },
        everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
      },
    });
    gateway = await startHttp(config);
    [a, b] = [await capableClient(gateway.url, 'A'), await capableClient(gateway.url, 'B')];
  });
  afterEach(() => {
    a.seen.length = 0;
    b.seen.length = 0;
  });
  afterAll(async () => {
    await Promise.all([a.client.close(), b.client.close()]);
    await gateway.stop();
    upstream.child.kill('SIGTERM');
  });

  /** Runs `during` while B's `hold` call waits on `server` (known to have reached it: its progress arrived). */
  async function whileBWaits(server: string, during: () => Promise<void>): Promise<void> {
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const hold = b.client.callTool({ name: `${server}__hold`, arguments: {} }, { onprogress: () => reached() });
    await arrived;
    try {
      await during();
    } finally {
      await a.client.callTool({ name: `${server}__release`, arguments: {} });
      expect(textOf(await hold)).toBe('released');
    }
  }
  const ask = async (server: string, kind: 'sampling' | 'elicitation', related: boolean, prompt: string): Promise<string> =>
    textOf(await a.client.callTool({ name: `${server}__ask`, arguments: { prompt, kind, related } }));

  for (const kind of ['sampling', 'elicitation'] as const) {
    const answered = kind === 'sampling' ? 'answered: A read secret of A' : 'answered: accept {"ok":true}';
    // An elicitation reaches the user attributed to the server that asks (docs/security.md).
    const shown = (server: string): string => (kind === 'sampling' ? 'secret of A' : `Server "${server}" asks: secret of A`);

    it(`${kind} with the related request id reaches only A while B's later call waits on the same upstream`, async () => {
      // A's call reaches the upstream first; the upstream asks only once B's call has arrived too.
      let started!: () => void;
      const aReached = new Promise<void>((resolve) => (started = resolve));
      const asking = a.client.callTool({ name: 'remote__ask', arguments: { prompt: 'secret of A', kind, related: true, afterHold: true } }, { onprogress: () => started() });
      await aReached;
      await whileBWaits('remote', async () => {
        expect(textOf(await asking)).toBe(answered);
      });
      expect(a.seen).toEqual([shown('remote')]);
      expect(b.seen).toEqual([]);
    });

    it(`${kind} without a related request id while two clients' calls wait is refused with an error to the upstream`, async () => {
      await whileBWaits('remote', async () => {
        expect(await ask('remote', kind, false, 'secret of A')).toMatch(/^refused: .*cannot tell which client .* calls from 2 clients are waiting/);
      });
      await whileBWaits('local', async () => {
        expect(await ask('local', kind, true, 'secret of A')).toMatch(/^refused: .*cannot tell which client/);
      });
      expect(a.seen).toEqual([]);
      expect(b.seen).toEqual([]);
    });

    it(`${kind} without a related request id goes to A when A's call is the only one waiting (stdio and HTTP)`, async () => {
      expect(await ask('local', kind, false, 'secret of A')).toBe(answered);
      expect(await ask('remote', kind, false, 'secret of A')).toBe(answered);
      expect(a.seen).toEqual([shown('local'), shown('remote')]);
      expect(b.seen).toEqual([]);
    });
  }

  it('a call A cancelled that keeps running upstream (stdio) cannot ask B, whose call is then the only one waiting', async () => {
    let started!: () => void;
    const aReached = new Promise<void>((resolve) => (started = resolve));
    const cancel = new AbortController();
    const asking = a.client
      .callTool({ name: 'local__ask', arguments: { prompt: 'secret of A', kind: 'sampling', afterHold: true } }, { onprogress: () => started(), signal: cancel.signal })
      .catch((error: unknown) => error);
    await aReached;
    cancel.abort('A gave up');
    expect(await asking).toBeInstanceOf(Error);
    // The fixture ignores the cancellation: B's hold lets A's handler go on and ask while B's call waits.
    await whileBWaits('local', () => new Promise((resolve) => setTimeout(resolve, 1000)));
    expect(b.seen).toEqual([]);
    expect(a.seen).toEqual([]);
  });

  it('server-everything’s sampling tool (stdio) reaches A alone, and is refused while B’s long operation waits on it', async () => {
    const sample = async (): Promise<{ isError?: unknown; text: string }> => {
      const result = await a.client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'secret of A', maxTokens: 10 } });
      return { isError: result.isError, text: textOf(result) };
    };
    expect((await sample()).isError).toBeFalsy();
    expect(a.seen).toEqual(['Resource trigger-sampling-request context: secret of A']);

    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const long = b.client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 2, steps: 4 } }, { onprogress: () => reached() });
    await arrived;
    const refused = await sample();
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/cannot tell which client/);
    expect((await long).isError).toBeFalsy();
    expect(a.seen).toHaveLength(1);
    expect(b.seen).toEqual([]);
  });
});
