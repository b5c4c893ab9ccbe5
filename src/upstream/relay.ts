/**
 * The SDK Client toolshelf opens to an upstream, and the relay of that upstream's requests meant for
 * the client (sampling/createMessage, elicitation/create). Those capabilities are declared only when
 * a relay is given: only capabilities really forwarded are advertised. Which client answers is the
 * caller's business. Source: MCP spec, Client features; issue #5 item 4.
 */
import { Client } from '@modelcontextprotocol/client';

/**
 * Answers upstream `key`'s request `method` (sampling/createMessage or elicitation/create) with
 * `params`; `signal` fires when the upstream cancels. Resolves to the client's result, sent back verbatim.
 */
export type ServerRequestRelay = (
  key: string,
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/** What toolshelf offers an upstream when it can relay to the client (MCP spec, Client features). */
const RELAYED_CAPABILITIES = { sampling: {}, elicitation: {} };

/**
 * A new, unconnected Client for upstream `key`, introducing itself as toolshelf `version`. With
 * `relay`, it declares sampling and elicitation and hands those requests to `relay`; without, it
 * declares no capabilities.
 */
export function newUpstreamClient(key: string, version: string, relay: ServerRequestRelay | undefined): Client {
  const client = new Client({ name: 'toolshelf', version }, { capabilities: relay ? RELAYED_CAPABILITIES : {} });
  if (!relay) return client;
  for (const method of ['sampling/createMessage', 'elicitation/create'] as const) {
    client.setRequestHandler(method, (request, ctx) =>
      relay(key, request.method, request.params as Record<string, unknown> | undefined, ctx.mcpReq.signal) as never,
    );
  }
  return client;
}
