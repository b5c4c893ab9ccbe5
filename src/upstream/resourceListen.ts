/**
 * class ResourceListen: resource subscriptions on a modern (2026-07-28) upstream. That revision has
 * no `resources/subscribe`: a client names the URIs it wants `notifications/resources/updated` for in
 * a `subscriptions/listen` filter. So toolshelf's `resources/subscribe` / `resources/unsubscribe`
 * to such an upstream (made for its clients of either era, gateway/subscriptions.ts) keep one set of
 * URIs and one listen stream naming them all, opened afresh when the set changes (the new stream
 * before the old one is closed, so no update falls between) and after a reconnection or a dropped
 * stream. The updates arrive through the client's notification handlers, like a legacy upstream's.
 * Source: MCP spec 2026-07-28, Basic › Patterns › Subscriptions; SDK docs/clients/subscriptions.md;
 * issue #9 point 3.
 */
import type { Client } from '@modelcontextprotocol/client';

/** A JSON-RPC error for a subscription the upstream did not honor. */
export interface ListenFailure {
  readonly code: number;
  readonly message: string;
}

/** How long after a dropped stream it is opened again, in ms. */
const RETRY_MS = 1_000;

export class ResourceListen {
  private readonly uris = new Set<string>();
  private stream: { readonly client: Client; close(): Promise<void> } | undefined;
  /** Counts (re)openings; a stream's drop handler of an older opening does nothing. */
  private generation = 0;

  /**
   * @param current the connected modern client now (undefined while down or legacy).
   * @param onError told of a failed re-listen in the background.
   */
  constructor(
    private readonly current: () => Client | undefined,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Whether `client`'s connection is the modern era (the only one this serves). */
  static serves(client: Client | undefined): boolean {
    return client?.getProtocolEra() === 'modern';
  }

  /**
   * Adds (`resources/subscribe`) or removes (`resources/unsubscribe`) `uri` and re-listens. Resolves
   * to undefined, or to the failure when the upstream did not honor a subscription to `uri`.
   */
  async change(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): Promise<ListenFailure | undefined> {
    if (method === 'resources/subscribe') this.uris.add(uri);
    else this.uris.delete(uri);
    try {
      const honored = await this.relisten();
      if (method === 'resources/subscribe' && !honored.includes(uri)) {
        this.uris.delete(uri);
        return { code: -32602, message: `the server does not offer updates for ${uri}` };
      }
      return undefined;
    } catch (error) {
      if (method === 'resources/subscribe') this.uris.delete(uri);
      return { code: -32603, message: `subscriptions/listen failed: ${(error as Error).message}` };
    }
  }

  /** After a (re)connection: listens again for the URIs held, if any. Never rejects. */
  resume(): void {
    if (this.uris.size > 0) void this.relisten().catch((error: Error) => this.onError(error));
  }

  /** Ends the stream (the connection is closing). */
  close(): void {
    this.generation += 1;
    void this.stream?.close().catch(() => undefined);
    this.stream = undefined;
  }

  /** Opens the stream for the URIs held now and closes the one before; resolves to the URIs honored. */
  private async relisten(): Promise<readonly string[]> {
    const client = this.current();
    const generation = ++this.generation;
    const previous = this.stream;
    this.stream = undefined;
    if (!client || !ResourceListen.serves(client) || this.uris.size === 0) {
      await previous?.close().catch(() => undefined);
      return [];
    }
    const subscription = await client.listen({ resourceSubscriptions: [...this.uris] });
    if (generation !== this.generation) {
      await subscription.close().catch(() => undefined);
      return subscription.honoredFilter.resourceSubscriptions ?? [];
    }
    this.stream = { client, close: () => subscription.close() };
    await previous?.close().catch(() => undefined);
    void subscription.closed.then((reason) => {
      if (reason === 'remote' && generation === this.generation && this.current() === client) setTimeout(() => this.resume(), RETRY_MS).unref();
    });
    return subscription.honoredFilter.resourceSubscriptions ?? [];
  }
}
