/**
 * Held calls for modern clients' `input_required` rounds (issue #9 point 3), driven with the request
 * context fields the SDK hands a tools/call handler: an upstream request becomes an input request
 * named by key, the retry's answer resolves it, a retry without the answer asks again, an unknown
 * `requestState` gets the call-again isError, and a client without the capability is refused.
 */
import { describe, expect, it } from 'vitest';
import type { CallToolRequest, CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { HeldCalls, NOT_HELD_TEXT } from '../../src/gateway/modern/heldCalls.js';

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
    let refused: unknown;
    const first = (await held.serve(request('asker__summarize'), ctx(), async (_extra, origin) => {
      refused = await origin.ask('elicitation/create', {}, new AbortController().signal).catch((error: Error) => error.message);
      const answer = await origin.ask('sampling/createMessage', { maxTokens: 5 }, new AbortController().signal);
      return { content: [{ type: 'text', text: `got ${JSON.stringify(answer)}` }] };
    })) as Round;
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['sampling-1']);
    expect(first.inputRequests?.['sampling-1']?.method).toBe('sampling/createMessage');
    // Its client declared sampling only: an elicitation is refused at once, not asked.
    expect(refused).toMatch(/does not support elicitation\/create/);

    // A retry without the answer is asked the same thing again.
    const again = (await held.serve(request('asker__summarize'), ctx({ state: first.requestState }), () => Promise.reject(new Error('not started twice')))) as Round;
    expect(Object.keys(again.inputRequests ?? {})).toEqual(['sampling-1']);
    expect(again.requestState).toBe(first.requestState);

    const last = (await held.serve(request('asker__summarize'), ctx({ state: first.requestState, responses: { 'sampling-1': { model: 'm' } } }), () => Promise.reject(new Error('not started twice')))) as Round;
    expect(last.resultType).toBeUndefined();
    expect(last.content).toEqual([{ type: 'text', text: 'got {"model":"m"}' }]);
    // The call is over: its state names nothing any more.
    const gone = await held.serve(request('asker__summarize'), ctx({ state: first.requestState }), () => Promise.reject(new Error('unused')));
    expect(gone).toEqual({ content: [{ type: 'text', text: NOT_HELD_TEXT }], isError: true });
  });

  it('a retry naming another tool, or other arguments, than the held call is refused', async () => {
    const held = new HeldCalls();
    const first = (await held.serve(request('a'), ctx(), async (_extra, origin) => {
      await origin.ask('sampling/createMessage', {}, new AbortController().signal);
      return { content: [] };
    })) as Round;
    const other = await held.serve(request('b'), ctx({ state: first.requestState }), () => Promise.reject(new Error('unused')));
    expect((other as CallToolResult).isError).toBe(true);
    const changed: CallToolRequest = { method: 'tools/call', params: { name: 'a', arguments: { x: 1 } } };
    expect(await held.serve(changed, ctx({ state: first.requestState }), () => Promise.reject(new Error('unused')))).toEqual({ content: [{ type: 'text', text: NOT_HELD_TEXT }], isError: true });
  });
});
