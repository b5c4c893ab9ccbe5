/**
 * The SDK Client toolshelf opens to an upstream, and the relay of that upstream's requests meant for
 * the client (sampling/createMessage, elicitation/create, roots/list). Those capabilities are declared
 * only when a relay is given: only capabilities really forwarded are advertised. Each request goes to
 * the client whose call caused it, as `owner` decides; when it cannot tell, the upstream gets a
 * JSON-RPC error and no client sees the request. A roots/list made while no client call waits (an
 * upstream asking at start-up, shared by every client), or put to a client without roots, is answered with no roots: toolshelf has none
 * of its own, and one client's roots must not become every client's (servers such as
 * server-filesystem then keep their configured directories).
 * Source: MCP spec, Client features (Roots, Sampling, Elicitation); docs/tools.md, "Sampling, elicitation and roots".
 */
import { Client, ProtocolError, ProtocolErrorCode, type ClientOptions } from '@modelcontextprotocol/client';
import { attributedElicitation, attributedSampling, noRoots, RELAYED, type Mask, type RelayedMethod } from '../lib/relayedRequests.js';
import type { Owner } from './callRouting.js';
import type { RequestOrigin } from './types.js';

/**
 * Answers upstream `key`'s request `method` (sampling/createMessage, elicitation/create or
 * roots/list) with `params` by asking the client of `origin`; `signal` fires when the upstream
 * cancels; `inputKey` is the upstream's own key for it (a modern upstream's `inputRequests` key).
 * Resolves to the client's result, sent back verbatim.
 */
export type ServerRequestRelay = (
  key: string,
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
  origin: RequestOrigin,
  inputKey?: string,
) => Promise<Record<string, unknown>>;

/** What toolshelf offers an upstream when it can relay to the client: every capability in {@link RELAYED}. */
const RELAYED_CAPABILITIES = Object.fromEntries(Object.values(RELAYED).map((capability) => [capability, {}]));

/**
 * A new, unconnected Client for upstream `key`, introducing itself as toolshelf `version`. With
 * `relay`, it declares sampling and elicitation and hands each such request to `relay` with the
 * origin `owner(method)` names (read while the request is handled); when it names none, the upstream
 * gets -32600 with the reason. Without `relay`, it declares no capabilities. `versionNegotiation`
 * picks the era handshake (era.ts); on the modern era the same handlers answer an upstream's
 * `input_required` rounds, the SDK Client sending the answers back. `mask` hides the upstream's own
 * credentials in the text of the requests it relays, as in its call results (connection.ts).
 */
export function newUpstreamClient(
  key: string,
  version: string,
  relay: ServerRequestRelay | undefined,
  owner: (method: string) => Owner,
  versionNegotiation?: ClientOptions['versionNegotiation'],
  mask?: Mask,
): Client {
  const client = new Client({ name: 'toolshelf', version }, { capabilities: relay ? RELAYED_CAPABILITIES : {}, ...(versionNegotiation ? { versionNegotiation } : {}) });
  if (!relay) return client;
  for (const method of Object.keys(RELAYED) as RelayedMethod[]) {
    client.setRequestHandler(method, (request, ctx) => {
      const found = owner(method);
      if (!found.ok && found.idle && method === 'roots/list') return noRoots() as never;
      if (!found.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `toolshelf cannot tell which client this ${request.method} is for: ${found.reason}. Send it during the tool call it belongs to.`);
      // On the modern era the handler answers one of an input_required result's requests, and its id is the upstream's key for it.
      const inputKey = client.getProtocolEra() === 'modern' && typeof ctx.mcpReq.id === 'string' ? ctx.mcpReq.id : undefined;
      const params = request.params as Record<string, unknown> | undefined;
      // Both are attributed to their server, cleaned and masked, so neither can pose as toolshelf, the user or another server (docs/security.md).
      const shown = method === 'elicitation/create' ? attributedElicitation(key, params, mask) : method === 'sampling/createMessage' ? attributedSampling(key, params, mask) : params;
      return relay(key, request.method, shown, ctx.mcpReq.signal, found.origin, inputKey) as never;
    });
  }
  return client;
}
