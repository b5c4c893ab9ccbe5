/**
 * One tools/call through dispatchCall (src/gateway/dispatch.ts), in process: a real shelf built from
 * a config and two small upstream listings, real admission (ajv against the canonical schema), and an
 * upstream caller that records what reached it. Each test checks what the client gets, what the
 * session is told to promote, what the trace records, and what the upstream saw.
 */
import { describe, expect, it } from 'vitest';
import type { CallToolRequest, ServerContext } from '@modelcontextprotocol/server';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { dispatchCall, type DispatchContext } from '../../src/gateway/dispatch.js';
import type { Admit, UpstreamCaller } from '../../src/gateway/types.js';
import { Admission } from '../../src/schema/admit.js';
import { buildShelf } from '../../src/shelf/build.js';
import type { TraceEvent } from '../../src/trace/events.js';
import type { CallOptions, CallOutcome } from '../../src/upstream/types.js';

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });
const LISTINGS = new Map<string, UpstreamTool[]>([
  [
    'files',
    [
      { name: 'read_text_file', description: 'Read a text file from disk.', inputSchema: object({ path: { type: 'string' } }, ['path']) },
      { name: 'write_file', description: 'Write a text file to disk.', inputSchema: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']) },
      { name: 'delete_everything', description: 'Delete all files.', inputSchema: object({}) },
    ],
  ],
  ['math', [{ name: 'add', description: 'Add two numbers and return their sum.', inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) }]],
]);

function configOf(json: unknown): Config {
  const parsed = parseConfig(JSON.stringify(json), {}, '/');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

const CONFIG = configOf({
  mcpServers: {
    files: { command: 'x', tools: { read_text_file: { exposure: 'direct' }, delete_everything: { exposure: 'hidden' } } },
    math: { command: 'y' },
  },
  trace: { captureToolIo: true },
});

/** A context over the shelf of `config`, with a caller answering `answer` and the trace kept. */
function setup(options: { answer?: CallOutcome; promoted?: string[]; callTool?: boolean; config?: Config; down?: string } = {}) {
  const config = options.config ?? CONFIG;
  const shelf = buildShelf(config, LISTINGS, undefined);
  const calls: { server: string; tool: string; args: Record<string, unknown>; options?: CallOptions }[] = [];
  const warmed: string[] = [];
  const caller: UpstreamCaller = {
    callTool: async (server, tool, args, callOptions) => {
      calls.push({ server, tool, args, ...(callOptions ? { options: callOptions } : {}) });
      return options.answer ?? { kind: 'ok', result: { content: [{ type: 'text', text: `${server}/${tool} ran` }] } };
    },
    warm: (server) => void warmed.push(server),
    downFor: (name) => (options.down && name.startsWith(`${options.down}__`) ? { server: options.down, status: 'failed', reason: 'the server exited' } : undefined),
  };
  const admission = new Admission();
  const admit: Admit = (entry, args) => {
    const verdict = admission.check(entry.qualifiedName, entry.tool.inputSchema, args);
    return verdict.ok ? { ok: true, args } : { ok: false, text: verdict.text };
  };
  const events: TraceEvent[] = [];
  const promoted = options.promoted ?? [];
  const ctx: DispatchContext = {
    callId: 'c:1',
    session: 's1',
    shelf,
    caller,
    admit,
    trace: { record: (e) => void events.push(e), close: async () => undefined },
    settings: { discoveryEnabled: config.discovery.enabled, defaultLimit: 5, maxLimit: 20, captureToolIo: config.trace.captureToolIo },
    callToolEnabled: options.callTool ?? true,
    isPromoted: (name) => promoted.includes(name),
  };
  return { ctx, calls, warmed, events };
}

/** The request and the SDK's per-request context, as the session's handler passes them. */
function request(name: string, args?: Record<string, unknown>, progressToken?: string): [CallToolRequest, ServerContext] {
  const notified: unknown[] = [];
  const extra = { mcpReq: { signal: new AbortController().signal, notify: async (n: unknown) => void notified.push(n) } } as unknown as ServerContext;
  return [{ method: 'tools/call', params: { name, ...(args ? { arguments: args } : {}), ...(progressToken ? { _meta: { progressToken } } : {}) } }, extra];
}

const text = (result: { content?: unknown }): string => ((result.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('\n');

describe('dispatchCall', () => {
  it('a direct tool runs upstream by its upstream name, traced with origin direct, promoting nothing', async () => {
    const { ctx, calls, events } = setup();
    const outcome = await dispatchCall(...request('files__read_text_file', { path: 'a.txt' }), ctx);
    expect(text(outcome.result)).toBe('files/read_text_file ran');
    expect(outcome.promote).toEqual([]);
    expect(calls.map((c) => [c.server, c.tool, c.args])).toEqual([['files', 'read_text_file', { path: 'a.txt' }]]);
    expect(events).toMatchObject([{ event: 'tool_called', session: 's1', callId: 'c:1', name: 'files__read_text_file', server: 'files', origin: 'direct', isError: false, arguments: { path: 'a.txt' } }]);
  });

  it('a deferred tool called by name from the manifest is origin catalog and is promoted; once promoted, origin promoted', async () => {
    const first = setup();
    const outcome = await dispatchCall(...request('math__add', { a: 1, b: 2 }), first.ctx);
    expect(outcome.promote).toEqual(['math__add']);
    expect(first.events[0]).toMatchObject({ origin: 'catalog' });
    const again = setup({ promoted: ['math__add'] });
    await dispatchCall(...request('math__add', { a: 1, b: 2 }), again.ctx);
    expect(again.events[0]).toMatchObject({ origin: 'promoted' });
  });

  it('call_tool runs the named tool with exactly its checks, traced as bridge under the real name', async () => {
    const { ctx, calls, events } = setup();
    const outcome = await dispatchCall(...request('call_tool', { name: 'math__add', arguments: { a: 2, b: 3 } }), ctx);
    expect(text(outcome.result)).toBe('math/add ran');
    expect(calls[0]).toMatchObject({ server: 'math', tool: 'add', args: { a: 2, b: 3 } });
    expect(events[0]).toMatchObject({ name: 'math__add', origin: 'bridge' });
    const refused = await dispatchCall(...request('call_tool', { name: 'math__add', arguments: { a: 'two' } }), ctx);
    expect(refused.result.isError).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('call_tool asked to run tool_search searches; asked to run itself, says how it is used', async () => {
    const { ctx } = setup();
    const searched = await dispatchCall(...request('call_tool', { name: 'tool_search', arguments: { query: 'add two numbers' } }), ctx);
    expect(searched.promote).toContain('math__add');
    const itself = await dispatchCall(...request('call_tool', { name: 'call_tool' }), ctx);
    expect(itself.result.isError).toBe(true);
    expect(text(itself.result)).toMatch(/does not run itself/);
  });

  it('call_tool is an unknown tool for a client that was not given it', async () => {
    const { ctx, calls } = setup({ callTool: false });
    const outcome = await dispatchCall(...request('call_tool', { name: 'math__add', arguments: { a: 1, b: 2 } }), ctx);
    expect(outcome.result.isError).toBe(true);
    expect(calls).toEqual([]);
  });

  it('bad arguments are an isError naming each violation; nothing reaches the upstream, the tool is not promoted (promotion is for tools the model uses)', async () => {
    const { ctx, calls, events } = setup();
    const outcome = await dispatchCall(...request('math__add', { a: 'one' }), ctx);
    expect(outcome.result.isError).toBe(true);
    expect(text(outcome.result)).toMatch(/\/a/);
    expect(text(outcome.result)).toMatch(/b/);
    expect(calls).toEqual([]);
    expect(outcome.promote ?? []).toEqual([]);
    expect(events[0]).toMatchObject({ isError: true, failure: 'invalid_arguments' });
  });

  it('an unknown name gets close names, and a hidden one is answered exactly like it, never named', async () => {
    const { ctx, calls, events } = setup();
    const typo = await dispatchCall(...request('math__ad', { a: 1, b: 2 }), ctx);
    expect(typo.result.isError).toBe(true);
    expect(text(typo.result)).toContain('math__add');
    expect(text(typo.result)).toContain('tool_search');
    const hidden = await dispatchCall(...request('files__delete_everything', {}), ctx);
    expect(hidden.result.isError).toBe(true);
    expect(text(hidden.result)).toMatch(/^Unknown tool "files__delete_everything"/);
    expect(text(hidden.result)).not.toMatch(/hidden/i);
    expect(calls).toEqual([]);
    expect(events.map((e) => e.event === 'tool_called' && e.origin)).toEqual(['unknown', 'unknown']);
  });

  it('an unknown name of an upstream that is down says so', async () => {
    const { ctx } = setup({ down: 'weather' });
    const outcome = await dispatchCall(...request('weather__forecast', {}), ctx);
    expect(text(outcome.result)).toMatch(/weather/);
    expect(text(outcome.result)).toMatch(/failed|exited|not up/);
  });

  it('tool_search traces its matches, warms the upstreams it found and promotes only the strong ones', async () => {
    const { ctx, events, warmed } = setup();
    const outcome = await dispatchCall(...request('tool_search', { query: 'add two numbers' }), ctx);
    expect(outcome.promote).toEqual(['math__add']);
    expect(events[0]).toMatchObject({ event: 'tool_searched', query: 'add two numbers', ranker: 'bm25', strong: ['math__add'] });
    expect(warmed).toContain('math');
    const bad = await dispatchCall(...request('tool_search', { limit: 3 }), ctx);
    expect(bad.result.isError).toBe(true);
  });

  it('with discovery off, tool_search is an unknown tool but a deferred tool still runs by name', async () => {
    const { ctx, calls } = setup({ config: configOf({ mcpServers: { files: { command: 'x' }, math: { command: 'y' } }, discovery: { enabled: false } }) });
    expect((await dispatchCall(...request('tool_search', { query: 'add' }), ctx)).result.isError).toBe(true);
    expect((await dispatchCall(...request('math__add', { a: 1, b: 1 }), ctx)).result.isError).not.toBe(true);
    expect(calls).toHaveLength(1);
  });

  it("an upstream's failure is an isError result with its reason, traced with the failure's kind", async () => {
    const { ctx, events } = setup({ answer: { kind: 'timeout', ms: 1500 } });
    const outcome = await dispatchCall(...request('math__add', { a: 1, b: 2 }), ctx);
    expect(outcome.result.isError).toBe(true);
    expect(text(outcome.result)).toMatch(/1500|1\.5/);
    expect(events[0]).toMatchObject({ isError: true, failure: 'timeout' });
  });

  it('a progress token reaches the upstream call as an onProgress hook; other _meta is passed on', async () => {
    const { ctx, calls } = setup();
    await dispatchCall(...request('math__add', { a: 1, b: 2 }, 'tok-1'), ctx);
    expect(typeof calls[0]?.options?.onProgress).toBe('function');
    expect(calls[0]?.options?.meta).toBeUndefined();
  });
});
