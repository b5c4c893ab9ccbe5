/**
 * Merging resources, resource templates and prompts from several upstreams into one collision-free
 * list, with the routes back. Pure. Source: docs/tools.md; MCP spec, Server features › Resources and
 * Prompts. Prompt names are qualified like tool names (docs/configuration.md); resource URIs stay verbatim unless two
 * upstreams offer the same URI, in which case every later holder's copy is rewritten into toolshelf's
 * own scheme so that each URI names exactly one upstream.
 */
import { assignNames, type NamingOptions } from '../catalog/naming.js';
import { cleanText } from '../trust/clean.js';

/** Where a client-visible URI or prompt name lives upstream. */
export interface Route {
  readonly server: string;
  /** The URI or name on that upstream. */
  readonly upstream: string;
}

type Item = Record<string, unknown>;

/** The scheme of rewritten URIs: `toolshelf://<server>/<encoded upstream URI>`. */
export const GATEWAY_URI_PREFIX = 'toolshelf://';

/** The client-visible URI of `uri` on `server` when it must be disambiguated. */
export function gatewayUri(server: string, uri: string): string {
  return `${GATEWAY_URI_PREFIX}${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;
}

/** Reverses {@link gatewayUri}; undefined for any other URI. */
export function parseGatewayUri(uri: string): Route | undefined {
  if (!uri.startsWith(GATEWAY_URI_PREFIX)) return undefined;
  const rest = uri.slice(GATEWAY_URI_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), upstream: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}

/** Fields of a listed prompt, resource, template or prompt argument whose text a client shows a model or a person. */
const SHOWN_FIELDS = ['name', 'title', 'description'] as const;

/**
 * `item` with its shown text cleaned as tool text is (trust/clean.ts: controls, escape sequences, tag,
 * bidi and invisible characters removed) and its prompt arguments likewise; URIs, URI templates and
 * every other field stay as listed, since they route and identify. docs/security.md.
 */
export function cleanListed(item: Item): Item {
  let out: Item | undefined;
  for (const field of SHOWN_FIELDS) {
    const value = item[field];
    if (typeof value !== 'string') continue;
    const cleaned = cleanText(value).text;
    if (cleaned !== value) (out ??= { ...item })[field] = cleaned;
  }
  if (Array.isArray(item.arguments)) {
    const args = item.arguments.map((arg: unknown) => (typeof arg === 'object' && arg !== null && !Array.isArray(arg) ? cleanListed(arg as Item) : arg));
    if (args.some((arg, i) => arg !== (item.arguments as unknown[])[i])) (out ??= { ...item }).arguments = args;
  }
  return out ?? item;
}

/**
 * Merges resources listed per server (in server order). The first server to list a URI keeps it;
 * a later duplicate gets {@link gatewayUri}. Items without a string `uri` are dropped.
 */
export function mergeResources(perServer: readonly (readonly [string, readonly Item[]])[]): { items: Item[]; routes: Map<string, Route> } {
  const items: Item[] = [];
  const routes = new Map<string, Route>();
  for (const [server, resources] of perServer) {
    for (const resource of resources) {
      if (typeof resource.uri !== 'string') continue;
      const visible = routes.has(resource.uri) ? gatewayUri(server, resource.uri) : resource.uri;
      if (routes.has(visible)) continue;
      routes.set(visible, { server, upstream: resource.uri });
      const shown = cleanListed(resource);
      items.push(visible === resource.uri ? shown : { ...shown, uri: visible });
    }
  }
  return { items, routes };
}

/**
 * Merges prompts with qualified names (`<server><separator><name>`, sanitised and capped like tool
 * names; a server with `prefixed(server)` false keeps its own names). Items without a string `name`
 * are dropped.
 */
export function mergePrompts(
  perServer: readonly (readonly [string, readonly Item[]])[],
  naming: NamingOptions,
  prefixed: (server: string) => boolean = () => true,
): { items: Item[]; routes: Map<string, Route> } {
  const flat = perServer.flatMap(([server, prompts]) =>
    prompts.filter((p) => typeof p.name === 'string').map((prompt) => ({ server, prompt, name: prompt.name as string })),
  );
  const { names } = assignNames(flat.map((f) => ({ server: f.server, tool: f.name, prefix: prefixed(f.server) })), naming);
  const routes = new Map<string, Route>();
  const items = flat.map((f, i) => {
    const visible = names[i] as string;
    routes.set(visible, { server: f.server, upstream: f.name });
    return { ...cleanListed(f.prompt), name: visible };
  });
  return { items, routes };
}

/**
 * The server whose resource template could have produced `uri`: the longest literal prefix (the
 * template up to its first `{`) that `uri` starts with. Undefined when none matches.
 */
export function templateOwner(uri: string, templates: readonly (readonly [string, readonly Item[]])[]): string | undefined {
  let best: { server: string; length: number } | undefined;
  for (const [server, list] of templates) {
    for (const template of list) {
      if (typeof template.uriTemplate !== 'string') continue;
      const literal = template.uriTemplate.split('{')[0] as string;
      if (literal.length > 0 && uri.startsWith(literal) && (!best || literal.length > best.length)) best = { server, length: literal.length };
    }
  }
  return best?.server;
}

/** Replaces `uri` fields equal to `from` with `to` in a read result's `contents`. */
export function renameContents(result: Item, from: string, to: string): Item {
  if (from === to || !Array.isArray(result.contents)) return result;
  return { ...result, contents: result.contents.map((c: Item) => (c && c.uri === from ? { ...c, uri: to } : c)) };
}
