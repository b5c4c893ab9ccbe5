/**
 * Everything beyond tools, passed through: resources (list, templates, read, subscribe), prompts
 * (list, get), completion/complete and logging/setLevel, aggregated across upstreams with
 * collision-free URIs and prompt names and routed back. Lists are fanned out live on each request;
 * the routes they produce are shared by every session. Source: docs/tools.md; MCP spec, Server
 * features › Resources, Prompts; Utilities › Completion, Logging.
 */
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/core';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import type { NamingOptions } from '../catalog/naming.js';
import { cleanListed, mergePrompts, mergeResources, parseGatewayUri, renameContents, templateOwner, type Route } from './aggregate.js';
import { jsonBytes } from '../schema/measure.js';
import { handleRequest, type Extra } from './handlers.js';
import type { RequestOrigin } from '../upstream/types.js';
import type { UpstreamDirectory } from './types.js';
import type { UpstreamSubscriptions } from './subscriptions.js';
import { quoted } from './results.js';

type Item = Record<string, unknown>;

/**
 * A request a modern client's server may hold across `input_required` rounds (modern/callRounds.ts):
 * a tools/call or a prompts/get (by `name`), or a resources/read (by `uri`).
 */
export interface HeldRequest {
  readonly method: string;
  readonly params: { readonly name?: string; readonly uri?: string; readonly arguments?: unknown; readonly _meta?: { readonly progressToken?: unknown } };
}

/** An upstream's log message as a client sees it: its logger prefixed with the server key (`server/logger`, or `server`). */
export function upstreamLog(server: string, params: Record<string, unknown>): Record<string, unknown> {
  return { ...params, logger: typeof params.logger === 'string' ? `${server}/${params.logger}` : server };
}

/** Routes learnt from the latest lists, shared by every session. Replaced whole per list. */
export interface SharedRoutes {
  resources: Map<string, Route>;
  prompts: Map<string, Route>;
  templates: (readonly [string, readonly Item[]])[];
}

/** Safety stop for upstream list pagination. */
const MAX_PAGES = 100;

/** Which capabilities to advertise downstream: only those some upstream really has. */
export function passthroughCapabilities(directory: UpstreamDirectory): Record<string, unknown> {
  const all = directory.capabilities().map(([, c]) => c);
  const has = (key: string): boolean => all.some((c) => c[key] !== undefined);
  const subscribe = all.some((c) => (c.resources as { subscribe?: boolean } | undefined)?.subscribe === true);
  return {
    ...(has('resources') ? { resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) } } : {}),
    ...(has('prompts') ? { prompts: { listChanged: true } } : {}),
    ...(has('completions') ? { completions: {} } : {}),
    ...(has('logging') ? { logging: {} } : {}),
  };
}

/** Registers the handlers for every capability in `capabilities` on `server`. */
export function registerPassthrough(
  server: Server,
  capabilities: Record<string, unknown>,
  deps: {
    directory: UpstreamDirectory;
    routes: SharedRoutes;
    naming: NamingOptions;
    /** Whether a server's names are prefixed with its key (`prefix`, docs/configuration.md). */
    prefixed: (server: string) => boolean;
    subscriptions: Set<string>;
    /** Largest result in bytes this client accepts (stdio: the SDK client's 10 MiB line), if limited. */
    maxResultBytes?: number;
    /** This client's id among the holders of the shared upstream subscriptions (legacy `resources/subscribe`), if it may subscribe. */
    resourceSubscriptions?: { readonly holder: string; readonly upstream: UpstreamSubscriptions };
    /** Told the level of each `logging/setLevel` this client sends (the upstreams' own level is shared by every client). */
    onSetLevel?: (level: string) => void;
    /** The client request an upstream request is made for (its sampling and elicitation go there). */
    originFor?: (extra: Extra) => RequestOrigin;
    /**
     * Runs a prompts/get or resources/read as a held request (modern clients: the upstream's requests
     * during it come back as `input_required`, the two requests besides tools/call where MCP 2026-07-28
     * allows that; modern/callRounds.ts), `get` being the request itself with its own origin.
     */
    hold?: (request: HeldRequest, extra: Extra, get: (extra: Extra, origin: RequestOrigin) => Promise<Item>) => Promise<Item>;
  },
): void {
  const { directory, routes } = deps;
  const via = (extra: Extra): AskOptions => ({ signal: extra.mcpReq.signal, ...(deps.originFor ? { origin: deps.originFor(extra) } : {}) });
  // An over-size answer becomes a JSON-RPC error rather than a line the client's transport cannot take.
  const fit = (result: Item, what: string): Item => {
    const bytes = deps.maxResultBytes === undefined ? 0 : jsonBytes(result);
    if (deps.maxResultBytes === undefined || bytes <= deps.maxResultBytes) return result;
    throw new ProtocolError(ProtocolErrorCode.InternalError, `${what} is ${(bytes / 1048576).toFixed(1)} MiB, more than this client accepts over stdio`);
  };
  const holders = (key: string): string[] => holdersOf(directory, key);
  const listResources = (): Promise<Item[]> => listResourcesInto(directory, routes);
  const listTemplates = (): Promise<Item[]> => listTemplatesInto(directory, routes);
  const listPrompts = async (): Promise<Item[]> => {
    const merged = mergePrompts(await listEverywhere(directory, holders('prompts'), 'prompts/list', 'prompts'), deps.naming, deps.prefixed);
    routes.prompts = merged.routes;
    return merged.items;
  };
  const resourceRoute = (uri: string): Promise<Route> => routeResource(directory, routes, uri);
  // A client may get by a name it learnt in an earlier session: refresh the routes once on a miss.
  const promptRoute = async (name: string): Promise<Route> =>
    routes.prompts.get(name) ?? (await listPrompts(), routes.prompts.get(name)) ?? unknown('prompt', name);
  if (capabilities.resources) {
    handleRequest(server, ListResourcesRequestSchema, async (request) => {
      rejectCursor(request.params?.cursor);
      return { resources: await listResources() } as never;
    });
    handleRequest(server, ListResourceTemplatesRequestSchema, async (request) => {
      rejectCursor(request.params?.cursor);
      return { resourceTemplates: await listTemplates() } as never;
    });
    handleRequest(server, ReadResourceRequestSchema, async (request, extra) => {
      const route = await resourceRoute(request.params.uri);
      const read = async (ctx: Extra, origin?: RequestOrigin): Promise<Item> => {
        const result = fit(await ask(directory, route.server, 'resources/read', { ...request.params, uri: route.upstream }, origin ? { signal: ctx.mcpReq.signal, origin } : via(ctx)), `resource ${request.params.uri}`);
        return renameContents(result, route.upstream, request.params.uri);
      };
      return (deps.hold ? deps.hold(request, extra, read) : read(extra)) as never;
    });
    const { holder, upstream } = deps.resourceSubscriptions ?? {};
    if ((capabilities.resources as { subscribe?: boolean }).subscribe && holder !== undefined && upstream) {
      // Upstream subscriptions are shared by every client (one per URI, ref-counted): one client's
      // unsubscribe never ends another's updates.
      handleRequest(server, SubscribeRequestSchema, async (request) => {
        await upstream.add(holder, request.params.uri);
        deps.subscriptions.add(request.params.uri);
        return {};
      });
      handleRequest(server, UnsubscribeRequestSchema, async (request) => {
        deps.subscriptions.delete(request.params.uri);
        await upstream.remove(holder, request.params.uri);
        return {};
      });
    }
  }
  if (capabilities.prompts) {
    handleRequest(server, ListPromptsRequestSchema, async (request) => {
      rejectCursor(request.params?.cursor);
      return { prompts: await listPrompts() } as never;
    });
    handleRequest(server, GetPromptRequestSchema, async (request, extra) => {
      const route = await promptRoute(request.params.name);
      const get = async (ctx: Extra, origin?: RequestOrigin): Promise<Item> =>
        fit(await ask(directory, route.server, 'prompts/get', { ...request.params, name: route.upstream }, origin ? { signal: ctx.mcpReq.signal, origin } : via(ctx)), `prompt ${request.params.name}`);
      return (deps.hold ? deps.hold(request, extra, get) : get(extra)) as never;
    });
  }
  if (capabilities.completions) {
    handleRequest(server, CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref as { type: string; name?: string; uri?: string };
      const route = ref.type === 'ref/prompt' ? await promptRoute(ref.name ?? '') : await resourceRoute(ref.uri ?? '');
      const upstreamRef = ref.type === 'ref/prompt' ? { ...ref, name: route.upstream } : { ...ref, uri: route.upstream };
      return (await ask(directory, route.server, 'completion/complete', { ...request.params, ref: upstreamRef }, via(extra))) as never;
    });
  }
  if (capabilities.logging) {
    handleRequest(server, SetLevelRequestSchema, async (request) => {
      deps.onSetLevel?.(request.params.level);
      await Promise.all(holders('logging').map((s) => directory.request(s, 'logging/setLevel', request.params)));
      return {};
    });
  }
}

/** The servers whose capabilities have `key`. */
function holdersOf(directory: UpstreamDirectory, key: string): string[] {
  return directory.capabilities().filter(([, c]) => c[key] !== undefined).map(([s]) => s);
}

/** Lists every upstream's resources, merged; the routes they give replace `routes.resources`. */
async function listResourcesInto(directory: UpstreamDirectory, routes: SharedRoutes): Promise<Item[]> {
  const merged = mergeResources(await listEverywhere(directory, holdersOf(directory, 'resources'), 'resources/list', 'resources'));
  routes.resources = merged.routes;
  return merged.items;
}

/** Lists every upstream's resource templates into `routes.templates`. */
async function listTemplatesInto(directory: UpstreamDirectory, routes: SharedRoutes): Promise<Item[]> {
  routes.templates = await listEverywhere(directory, holdersOf(directory, 'resources'), 'resources/templates/list', 'resourceTemplates');
  return routes.templates.flatMap(([, t]) => t.map(cleanListed));
}

/**
 * The upstream and upstream URI of client-visible `uri`. A client may read by a name it learnt in an
 * earlier session: the routes are refreshed once on a miss, and misses that come while a refresh is
 * in flight wait for that one. @throws ResourceNotFoundError (-32602).
 */
export async function routeResource(directory: UpstreamDirectory, routes: SharedRoutes, uri: string): Promise<Route> {
  return findResource(uri, routes) ?? (await refreshRoutes(directory, routes), findResource(uri, routes)) ?? unknown('resource', uri);
}

/** The refresh of each routes object in flight (see {@link refreshRoutes}). */
const refreshing = new WeakMap<SharedRoutes, Promise<void>>();

/**
 * Lists every upstream's resources and templates into `routes`, once for all the misses that come
 * meanwhile: one `subscriptions/listen` naming 500 unknown URIs listed every upstream 500 times
 * over, and a 4 MiB filter could name 100,000.
 */
function refreshRoutes(directory: UpstreamDirectory, routes: SharedRoutes): Promise<void> {
  let running = refreshing.get(routes);
  if (running === undefined) {
    running = Promise.all([listResourcesInto(directory, routes), listTemplatesInto(directory, routes)])
      .then(() => undefined)
      .finally(() => refreshing.delete(routes));
    refreshing.set(routes, running);
  }
  return running;
}

/**
 * Subscribes (`resources/subscribe`) or unsubscribes the upstream that owns client-visible `uri`.
 * @throws ResourceNotFoundError for an unknown URI, ProtocolError with the upstream's error.
 */
export async function forwardSubscription(directory: UpstreamDirectory, routes: SharedRoutes, method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): Promise<void> {
  const route = await routeResource(directory, routes, uri);
  await ask(directory, route.server, method, { uri: route.upstream }, { signal: AbortSignal.timeout(SUBSCRIBE_TIMEOUT_MS) });
}

/** Longest wait for an upstream's answer to `resources/subscribe` or `resources/unsubscribe`, in ms (the connection's own call timeout applies too). */
const SUBSCRIBE_TIMEOUT_MS = 60_000;

function rejectCursor(cursor: unknown): void {
  if (cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown cursor: this list has a single page');
}

/** Lists `field` from every server in parallel, page by page; a failing upstream contributes nothing. */
async function listEverywhere(directory: UpstreamDirectory, servers: readonly string[], method: string, field: string): Promise<[string, Item[]][]> {
  return Promise.all(
    servers.map(async (server): Promise<[string, Item[]]> => {
      const items: Item[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await directory.request(server, method, cursor ? { cursor } : undefined);
        if (!answer.ok) break;
        const list = answer.result[field];
        if (Array.isArray(list)) items.push(...list.filter((i): i is Item => i !== null && typeof i === 'object'));
        const next = answer.result.nextCursor;
        if (typeof next !== 'string' || next === '' || next === cursor) break;
        cursor = next;
      }
      return [server, items];
    }),
  );
}

/** How a client's request is passed on: its cancellation, and its origin for the upstream's requests during it. */
type AskOptions = { readonly signal: AbortSignal; readonly origin?: RequestOrigin };

async function ask(directory: UpstreamDirectory, server: string, method: string, params: Item, options: AskOptions): Promise<Item> {
  const answer = await directory.request(server, method, params, options);
  if (answer.ok) return answer.result;
  throw new ProtocolError(answer.error.code, `upstream server "${server}": ${quoted(answer.error.message)}`);
}

/** A URI's owner: listed, in toolshelf's own scheme, or matching a resource template's literal prefix. */
function findResource(uri: string, routes: SharedRoutes): Route | undefined {
  const route = routes.resources.get(uri) ?? parseGatewayUri(uri);
  if (route) return route;
  const owner = templateOwner(uri, routes.templates);
  return owner ? { server: owner, upstream: uri } : undefined;
}

/**
 * An unknown resource is -32602 with `data.uri` (SDK v2's ResourceNotFoundError; its encoder sends
 * the 2025 spec's -32002 as -32602 on every era), an unknown prompt -32602.
 */
function unknown(kind: 'resource' | 'prompt', name: string): never {
  if (kind === 'resource') throw new ResourceNotFoundError(name);
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
}

/**
 * The client-visible form of an upstream URI (for `notifications/resources/updated`): the rewritten
 * URI when this upstream's copy was disambiguated, else the URI itself.
 */
export function clientUri(routes: SharedRoutes, server: string, uri: string): string {
  for (const [visible, route] of routes.resources) if (route.server === server && route.upstream === uri) return visible;
  return uri;
}
