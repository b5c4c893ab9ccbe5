/**
 * The resource URIs modern (2026-07-28) clients listen to. Such a client names them in the
 * `resourceSubscriptions` of its `subscriptions/listen` filter (the revision has no
 * `resources/subscribe`); the SDK's serving entries own the stream (acknowledgment, per-stream
 * filtering, teardown), so toolshelf reads the filter off the request as it arrives, subscribes the
 * upstreams that own those URIs (shared with legacy clients, subscriptions.ts) while the stream is open,
 * and lets the SDK deliver each update to the streams that named its URI, and to no other.
 * Source: MCP spec 2026-07-28, Basic › Patterns › Subscriptions; SDK docs/servers/notifications.md;
 * docs/tools.md, "Resource subscriptions and log messages".
 */
import type { UpstreamSubscriptions } from '../subscriptions.js';

/** A `subscriptions/listen` request's id and the resource URIs its filter names (strings only). */
export function listenRequest(message: unknown): { readonly id: string | number; readonly uris: readonly string[] } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null;
  if (m === null || typeof m !== 'object' || m.method !== 'subscriptions/listen') return undefined;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return undefined;
  const wanted = m.params?.notifications?.resourceSubscriptions;
  return { id: m.id, uris: Array.isArray(wanted) ? [...new Set(wanted.filter((u): u is string => typeof u === 'string'))] : [] };
}

/** The request id a `notifications/cancelled` names (on stdio, how a client ends a listen stream). */
export function cancelledRequest(message: unknown): string | number | undefined {
  const m = message as { method?: unknown; params?: { requestId?: unknown } } | null;
  if (m === null || typeof m !== 'object' || m.method !== 'notifications/cancelled') return undefined;
  const id = m.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * Most URIs one listen filter is held for: the first ones it names. Each costs a `resources/subscribe`
 * upstream when an upstream's template matches it, so an unbounded filter was an unbounded burst of
 * upstream requests. A thousand is far more than a client watches at once.
 */
export const MAX_LISTEN_URIS = 1000;

/**
 * Subscribes `holder` (one listen stream) to each of `uris` upstream, the first
 * {@link MAX_LISTEN_URIS} only; resolves to the URIs the upstreams agreed to, in order. A URI past the
 * cap, one no upstream owns, or one whose upstream refused is left out, so the stream's
 * acknowledgment does not promise it (spec: the acknowledged filter is what the server agreed to honor).
 */
export async function holdUris(upstream: UpstreamSubscriptions, holder: string, uris: readonly string[]): Promise<string[]> {
  const named = uris.slice(0, MAX_LISTEN_URIS);
  const held = await Promise.all(named.map((uri) => upstream.add(holder, uri).then(() => true, () => false)));
  return named.filter((_, i) => held[i]);
}

/**
 * The listen streams of one modern stdio connection (`connection` names it among holders): told every
 * inbound message, it holds the URIs of each `subscriptions/listen` until that stream is cancelled or
 * the connection ends ({@link close}).
 */
export class StdioListens {
  private readonly open = new Set<string>();

  constructor(
    private readonly connection: string,
    private readonly upstream: () => UpstreamSubscriptions,
  ) {}

  /**
   * Looks at one inbound message (already parsed); never throws. For a listen request naming URIs it
   * returns a promise of the request with only the URIs upstreams agreed to, once they answered, so
   * the request (and with it the acknowledgment) waits for them, as over HTTP.
   */
  observe(message: unknown): Promise<unknown> | undefined {
    const listen = listenRequest(message);
    if (listen && listen.uris.length > 0) {
      const holder = this.holder(listen.id);
      this.open.add(holder);
      return holdUris(this.upstream(), holder, listen.uris).then((held) => {
        // The connection ended while the subscriptions were being made: drop what they added.
        if (!this.open.has(holder)) this.upstream().release(holder);
        return withResourceSubscriptions(message, held);
      });
    }
    const cancelled = cancelledRequest(message);
    if (cancelled !== undefined && this.open.delete(this.holder(cancelled))) this.upstream().release(this.holder(cancelled));
    return undefined;
  }

  /** The connection ended: every stream of it is gone. */
  close(): void {
    for (const holder of this.open) this.upstream().release(holder);
    this.open.clear();
  }

  private holder(id: string | number): string {
    return `${this.connection}:listen:${JSON.stringify(id)}`;
  }
}

/** `message` (a `subscriptions/listen` request) with its filter's `resourceSubscriptions` replaced by `uris`. */
export function withResourceSubscriptions(message: unknown, uris: readonly string[]): unknown {
  const m = message as { params: { notifications: Record<string, unknown> } };
  return { ...m, params: { ...m.params, notifications: { ...m.params.notifications, resourceSubscriptions: uris } } };
}
