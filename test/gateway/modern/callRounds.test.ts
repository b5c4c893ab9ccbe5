/**
 * Held calls for modern clients' `input_required` rounds, driven with the request
 * context fields the SDK hands a tools/call handler: an upstream request becomes an input request
 * named by key (the upstream's own when it gave one), the retry's answer resolves it, a retry without
 * the answer asks again under a fresh state, an unknown or spent `requestState` gets -32602 with the
 * call-again text, a client without the capability gets -32021 (SEP-2575) on a prompts/get and a
 * tools/call alike, and a parked call says so.
 */
import { describe, expect, it, vi } from 'vitest';
import type { CallToolRequest, CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { HeldCalls, HOLD_MS, NOT_HELD_TEXT } from '../../../src/gateway/modern/callRounds.js';

const request = (name: string): CallToolRequest => ({ method: 'tools/call', params: { name, arguments: {} } });

function ctx(round: { state?: string; responses?: Record<string, unknown> } = {}): ServerContext {
  return {
    mcpReq: {
      signal: new AbortController().signal,
      notify: () => Promise.resolve(),
      inputResponses: round.responses,
      requestState: () => round.state,
      envelope: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } },
    },
  } as unknown as ServerContext;
}

type Round = CallToolResult & { resultType?: string; inputRequests?: Record<string, { method: string }>; requestState?: string };

describe('HeldCalls', () => {
  it('an upstream request becomes input_required; the answer goes back and the result ends the call', async () => {
    const held = new HeldCalls();
    let parked: (() => boolean) | undefined;
    const first = (await held.serve(request('asker__summarize'), ctx(), async (_extra, origin) => {
      parked = origin.parked;
      const answer = await origin.ask('sampling/createMessage', { maxTokens: 5 }, new AbortController().signal);
      return { content: [{ type: 'text', text: `got ${JSON.stringify(answer)}` }] };
    })) as Round;
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['sampling-1']);
    expect(first.inputRequests?.['sampling-1']?.method).toBe('sampling/createMessage');
    // Its client holds the round: the call is parked (callRouting.ts does not take it for a new request's cause).
    expect(parked?.()).toBe(true);

    // A retry without the answer is asked the same thing again, under a new state; the old one is spent.
    const again = (await held.serve(request('asker__summarize'), ctx({ state: first.requestState }), () => Promise.reject(new Error('not started twice')))) as Round;
    expect(Object.keys(again.inputRequests ?? {})).toEqual(['sampling-1']);
    expect(again.requestState).not.toBe(first.requestState);
    await expect(held.serve(request('asker__summarize'), ctx({ state: first.requestState }), () => Promise.reject(new Error('unused')))).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(NOT_HELD_TEXT) });

    const last = (await held.serve(request('asker__summarize'), ctx({ state: again.requestState, responses: { 'sampling-1': { model: 'm' } } }), () => Promise.reject(new Error('not started twice')))) as Round;
    expect(last.resultType).toBeUndefined();
    expect(last.content).toEqual([{ type: 'text', text: 'got {"model":"m"}' }]);
    // The call is over: its state names nothing any more.
    await expect(held.serve(request('asker__summarize'), ctx({ state: again.requestState }), () => Promise.reject(new Error('unused')))).rejects.toMatchObject({ code: -32602 });
  });

  it('keeps the upstream’s own input key; a request the client cannot answer fails the round with -32021 naming the capability', async () => {
    const held = new HeldCalls();
    const keyed = (await held.serve(request('a'), ctx(), async (_extra, origin) => {
      await origin.ask('sampling/createMessage', {}, new AbortController().signal, 'capital_question');
      return { content: [] };
    })) as Round;
    expect(Object.keys(keyed.inputRequests ?? {})).toEqual(['capital_question']);

    // A prompts/get has no isError to say it in: the round fails with -32021.
    let upstreamGot: unknown;
    const prompt = { method: 'prompts/get', params: { name: 'b' } };
    const refused = held.serve(prompt, ctx(), async (_extra, origin) => {
      upstreamGot = await origin.ask('elicitation/create', {}, new AbortController().signal).catch((error: Error) => error.message);
      return { messages: [] };
    });
    await expect(refused).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect(upstreamGot).toMatch(/does not support elicitation\/create/);
  });

  it('a tools/call whose upstream asks what the client cannot answer fails the round with -32021 too (SEP-2575 MUST), the upstream refused by capability', async () => {
    const held = new HeldCalls();
    let refusal: unknown;
    const refused = held.serve(request('c'), ctx(), async (_extra, origin) => {
      refusal = await origin.ask('elicitation/create', {}, new AbortController().signal).catch((error: unknown) => error);
      return { content: [], isError: true };
    });
    await expect(refused).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect((refusal as { capability?: string }).capability).toBe('elicitation');
  });

  it('a round the client cancels ends the call: the upstream’s pending request gets an error rather than no answer', async () => {
    const held = new HeldCalls();
    let upstreamGot: Promise<string> | undefined;
    const first = (await held.serve(request('a'), ctx(), async (_extra, origin) => {
      upstreamGot = origin.ask('sampling/createMessage', {}, new AbortController().signal).then(
        () => 'answered',
        (error: Error) => `error: ${error.message}`,
      );
      await upstreamGot;
      return { content: [] };
    })) as Round;
    const cancelled = new AbortController();
    const retry = held.serve(request('a'), { ...ctx({ state: first.requestState }), mcpReq: { ...ctx({ state: first.requestState }).mcpReq, signal: cancelled.signal } } as ServerContext, () => Promise.reject(new Error('unused')));
    cancelled.abort(new Error('the client gave up'));
    // The client gave up on the retry: what it is answered is dropped; the upstream's request is answered with the error.
    await retry.catch(() => undefined);
    expect(await upstreamGot).toBe('error: the client gave up');
  });

  it('a retry naming another tool, or other arguments, than the held call is refused', async () => {
    const held = new HeldCalls();
    const first = (await held.serve(request('a'), ctx(), async (_extra, origin) => {
      await origin.ask('sampling/createMessage', {}, new AbortController().signal);
      return { content: [] };
    })) as Round;
    await expect(held.serve(request('b'), ctx({ state: first.requestState }), () => Promise.reject(new Error('unused')))).rejects.toMatchObject({ code: -32602 });
    const changed: CallToolRequest = { method: 'tools/call', params: { name: 'a', arguments: { x: 1 } } };
    await expect(held.serve(changed, ctx({ state: first.requestState }), () => Promise.reject(new Error('unused')))).rejects.toMatchObject({ code: -32602 });
  });
});

describe('HeldCalls cap (each held call keeps an upstream request and ~70 KB for up to 10 minutes)', () => {
  it('past the cap the oldest held call is given up: its state is refused and its upstream request fails; the others resume', async () => {
    const held = new HeldCalls(2);
    const upstreamGot: Promise<string>[] = [];
    const start = async (name: string): Promise<Round> =>
      (await held.serve(request(name), ctx(), async (_extra, origin) => {
        const answer = origin.ask('sampling/createMessage', {}, new AbortController().signal).then((a) => JSON.stringify(a), (error: Error) => `failed: ${error.message}`);
        upstreamGot.push(answer);
        return { content: [{ type: 'text', text: await answer }] };
      })) as Round;
    const rounds = [await start('one'), await start('two'), await start('three')];
    expect(rounds.map((r) => r.resultType)).toEqual(['input_required', 'input_required', 'input_required']);
    expect(await upstreamGot[0]).toMatch(/^failed: /);
    await expect(held.serve(request('one'), ctx({ state: rounds[0]!.requestState, responses: { 'sampling-1': { model: 'm' } } }), () => Promise.reject(new Error('unused')))).rejects.toMatchObject({ code: -32602 });
    for (const [i, name] of [[1, 'two'], [2, 'three']] as const) {
      const done = (await held.serve(request(name), ctx({ state: rounds[i]!.requestState, responses: { 'sampling-1': { model: name } } }), () => Promise.reject(new Error('unused')))) as Round;
      expect(done.content).toEqual([{ type: 'text', text: `{"model":"${name}"}` }]);
    }
  });
});

describe('HeldCalls expiry (a retry after the hold expired)', () => {
  it('after HOLD_MS without a retry the upstream request fails and the retry gets -32602', async () => {
    // Only the global timers are faked: the round's settle wait (timers/promises) runs in real time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const held = new HeldCalls();
      let upstreamGot: Promise<string> | undefined;
      const first = (await held.serve(request('late'), ctx(), async (_extra, origin) => {
        upstreamGot = origin.ask('sampling/createMessage', {}, new AbortController().signal).then(() => 'answered', (error: Error) => `failed: ${error.message}`);
        return { content: [{ type: 'text', text: await upstreamGot }] };
      })) as Round;
      expect(first.resultType).toBe('input_required');
      vi.advanceTimersByTime(HOLD_MS - 1);
      expect(await Promise.race([upstreamGot, Promise.resolve('still waiting')])).toBe('still waiting');
      vi.advanceTimersByTime(1);
      expect(await upstreamGot).toBe('failed: input_required: the client did not retry');
      await expect(held.serve(request('late'), ctx({ state: first.requestState, responses: { 'sampling-1': { model: 'm' } } }), () => Promise.reject(new Error('unused')))).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(NOT_HELD_TEXT) });
    } finally {
      vi.useRealTimers();
    }
  });
});
