/**
 * One tools/call: resolve the name (bridge tool, direct, promoted, from the manifest, unknown), admit
 * the arguments against the canonical schema, forward upstream with timeout, cancellation and progress,
 * and shape the result. Holds no state: the session passes in what it knows and applies the promotions
 * returned. Source: docs/tools.md, docs/cli.md.
 */
import type { CallToolRequest, CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { CatalogEntry } from '../catalog/types.js';
import { suggestNames } from '../discovery/suggest.js';
import type { CallOrigin, TraceSink } from '../trace/events.js';
import { CALL_TOOL, parseCallToolArgs, parseSearchArgs, TOOL_SEARCH } from './bridgeTools.js';
import { confirmBridgedCall, DEFAULT_CONFIRM, type ConfirmSettings } from './confirm.js';
import { errorResult, lackedResult, resultFromOutcome, unknownToolResult } from './results.js';
import { searchResult } from './searchAnswer.js';
import type { Admit, CheckOutput, Shelf, UpstreamCaller } from './types.js';
import type { RequestOrigin } from '../upstream/types.js';
import type { Catalogue, HeldEntry } from '../catalog/build.js';
import { heldAnswer } from '../trust/judge.js';
import { ClientLacksCapability } from '../lib/relayedRequests.js';

/** Session settings that shape a call. */
export interface DispatchSettings {
  readonly discoveryEnabled: boolean;
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly captureToolIo: boolean;
  /** Which calls through call_tool are confirmed with the user (`bridge.confirm`, `bridge.unaskable`); default {@link DEFAULT_CONFIRM}. */
  readonly confirm?: ConfirmSettings;
}

/** Per-call context from the session. */
export interface DispatchContext {
  readonly callId: string;
  readonly session: string;
  readonly shelf: Shelf;
  readonly caller: UpstreamCaller;
  readonly admit: Admit;
  /** Checks a result against the outputSchema the client was given (none: forwarded as it is). */
  readonly checkOutput?: CheckOutput;
  readonly trace: TraceSink;
  readonly settings: DispatchSettings;
  readonly callToolEnabled: boolean;
  /** Every deferred tool is in the client's list from the start (`client` discovery mode). */
  readonly deferredListed?: boolean;
  readonly isPromoted: (qualifiedName: string) => boolean;
  /** This client request, for the upstream's sampling and elicitation during the call. */
  readonly origin?: RequestOrigin;
  /**
   * Whether the client can be asked to confirm a call through `origin`: a legacy client that
   * declared form elicitation, a modern one that declared elicitation (asked by `input_required`).
   */
  readonly canConfirm?: boolean;
}

/** The result for the client and the qualified names the session should promote. */
export interface DispatchOutcome {
  readonly result: CallToolResult;
  readonly promote: readonly string[];
}

type Extra = ServerContext;

/** Handles one tools/call request. Never rejects: every failure is an `isError` result. */
export async function dispatchCall(request: CallToolRequest, extra: Extra, ctx: DispatchContext): Promise<DispatchOutcome> {
  const name = request.params.name;
  const args = (request.params.arguments ?? {}) as Record<string, unknown>;
  const searchAvailable = ctx.settings.discoveryEnabled && ctx.shelf.catalogue.deferred.length > 0;
  if (name === TOOL_SEARCH && searchAvailable) return search(args, ctx);
  if (name === CALL_TOOL && ctx.callToolEnabled && ctx.shelf.catalogue.deferred.length > 0) {
    const parsed = parseCallToolArgs(args);
    if ('error' in parsed) return { result: errorResult(parsed.error), promote: [] };
    // A model that reaches for the bridge to search gets its search (it was told the tool is unknown).
    if (parsed.name === TOOL_SEARCH && searchAvailable) return search(parsed.arguments, ctx);
    if (parsed.name === CALL_TOOL) return { result: errorResult(`${CALL_TOOL} does not run itself: give "name" the exact name of the tool to run, and "arguments" its parameters.`), promote: [] };
    return callByName(parsed.name, parsed.arguments, 'bridge', request, extra, ctx);
  }
  return callByName(name, args, undefined, request, extra, ctx);
}

async function search(args: Record<string, unknown>, ctx: DispatchContext): Promise<DispatchOutcome> {
  const parsed = parseSearchArgs(args, ctx.settings.defaultLimit, ctx.settings.maxLimit);
  if ('error' in parsed) return { result: errorResult(parsed.error), promote: [] };
  const started = performance.now();
  const outcome = await ctx.shelf.search(parsed.query, parsed.limit);
  const entries = outcome.matched
    .map((n) => ctx.shelf.catalogue.get(n))
    .filter((e): e is CatalogEntry => e?.exposure === 'deferred');
  const strong = entries.filter((e) => outcome.strong.includes(e.qualifiedName)).map((e) => e.qualifiedName);
  ctx.trace.record({
    event: 'tool_searched',
    session: ctx.session,
    callId: ctx.callId,
    ...(ctx.settings.captureToolIo ? { query: parsed.query } : {}),
    matched: entries.map((e) => e.qualifiedName),
    ranker: outcome.ranker,
    ...(outcome.topScore !== undefined ? { topScore: outcome.topScore } : {}),
    weak: outcome.weak,
    strong,
    ...(outcome.fallback !== undefined ? { fallback: outcome.fallback } : {}),
    ...(outcome.shadowMatched !== undefined ? { shadowMatched: outcome.shadowMatched } : {}),
    ...(outcome.semantic !== undefined ? { semantic: outcome.semantic } : {}),
    latencyMs: round(performance.now() - started),
  });
  // A found tool is likely called next: a lazy upstream starts now rather than on that call.
  for (const server of new Set(entries.map((e) => e.server))) ctx.caller.warm?.(server);
  // Only strong matches are promoted: the others are named, not advertised.
  const held = heldNamedIn(parsed.query, ctx.shelf.catalogue).map((h) => heldAnswer(h.qualifiedName, h.server, h.upstreamName, h.reason));
  return { result: searchResult(entries, parsed.query, strong, held), promote: strong };
}

async function callByName(
  name: string,
  args: Record<string, unknown>,
  via: 'bridge' | undefined,
  request: CallToolRequest,
  extra: Extra,
  ctx: DispatchContext,
): Promise<DispatchOutcome> {
  const started = performance.now();
  const entry = ctx.shelf.catalogue.get(name);
  const held = entry ? undefined : ctx.shelf.catalogue.heldTool(name);
  if (held) {
    // Whatever the arguments: checking them against the new schema would name its new fields. A lazy
    // upstream held on its cached listing starts, so its live listing can confirm the pin.
    ctx.caller.warm?.(held.server);
    traceCall(ctx, { name, origin: via ?? 'catalog', started, isError: true, failure: 'held', args });
    return { result: errorResult(heldAnswer(held.qualifiedName, held.server, held.upstreamName, held.reason)), promote: [] };
  }
  if (!entry) {
    const result = unknown(name, ctx);
    traceCall(ctx, { name, origin: 'unknown', started, isError: true, failure: 'unknown_tool', args });
    return { result, promote: [] };
  }
  const listed = entry.exposure === 'direct' || ctx.deferredListed === true;
  const origin: CallOrigin = via ?? (listed ? 'direct' : ctx.isPromoted(name) ? 'promoted' : 'catalog');
  const promote = entry.exposure === 'deferred' ? [entry.qualifiedName] : [];
  const verdict = ctx.admit(entry, args);
  if (!verdict.ok) {
    // Promotion is for tools the model uses (docs/tools.md, "Calls"); a call the schema refuses did not run.
    traceCall(ctx, { name, entry, origin, started, isError: true, failure: 'invalid_arguments', args });
    return { result: errorResult(verdict.text), promote: [] };
  }
  // Through the bridge the client's per-tool approval saw only call_tool: risky tools are confirmed here (docs/security.md "Risky calls").
  if (via === 'bridge') {
    const confirmation = await confirmBridgedCall(entry, verdict.args, ctx.settings.confirm ?? DEFAULT_CONFIRM, ctx.canConfirm === true, ctx.origin, extra.mcpReq.signal);
    if (!confirmation.run) {
      traceCall(ctx, { name, entry, origin, started, isError: true, failure: confirmation.failure, args });
      return { result: confirmation.result, promote: [] };
    }
  }
  const progressToken = request.params._meta?.progressToken;
  const { progressToken: _token, ...meta } = request.params._meta ?? {};
  // The last progress notification sent to the client, settled or not: the result goes after it.
  let progressSent: Promise<unknown> | undefined;
  const lacked = new Set<string>();
  const outcome = await ctx.caller.callTool(entry.server, entry.upstreamName, verdict.args, {
    signal: extra.mcpReq.signal,
    ...(ctx.origin ? { origin: noting(ctx.origin, lacked) } : {}),
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
    ...(progressToken !== undefined
      ? {
          onProgress: (p) => {
            progressSent = extra.mcpReq.notify({ method: 'notifications/progress', params: { ...p, progressToken } }).catch(() => undefined);
          },
        }
      : {}),
  });
  // An upstream may send its last progress and its result in one write; the client must see them in
  // that order (MCP spec, Utilities › Progress: no progress after the response).
  if (progressSent) await progressSent;
  const shaped = resultFromOutcome(outcome, entry);
  const checked = ctx.checkOutput && outcome.kind === 'ok' ? ctx.checkOutput(entry, shaped.result) : shaped.result;
  const { result, failure } =
    lacked.size > 0 && shaped.result.isError === true
      ? { result: lackedResult(entry, [...lacked]), failure: 'client_capability' }
      : checked !== shaped.result
        ? { result: checked, failure: 'output_mismatch' }
        : shaped;
  traceCall(ctx, { name, entry, origin, started, isError: result.isError === true, failure, args });
  return { result, promote };
}

/**
 * The held tools a search query names, by qualified or upstream name as a whole word: a search that
 * would have reached one says it is held (docs/security.md), while its text stays out of every answer.
 */
export function heldNamedIn(query: string, catalogue: Pick<Catalogue, 'held'>): HeldEntry[] {
  if (catalogue.held.length === 0) return [];
  const words = new Set(query.toLowerCase().split(/[^\p{L}\p{N}_.-]+/u));
  return catalogue.held.filter((h) => words.has(h.qualifiedName.toLowerCase()) || words.has(h.upstreamName.toLowerCase()));
}

/**
 * `origin`, its `ask` noting in `lacked` each capability the client was found to lack
 * ({@link ClientLacksCapability}): the upstream still gets the refusal and decides what to do.
 */
function noting(origin: RequestOrigin, lacked: Set<string>): RequestOrigin {
  return {
    ...origin,
    ask: (method, params, signal, key) =>
      origin.ask(method, params, signal, key).catch((error: unknown) => {
        if (error instanceof ClientLacksCapability) lacked.add(error.capability);
        throw error;
      }),
  };
}

function unknown(name: string, ctx: DispatchContext): CallToolResult {
  const { catalogue } = ctx.shelf;
  const searchAvailable = ctx.settings.discoveryEnabled && catalogue.deferred.length > 0;
  const callable = catalogue.entries.map((e) => e.qualifiedName);
  return unknownToolResult(name, suggestNames(name, callable, 3), searchAvailable, ctx.caller.downFor?.(name));
}

function traceCall(
  ctx: DispatchContext,
  call: { name: string; entry?: CatalogEntry; origin: CallOrigin; started: number; isError: boolean; failure?: string; args: unknown },
): void {
  ctx.trace.record({
    event: 'tool_called',
    session: ctx.session,
    callId: ctx.callId,
    name: call.name,
    ...(call.entry ? { server: call.entry.server } : {}),
    origin: call.origin,
    latencyMs: round(performance.now() - call.started),
    isError: call.isError,
    ...(call.failure ? { failure: call.failure } : {}),
    ...(ctx.settings.captureToolIo ? { arguments: call.args } : {}),
  });
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
