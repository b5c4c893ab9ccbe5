/**
 * class UpstreamSubscriptions: the upstream resource subscriptions of one toolshelf process, shared by
 * every client of both eras. A legacy client subscribes with `resources/subscribe`, a modern one by
 * naming URIs in its `subscriptions/listen` filter; either way toolshelf subscribes upstream for it,
 * and counts who holds each URI, so one client's unsubscribe (or its going away) never ends the
 * updates another client still waits for. Which client receives an update is decided where it is
 * delivered (a legacy session's own set; a modern listen stream's own filter), never here.
 * Source: MCP spec 2025-11-25 Server › Resources › Subscriptions; 2026-07-28 Basic › Patterns ›
 * Subscriptions.
 */

/** Subscribes or unsubscribes the upstream owning a client-visible URI. @throws its refusal. */
export type ForwardSubscription = (method: 'resources/subscribe' | 'resources/unsubscribe', uri: string) => Promise<void>;

export class UpstreamSubscriptions {
  /** Client-visible URI → ids of the clients (a legacy session, a modern listen stream) that hold it. */
  private readonly holders = new Map<string, Set<string>>();

  constructor(private readonly forward: ForwardSubscription) {}

  /**
   * Subscribes `holder` to `uri`. The upstream is asked every time (an upstream that restarted has
   * forgotten earlier subscriptions; subscribing twice is harmless), and `holder` counts only once
   * it agreed. @throws the upstream's refusal or ResourceNotFoundError (-32602) for an unknown URI.
   */
  async add(holder: string, uri: string): Promise<void> {
    await this.forward('resources/subscribe', uri);
    const set = this.holders.get(uri) ?? new Set<string>();
    set.add(holder);
    this.holders.set(uri, set);
  }

  /**
   * Drops `holder`'s subscription to `uri`; the upstream is unsubscribed only when no other client
   * holds it. @throws the upstream's refusal of the unsubscribe.
   */
  async remove(holder: string, uri: string): Promise<void> {
    const set = this.holders.get(uri);
    set?.delete(holder);
    if (set && set.size > 0) return;
    this.holders.delete(uri);
    await this.forward('resources/unsubscribe', uri);
  }

  /** Drops every subscription of a client that went away, in the background (errors ignored). */
  release(holder: string): void {
    for (const [uri, set] of [...this.holders]) if (set.has(holder)) void this.remove(holder, uri).catch(() => undefined);
  }

  /** How many clients hold `uri` (for tests and inspection). */
  count(uri: string): number {
    return this.holders.get(uri)?.size ?? 0;
  }
}
