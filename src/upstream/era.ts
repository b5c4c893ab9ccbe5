/**
 * Which MCP protocol era toolshelf speaks to one upstream: the 2025 `initialize` handshake
 * (legacy) or the 2026-07-28 revision (modern, `server/discover`). The verdict is negotiated by the
 * v2 Client's `versionNegotiation: { mode: 'auto' }` probe on the first start and then kept in the
 * catalogue cache record (listingCache.ts; the verdict and its stamp are eraVerdict.ts), so later starts connect with `connect(transport, { prior })`
 * and send no probe. Pure: no I/O. Source: docs/protocol-eras.md; SDK docs/protocol-versions.md and
 * docs/advanced/gateway.md (`PriorDiscovery`).
 */
import { SdkError, SdkErrorCode, type ClientOptions, type PriorDiscovery } from '@modelcontextprotocol/client';
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
import type { EraVerdict } from './eraVerdict.js';

/** A server entry's `protocol` key: negotiate (default `auto`), or fix the era and never probe. */
export type ProtocolSetting = NonNullable<ServerConfig['protocol']>;

/**
 * Longest wait for the `server/discover` probe of a stdio upstream, in ms. The wait includes the
 * child's own start (a Node server importing an SDK takes a second or more on a busy machine), so it
 * cannot be very short without misjudging a slow modern server as legacy. A 2025-only server that
 * ignores unknown requests is silent until it passes (the SDK then falls back to `initialize` on the
 * same process); v1 SDK servers answer -32601 at once and pay nothing. Paid once: the verdict is cached.
 */
export const STDIO_PROBE_TIMEOUT_MS = 10_000;

/** The modern revision a `protocol: "modern"` entry pins (MCP 2026-07-28). */
export const MODERN_REVISION = '2026-07-28';

/**
 * The Client's `versionNegotiation` for `setting` (default `auto`) over a transport that is `stdio`
 * ({@link isStdioShaped}) or not: `auto` probes (stdio within
 * {@link STDIO_PROBE_TIMEOUT_MS} and at most half of `startTimeoutMs`, leaving the rest for the
 * handshake and listing; HTTP within the start timeout, where silence is an outage, not a verdict),
 * `modern` pins 2026-07-28 (no fallback), `legacy` is the plain `initialize` handshake.
 */
export function negotiationFor(setting: ProtocolSetting | undefined, stdio: boolean, startTimeoutMs: number): ClientOptions['versionNegotiation'] {
  switch (setting ?? 'auto') {
    case 'legacy':
      return { mode: 'legacy' };
    case 'modern':
      return { mode: { pin: MODERN_REVISION } };
    default:
      return { mode: 'auto', ...(stdio ? { probe: { timeoutMs: Math.min(STDIO_PROBE_TIMEOUT_MS, Math.ceil(startTimeoutMs / 2)) } } : {}) };
  }
}

/**
 * The `prior` to connect with: a cached verdict skips the probe, unless `setting` fixes the other
 * era (an entry switched to `modern` is pinned afresh). `undefined` means probe (or the fixed handshake).
 */
export function priorFor(setting: ProtocolSetting | undefined, cached: EraVerdict | undefined): PriorDiscovery | undefined {
  if (setting === 'legacy' || !cached) return undefined;
  if (cached.era === 'modern') return { kind: 'modern', discover: cached.discover };
  return setting === 'modern' ? undefined : { kind: 'legacy' };
}

/** The verdict a connected `client` landed on (its era and, when modern, its discover result). */
export function verdictOf(client: Client): EraVerdict | undefined {
  const era = client.getProtocolEra();
  if (era === 'legacy') return { era: 'legacy' };
  const discover = client.getDiscoverResult();
  return era === 'modern' && discover ? { era: 'modern', discover } : undefined;
}

/**
 * Whether the SDK treats `transport` as stdio during the probe (it has `stderr` and `pid`, as
 * toolshelf's child transport does): there a silent server is legacy, elsewhere an outage.
 */
export function isStdioShaped(transport: Transport): boolean {
  return 'stderr' in transport && 'pid' in transport;
}

/**
 * True when the probe ended the stdio child: some 2025-only servers (rmcp) exit on any request
 * before `initialize`. toolshelf's own stdio transport probes in place (the SDK's disposable sibling
 * probe needs its base `StdioClientTransport`), so the SDK reports this as a failed negotiation; the
 * caller records a legacy verdict and spawns the server again with `{ kind: 'legacy' }`.
 */
export function probeEndedChild(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /connection closed during the server\/discover probe/.test(error.message);
}

/**
 * On a modern connection, opens the `subscriptions/listen` stream for the list changes `client`'s
 * server advertises (2026-07-28 delivers none unsolicited), so the handlers registered for
 * `notifications/*\/list_changed` fire as on a legacy connection. The stream is opened again after
 * `retryMs` if it drops (`remote`) while `current()` holds. Nothing is opened on a legacy connection.
 * Source: SDK docs/clients/subscriptions.md; MCP 2026-07-28, subscriptions/listen.
 */
export function listenForChanges(client: Client, current: () => boolean, onError: (error: Error) => void, retryMs = 1_000): void {
  if (client.getProtocolEra() !== 'modern') return;
  const caps = client.getServerCapabilities();
  const filter = {
    ...(caps?.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(caps?.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(caps?.resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  const open = (): void => {
    if (!current()) return;
    client.listen(filter).then(
      async (subscription) => {
        if ((await subscription.closed) === 'remote' && current()) setTimeout(open, retryMs).unref();
      },
      (error: unknown) => onError(error instanceof Error ? error : new Error(String(error))),
    );
  };
  open();
}
