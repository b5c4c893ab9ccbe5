/**
 * Test helper: what the composition root gives a session (SessionOptions without its id), built in
 * process over a real shelf, real admission, an upstream caller that records the calls that reached
 * it, an upstream directory of the test's choosing (resources, prompts) and a trace kept in memory.
 * Used by the in-process tests of the legacy session, pass-through and the modern front.
 */
import { serverPrefixes } from '../../src/catalog/naming.js';
import type { UpstreamTool } from '../../src/catalog/types.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { sessionSettings, type SessionOptions } from '../../src/gateway/sessionOptions.js';
import { UpstreamSubscriptions } from '../../src/gateway/subscriptions.js';
import type { Shelf, UpstreamDirectory } from '../../src/gateway/types.js';
import { Admission } from '../../src/schema/admit.js';
import { jsonBytes } from '../../src/schema/measure.js';
import { buildShelf } from '../../src/shelf/build.js';
import type { TraceEvent } from '../../src/trace/events.js';
import { silentLogger } from '../../src/trace/log.js';

export const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

/** Two upstreams: `files` (read_text_file direct, write_file deferred) and `math` (add, deferred). */
export const FILES: UpstreamTool[] = [
  { name: 'read_text_file', description: 'Read a text file from disk.', inputSchema: object({ path: { type: 'string' } }, ['path']) },
  { name: 'write_file', description: 'Write a text file to disk.', inputSchema: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']) },
];
export const MATH: UpstreamTool[] = [{ name: 'add', description: 'Add two numbers and return their sum.', inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) }];

/** A config from JSON, as the loader would give it. @throws on a config the loader refuses. */
export function configOf(json: unknown): Config {
  const parsed = parseConfig(JSON.stringify(json), {}, '/');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

export const CONFIG = configOf({ mcpServers: { files: { command: 'x', tools: { read_text_file: { exposure: 'direct' } } }, math: { command: 'y' } } });

/** A directory with no upstream that has resources or prompts. */
export const NO_DIRECTORY: UpstreamDirectory = { capabilities: () => [], request: async () => ({ ok: false, error: { code: -32601, message: 'no upstream' } }) };

/** Session options over `listings`, with what reached the upstreams and the trace. */
export function inProcess(listings = new Map([['files', FILES], ['math', MATH]]), directory: UpstreamDirectory = NO_DIRECTORY, config: Config = CONFIG) {
  let shelf: Shelf = buildShelf(config, listings, undefined);
  const calls: string[] = [];
  const events: TraceEvent[] = [];
  const admission = new Admission();
  const options: Omit<SessionOptions, 'id'> = {
    version: '0.0.0-test',
    shelf: () => shelf,
    caller: {
      callTool: async (server, tool) => {
        calls.push(`${server}/${tool}`);
        return { kind: 'ok', result: { content: [{ type: 'text', text: `${server}/${tool} ran` }] } };
      },
    },
    admit: (entry, args) => {
      const verdict = admission.check(entry.qualifiedName, entry.tool.inputSchema, args);
      return verdict.ok ? { ok: true, args } : { ok: false, text: verdict.text };
    },
    trace: { record: (e) => void events.push(e), close: async () => undefined },
    logger: silentLogger,
    instructions: 'Use tool_search to find tools.',
    settings: sessionSettings(config),
    measure: (value) => ({ bytes: jsonBytes(value), tokens: Math.ceil(jsonBytes(value) / 4) }),
    passthrough: {
      directory,
      routes: { resources: new Map(), prompts: new Map(), templates: [] },
      naming: { ...config.naming, prefixes: serverPrefixes(Object.keys(config.mcpServers), config.naming.separator) },
      prefixed: () => true,
      upstreamSubscriptions: new UpstreamSubscriptions(async () => undefined),
    },
  };
  return {
    options,
    calls,
    events,
    /** Rebuilds the shelf over `next`, as an upstream's new listing does. */
    relist: (next: Map<string, UpstreamTool[]>) => void (shelf = buildShelf(config, next, undefined)),
  };
}

/** Lets notifications in flight on an in-memory transport pair arrive (they take a few microtasks, no I/O). */
export const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));
