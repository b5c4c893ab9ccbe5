/**
 * The SDK Client toolshelf opens to an upstream, and the relay of that upstream's requests meant for
 * the client (sampling/createMessage, elicitation/create). Those capabilities are declared only when
 * a relay is given: only capabilities really forwarded are advertised. Each request goes to the
 * client whose call caused it, as `owner` decides; when it cannot tell, the upstream gets a JSON-RPC
 * error and no client sees the request. Source: MCP spec, Client features; issue #5 item 4; issue #8 point 2.
 */
import { Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { Owner } from './callRouting.js';
import type { RequestOrigin } from './types.js';

/**
 * Answers upstream `key`'s request `method` (sampling/createMessage or elicitation/create) with
 * `params` by asking the client of `origin`; `signal` fires when the upstream cancels. Resolves to
 * the client's result, sent back verbatim.
 */
export type ServerRequestRelay = (
  key: string,
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
  origin: RequestOrigin,
) => Promise<Record<string, unknown>>;

/** What toolshelf offers an upstream when it can relay to the client (MCP spec, Client features). */
const RELAYED_CAPABILITIES = { sampling: {}, elicitation: {} };

/**
 * A new, unconnected Client for upstream `key`, introducing itself as toolshelf `version`. With
 * `relay`, it declares sampling and elicitation and hands each such request to `relay` with the
 * origin `owner()` names (read while the request is handled); when `owner()` names none, the upstream
 * gets -32600 with the reason. Without `relay`, it declares no capabilities.
 */
export function newUpstreamClient(key: string, version: string, relay: ServerRequestRelay | undefined, owner: () => Owner): Client {
  const client = new Client({ name: 'toolshelf', version }, { capabilities: relay ? RELAYED_CAPABILITIES : {} });
  if (!relay) return client;
  for (const method of ['sampling/createMessage', 'elicitation/create'] as const) {
    client.setRequestHandler(method, (request, ctx) => {
      const found = owner();
      if (!found.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `toolshelf cannot tell which client this ${request.method} is for: ${found.reason}. Send it during the tool call it belongs to.`);
      return relay(key, request.method, request.params as Record<string, unknown> | undefined, ctx.mcpReq.signal, found.origin) as never;
    });
  }
  return client;
}
