/**
 * Everything an upstream asks of the client, across eras, through `toolshelf --http`
 * (docs/tools.md, "Sampling, elicitation and roots"): real SDK Clients, modern (2026-07-28, `input_required`) and legacy (a session that
 * answers relayed requests), in front of 2025-era stdio fixtures (asker.mjs, inputs.mjs) and a
 * modern-only one (modernOnly.mjs).
 * - A modern call held for a retry that never comes does not make the next call's upstream request
 *   ambiguous (stdio names no related call; the held call is parked), for a modern or a legacy client;
 *   the held call still resumes later.
 * - A modern upstream's own input keys reach the modern client.
 * - roots/list: relayed to the legacy client whose call caused it, asked as input_required of a modern
 *   one, answered with no roots when no call waits (at the upstream's start-up) or its client has none.
 * - prompts/get whose upstream elicits: input_required for a modern client, relayed to a legacy one.
 * - A client that did not declare the capability an upstream asks for is told which: a legacy tools/call in an
 *   isError, a modern request (tools/call and prompts/get alike) in -32021 MissingRequiredClientCapability,
 *   which MCP 2026-07-28 (SEP-2575) makes a MUST.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixture, startHttp, textOf, writeConfig, type HttpGateway } from '../helpers/gateway.js';
import { startHttpFixture } from '../upstream/e2eHelpers.js';

type Round = { resultType?: string; inputRequests?: Record<string, { method: string }>; requestState?: string; content?: unknown };
type Capabilities = { sampling?: object; elicitation?: object; roots?: object };

/** A v2 Client, modern (pinned) or legacy, answering sampling, elicitation and roots/list with its own name in the answer. */
async function client(url: string, name: string, era: 'modern' | 'legacy', capabilities: Capabilities): Promise<Client> {
  const c = new Client({ name, version: '1.0.0' }, { capabilities, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) });
  if (capabilities.sampling) c.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', model: name, content: { type: 'text', text: `${name} sampled` } }));
  if (capabilities.elicitation) c.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { ok: true } }));
  if (capabilities.roots) c.setRequestHandler('roots/list', () => ({ roots: [{ uri: `file:///${name}`, name }] }));
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

/** One round of a modern tools/call in manual mode: the input_required result comes back as is. */
const round = (c: Client, name: string, extra: Record<string, unknown> = {}): Promise<Round> =>
  c.callTool({ name, arguments: {}, ...extra } as never, { allowInputRequired: true }) as Promise<Round>;

describe('upstream input requests across eras through the gateway', () => {
  let gateway: HttpGateway;
  let modern: Client;
  let legacy: Client;
  const all = { sampling: {}, elicitation: {}, roots: {} };
  beforeAll(async () => {
    const config = writeConfig({
      mcpServers: {
        asker: { command: 'node', args: [fixture('asker.mjs')], exposure: 'direct' },
        inputs: { command: 'node', args: [fixture('inputs.mjs')], exposure: 'direct' },
        modern: { command: 'node', args: [fixture('modernOnly.mjs')], exposure: 'direct' },
      },
    });
    gateway = await startHttp(config);
    modern = await client(gateway.url, 'modern', 'modern', all);
    legacy = await client(gateway.url, 'legacy', 'legacy', all);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([modern.close(), legacy.close()]);
    await gateway.stop();
  });

  it('a held call never retried does not make the next call’s request ambiguous; it resumes later', async () => {
    const parked = await round(modern, 'asker__summarize');
    expect(parked.resultType).toBe('input_required');
    expect(Object.values(parked.inputRequests ?? {}).map((r) => r.method)).toEqual(['sampling/createMessage']);
    // Another modern call to the same upstream, while the first is parked (auto mode: the SDK answers the round).
    expect(textOf(await modern.callTool({ name: 'asker__confirm', arguments: {} }))).toBe('user said: accept {"ok":true}');
    // A legacy client's call: its sampling is relayed to it, not refused.
    expect(textOf(await legacy.callTool({ name: 'asker__summarize', arguments: {} }))).toBe('model said: legacy sampled');
    // The parked call still resumes with its answer.
    const [key] = Object.keys(parked.inputRequests ?? {});
    const done = await round(modern, 'asker__summarize', {
      inputResponses: { [key as string]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'late' } } },
      requestState: parked.requestState,
    });
    expect(textOf(done)).toBe('model said: late');
  });

  it('a modern upstream’s own input keys reach the modern client, and its answer goes back under them', async () => {
    const first = await round(modern, 'modern__ask', { arguments: { kind: 'elicitation', prompt: 'Reply?' } });
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['answer']);
    const done = await round(modern, 'modern__ask', {
      arguments: { kind: 'elicitation', prompt: 'Reply?' },
      inputResponses: { answer: { action: 'accept', content: { reply: 'yes' } } },
      requestState: first.requestState,
    });
    expect(textOf(done)).toBe('answered: {"action":"accept","content":{"reply":"yes"}}');
  });

  it('roots/list goes to the client whose call caused it; at the upstream’s start-up it gets no roots', async () => {
    expect(textOf(await legacy.callTool({ name: 'inputs__roots', arguments: {} }))).toBe('roots: file:///legacy');
    const asked = await round(modern, 'inputs__roots');
    expect(Object.values(asked.inputRequests ?? {}).map((r) => r.method)).toEqual(['roots/list']);
    expect(textOf(await modern.callTool({ name: 'inputs__roots', arguments: {} }))).toBe('roots: file:///modern');
    expect(textOf(await legacy.callTool({ name: 'inputs__startRoots', arguments: {} }))).toBe('[]');
  });

  it('a roots/list that reaches a client without roots is answered with none, and its call goes on (server-everything asks one at start-up, maybe during a call)', async () => {
    const noRoots = { sampling: {}, elicitation: {} };
    const [m, l] = [await client(gateway.url, 'm-noroots', 'modern', noRoots), await client(gateway.url, 'l-noroots', 'legacy', noRoots)];
    try {
      expect(textOf(await m.callTool({ name: 'inputs__roots', arguments: {} }))).toBe('roots: ');
      expect(textOf(await l.callTool({ name: 'inputs__roots', arguments: {} }))).toBe('roots: ');
    } finally {
      await Promise.all([m.close(), l.close()]);
    }
  });

  it('prompts/get whose upstream elicits: input_required for a modern client, relayed to a legacy one', async () => {
    const name = (await modern.listPrompts()).prompts.find((p) => p.name.endsWith('confirmed'))?.name as string;
    const first = (await modern.getPrompt({ name }, { allowInputRequired: true })) as unknown as Round;
    expect(first.resultType).toBe('input_required');
    expect(Object.values(first.inputRequests ?? {}).map((r) => r.method)).toEqual(['elicitation/create']);
    const text = (result: { messages: { content: unknown }[] }): string => (result.messages[0]?.content as { text: string }).text;
    expect(text(await modern.getPrompt({ name }))).toBe('confirmed: accept {"ok":true}');
    expect(text(await legacy.getPrompt({ name }))).toBe('confirmed: accept {"ok":true}');
  });

  it('a client without sampling or elicitation is told what it lacks: a legacy one in an isError, a modern one in -32021 (SEP-2575); the upstream is not left waiting', async () => {
    const [m, l] = [await client(gateway.url, 'm-bare', 'modern', {}), await client(gateway.url, 'l-bare', 'legacy', {})];
    try {
      for (const [tool, capability] of [['asker__summarize', 'sampling'], ['asker__confirm', 'elicitation']] as const) {
        const result = await l.callTool({ name: tool, arguments: {} });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe(
          `Tool "${tool}" needs the client's ${capability} capability: upstream server "asker" asked for ${capability} during the call, and this client did not declare it, so the call failed. Use a client that supports ${capability}, or another tool.`,
        );
        await expect(m.callTool({ name: tool, arguments: {} })).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { [capability]: {} } } });
      }
      // roots: a client without them has none to give, in either era (see the test above).
      for (const bare of [m, l]) expect(textOf(await bare.callTool({ name: 'inputs__roots', arguments: {} }))).toBe('roots: ');
      // Nothing held or abandoned: the next client's sampling on that upstream is routed as usual.
      expect(textOf(await legacy.callTool({ name: 'asker__summarize', arguments: {} }))).toBe('model said: legacy sampled');
    } finally {
      await Promise.all([m.close(), l.close()]);
    }
  });

  it('a modern client without elicitation asking for a prompt whose upstream elicits gets -32021 naming it (prompts/get has no isError)', async () => {
    const bare = await client(gateway.url, 'bare-prompt', 'modern', {});
    try {
      const name = (await bare.listPrompts()).prompts.find((p) => p.name.endsWith('confirmed'))?.name as string;
      await expect(bare.getPrompt({ name })).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    } finally {
      await bare.close();
    }
  });
});

describe('a call whose upstream waits on its client’s answer does not time out while the client answers', () => {
  // timeoutMs 1500 and an answer after 3 s: the upstream's call is idle only in that it waits on the client.
  let gateway: HttpGateway;
  let upstream: { url: string; child: ChildProcess };
  const slowly = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), 3000));
  beforeAll(async () => {
    upstream = await startHttpFixture(fixture('sampler.mjs'), ['--http']);
    const config = writeConfig({
      mcpServers: {
        asker: { command: 'node', args: [fixture('asker.mjs')], exposure: 'direct', timeoutMs: 1500 },
        remote: { url: upstream.url, exposure: 'direct', timeoutMs: 1500 },
        reader: { command: 'node', args: [fixture('readAsker.mjs')], exposure: 'direct', timeoutMs: 1500 },
      },
    });
    gateway = await startHttp(config);
  }, 60_000);
  afterAll(async () => {
    upstream.child.kill();
    await gateway.stop();
  });

  it('a legacy client answering an elicitation after 3 s (stdio upstream, direct calls) gets the result, and so does the next client', async () => {
    const legacy = new Client({ name: 'slow-legacy', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    legacy.setRequestHandler('elicitation/create', () => slowly({ action: 'accept', content: { ok: true } }));
    await legacy.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    try {
      expect(textOf(await legacy.callTool({ name: 'asker__confirm', arguments: {} }))).toBe('user said: accept {"ok":true}');
      // Had the call timed out, it would count as abandoned, and the next client's elicitation be refused for 10 minutes.
      const next = await client(gateway.url, 'next', 'legacy', { elicitation: {} });
      expect(textOf(await next.callTool({ name: 'asker__confirm', arguments: {} }))).toBe('user said: accept {"ok":true}');
      await next.close();
    } finally {
      await legacy.close();
    }
  });

  it('a legacy client answering a related sampling request after 3 s (Streamable HTTP upstream, SDK calls) gets the result', async () => {
    const legacy = new Client({ name: 'slow-remote', version: '1.0.0' }, { capabilities: { sampling: {} } });
    legacy.setRequestHandler('sampling/createMessage', () => slowly({ role: 'assistant', model: 'm', content: { type: 'text', text: 'slow answer' } }));
    await legacy.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    try {
      expect(textOf(await legacy.callTool({ name: 'remote__ask', arguments: { prompt: 'p', kind: 'sampling', related: true } }))).toContain('slow answer');
    } finally {
      await legacy.close();
    }
  });

  it('a modern client retrying its input_required round after 3 s gets the result', async () => {
    const modern = await client(gateway.url, 'slow-modern', 'modern', { elicitation: {} });
    try {
      const first = await round(modern, 'asker__confirm');
      expect(first.resultType).toBe('input_required');
      await slowly(undefined);
      const done = await round(modern, 'asker__confirm', { inputResponses: { 'elicitation-1': { action: 'accept', content: { ok: true } } }, requestState: first.requestState });
      expect(textOf(done)).toBe('user said: accept {"ok":true}');
    } finally {
      await modern.close();
    }
  });

  it('resources/read whose upstream elicits: a legacy client answering after 3 s, and a modern one retrying after 3 s, get the contents', async () => {
    const legacy = new Client({ name: 'slow-reader', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    legacy.setRequestHandler('elicitation/create', () => slowly({ action: 'accept', content: { ok: true } }));
    await legacy.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const modern = await client(gateway.url, 'slow-modern-reader', 'modern', { elicitation: {} });
    try {
      expect((await legacy.readResource({ uri: 'ask://confirm' })).contents[0]).toMatchObject({ text: 'read after: {"ok":true}' });
      const first = (await modern.readResource({ uri: 'ask://confirm' }, { allowInputRequired: true } as never)) as unknown as Round;
      expect(first.resultType).toBe('input_required');
      await slowly(undefined);
      const done = await modern.readResource({ uri: 'ask://confirm', inputResponses: { 'elicitation-1': { action: 'accept', content: { ok: true } } }, requestState: first.requestState } as never, { allowInputRequired: true } as never);
      expect(done.contents[0]).toMatchObject({ text: 'read after: {"ok":true}' });
    } finally {
      await Promise.all([legacy.close(), modern.close()]);
    }
  });

  it('the idle timeout still ends a call whose upstream is silent once answered', async () => {
    const legacy = await client(gateway.url, 'idle', 'legacy', {});
    try {
      await legacy.callTool({ name: 'remote__hold', arguments: {} }).then(
        (result) => expect(textOf(result)).toContain('did not answer within 1500 ms'),
        (error: Error) => expect(error.message).toContain('1500'),
      );
    } finally {
      await legacy.callTool({ name: 'remote__release', arguments: {} }).catch(() => undefined);
      await legacy.close();
    }
  });
});

describe('a modern client’s resources/read and completion/complete are its own requests upstream', () => {
  // readAsker.mjs elicits while a resource is read and samples while completing; B's call is in flight on the same upstream.
  let gateway: HttpGateway;
  let modern: Client;
  let legacy: Client;
  const seenByLegacy: string[] = [];
  beforeAll(async () => {
    gateway = await startHttp(writeConfig({ mcpServers: { reader: { command: 'node', args: [fixture('readAsker.mjs')], exposure: 'direct' } } }));
    modern = await client(gateway.url, 'modern-reader', 'modern', { sampling: {}, elicitation: {} });
    legacy = new Client({ name: 'legacy-bystander', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    legacy.setRequestHandler('elicitation/create', (request) => (seenByLegacy.push(request.params.message), { action: 'accept', content: { ok: false } }));
    legacy.setRequestHandler('sampling/createMessage', (request) => (seenByLegacy.push(JSON.stringify(request.params.messages)), { role: 'assistant', model: 'b', content: { type: 'text', text: 'bystander sampled' } }));
    await legacy.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all([modern.close(), legacy.close()]);
    await gateway.stop();
  });

  it('resources/read whose upstream elicits is an input_required round for the modern client (spec: resources/read supports it)', async () => {
    const read = await modern.readResource({ uri: 'ask://confirm' });
    expect((read.contents[0] as { text: string }).text).toBe('read after: {"ok":true}');
  });

  it('while another client’s call is in flight there, the read’s elicitation and the completion’s sampling never reach that client', async () => {
    const bystander = legacy.callTool({ name: 'reader__hold', arguments: { ms: 2500 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // stdio names no related request: with two clients' requests waiting, the upstream's is refused (it went to B).
    const read = await modern.readResource({ uri: 'ask://confirm' });
    expect((read.contents[0] as { text: string }).text).toMatch(/^read after: refused: toolshelf cannot tell which client/);
    const completed = await modern.complete({ ref: { type: 'ref/prompt', name: 'reader__topic' }, argument: { name: 'word', value: 'x' } });
    expect(completed.completion.values[0]).toMatch(/^refused: /);
    expect(textOf(await bystander)).toBe('held');
    expect(seenByLegacy).toEqual([]);
  });
});

describe('an upstream log that cannot be tied to one client’s call reaches no client', () => {
  let gateway: HttpGateway;
  beforeAll(async () => {
    gateway = await startHttp(writeConfig({ mcpServers: { reader: { command: 'node', args: [fixture('readAsker.mjs')], exposure: 'direct' } } }));
  }, 60_000);
  afterAll(async () => {
    await gateway.stop();
  });

  it('A’s call logs while B’s call is in flight on the same stdio upstream: B never gets the line', async () => {
    const [a, b] = [await gateway.connect('log-a'), await gateway.connect('log-b')];
    const seenB: unknown[] = [];
    b.setNotificationHandler('notifications/message', (n) => void seenB.push(n.params.data));
    const bystander = b.callTool({ name: 'reader__hold', arguments: { ms: 1500 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(textOf(await a.callTool({ name: 'reader__log', arguments: { text: 'private to a' } }))).toBe('logged');
    expect(textOf(await bystander)).toBe('held');
    // Alone on the upstream, A's call's line reaches A (and B still nothing).
    const seenA: unknown[] = [];
    a.setNotificationHandler('notifications/message', (n) => void seenA.push(n.params.data));
    expect(textOf(await a.callTool({ name: 'reader__log', arguments: { text: 'a alone' } }))).toBe('logged');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seenA).toEqual(['a alone']);
    expect(seenB).toEqual([]);
  });
});
