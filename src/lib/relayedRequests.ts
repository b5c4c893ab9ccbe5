/**
 * The requests an upstream makes of the client (sampling/createMessage, elicitation/create,
 * roots/list), as both the upstream side (upstream/relay.ts, which relays them) and the gateway side
 * (each era's client server, which answers or refuses them) need them: the client capability each
 * needs, the refusal when the client lacks it, and the answer when no client's roots apply. Pure.
 * Source: MCP spec, Client features (Roots, Sampling, Elicitation); docs/protocol-eras.md.
 */
// The Client package's own ProtocolError: the refusal is thrown back through the upstream Client's
// request handler (upstream/relay.ts), which turns only its own class into the JSON-RPC error code.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';

/** The upstream requests relayed to a client, each with the client capability it needs (MCP spec, Client features). */
export const RELAYED = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' } as const;
/** An upstream request relayed to a client: a key of {@link RELAYED}. */
export type RelayedMethod = keyof typeof RELAYED;

/**
 * The answer to a roots/list that no client can answer with its own roots (none waiting, or the
 * client did not declare roots): toolshelf has no roots. On stdio an upstream's roots/list is often
 * its own sync (server-everything asks 350 ms after start-up), not the running call's need, so it
 * never fails that call.
 */
export function noRoots(): { roots: [] } {
  return { roots: [] };
}

/**
 * The refusal an upstream gets when it asks the client for `method` (sampling/createMessage,
 * elicitation/create) and the client of the call did not declare `capability`: -32601, as a client
 * without the handler would answer (MCP spec, Client features). The gateway notes it to tell the
 * client what it lacks when the call then fails (dispatch.ts), in either era.
 */
export class ClientLacksCapability extends ProtocolError {
  readonly capability: string;
  readonly method: string;

  constructor(method: string) {
    super(ProtocolErrorCode.MethodNotFound, `The client that made this call does not support ${method}`);
    this.method = method;
    this.capability = clientCapabilityFor(method) ?? method;
  }
}

/** The client capability an upstream request `method` needs (MCP spec, Client features); undefined for one never relayed. */
export function clientCapabilityFor(method: string): (typeof RELAYED)[RelayedMethod] | undefined {
  return Object.hasOwn(RELAYED, method) ? RELAYED[method as RelayedMethod] : undefined;
}
