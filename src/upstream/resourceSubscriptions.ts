/**
 * class ResourceSubscriptions: the resource URIs one upstream is subscribed to for toolshelf's
 * clients (gateway/subscriptions.ts decides when), kept so they survive a restart of the upstream
 * or a reconnection, in either era:
 * - a 2025 upstream takes `resources/subscribe` / `resources/unsubscribe`, forwarded as they come;
 *   after a reconnection each URI held is subscribed again (the new process knows none);
 * - a 2026-07-28 upstream has no such methods: a client names the URIs it wants
 *   `notifications/resources/updated` for in a `subscriptions/listen` filter. So one listen stream
 *   names every URI held, opened afresh when the set changes (the new stream before the old one is
 *   closed, so no update falls between), after a reconnection and after a dropped stream.
 * The updates arrive through the client's notification handlers either way.
 * Source: MCP spec 2025-11-25 Server › Resources › Subscriptions; 2026-07-28 Basic › Patterns ›
 * Subscriptions; SDK docs/clients/subscriptions.md.
 */
import { ResultSchema } from '@modelcontextprotocol/core';
import type { Client } from '@modelcontextprotocol/client';

/** A JSON-RPC error for a subscription the upstream did not honor. */
export interface ListenFailure {
  readonly code: number;
  readonly message: string;
}

/** How long after a dropped stream it is opened again, in ms. */
const RETRY_MS = 1_000;

export class ResourceSubscriptions {
  private readonly uris = new Set<string>();
  private stream: { readonly client: Client; close(): Promise<void> } | undefined;
  /** Counts (re)openings; a stream's drop handler of an older opening does nothing. */
  private generation = 0;
  /** The re-listen the changes made since the last one wait for ({@link relistenSoon}). */
  private pending: Promise<readonly string[]> | undefined;

  /**
   * @param current the connected modern client now (undefined while down or legacy).
   * @param onError told of a failed re-listen in the background.
   */
  constructor(
    private readonly current: () => Client | undefined,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Whether `client`'s connection is the modern era (subscriptions are a listen stream: {@link change}). */
  static serves(client: Client | undefined): boolean {
    return client?.getProtocolEra() === 'modern';
  }

  /** On a legacy upstream: records a `resources/subscribe` or `resources/unsubscribe` of `uri` it accepted. */
  accepted(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): void {
    if (method === 'resources/subscribe') this.uris.add(uri);
    else this.uris.delete(uri);
  }

  /**
   * On a modern upstream: adds (`resources/subscribe`) or removes (`resources/unsubscribe`) `uri` and re-listens. Resolves
   * to undefined, or to the failure when the upstream did not honor a subscription to `uri`.
   */
  async change(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): Promise<ListenFailure | undefined> {
    if (method === 'resources/subscribe') this.uris.add(uri);
    else this.uris.delete(uri);
    try {
      const honored = await this.relistenSoon();
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

  /** After a (re)connection: subscribes the URIs held again, if any (listens, on a modern upstream). Never rejects. */
  resume(): void {
    const client = this.current();
    if (this.uris.size === 0 || !client) return;
    if (ResourceSubscriptions.serves(client)) return void this.relisten().catch((error: Error) => this.onError(error));
    for (const uri of this.uris) {
      void client.request({ method: 'resources/subscribe', params: { uri } } as never, ResultSchema).catch((error: Error) => this.onError(error));
    }
  }

  /** Ends the stream (the connection is closing). */
  close(): void {
    this.generation += 1;
    void this.stream?.close().catch(() => undefined);
    this.stream = undefined;
  }

  /**
   * {@link relisten} on the next turn of the event loop, shared by every change made until then: the
   * URIs of one client's listen filter arrive together, and re-listening for each (naming every URI
   * so far) cost one upstream stream per URI and quadratic time: 8,000 URIs held the gateway 13 s
   * of CPU.
   */
  private relistenSoon(): Promise<readonly string[]> {
    this.pending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.pending = undefined;
      return this.relisten();
    });
    return this.pending;
  }

  /** Opens the stream for the URIs held now and closes the one before; resolves to the URIs honored. */
  private async relisten(): Promise<readonly string[]> {
    const client = this.current();
    const generation = ++this.generation;
    const previous = this.stream;
    this.stream = undefined;
    if (!client || !ResourceSubscriptions.serves(client) || this.uris.size === 0) {
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
