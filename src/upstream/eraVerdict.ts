/**
 * An upstream's era verdict as the catalogue cache keeps it (listingCache.ts) and its stamp: when
 * it was reached and from which server, and when it is too old to use. Pure, and no MCP SDK code:
 * the cache is read at every start, also by a gateway with no upstream connection yet (the
 * negotiation itself is era.ts). Source: docs/protocol-eras.md.
 */
import type { DiscoverResult, Implementation } from '@modelcontextprotocol/client';

/** The era an upstream was found to speak; `discover` is its advertisement behind a modern verdict. */
export type EraVerdict = { readonly era: 'legacy' } | { readonly era: 'modern'; readonly discover: DiscoverResult };

/**
 * How long a cached era verdict is trusted, in ms: 7 days. A server entry runs whatever its package or
 * URL serves today (`npx -y pkg` takes the newest release), so a server that gains the 2026-07-28
 * revision must be noticed without the user clearing the cache; one probe a week per server costs a
 * round trip (or, for a 2025-only stdio server that stays silent, up to era.ts `STDIO_PROBE_TIMEOUT_MS`)
 * and keeps every other start free of it. A version change is noticed sooner ({@link serverChanged}).
 * Source: docs/protocol-eras.md (cached verdicts expire).
 */
export const ERA_VERDICT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** When a verdict was reached by a probe, and the name and version the server gave then. */
export interface VerdictStamp {
  /** ISO 8601 time of the probe (or of the pinned connect) that gave the verdict. */
  readonly eraCheckedAt: string;
  readonly eraServerInfo?: { readonly name: string; readonly version: string };
}

/**
 * Whether a verdict stamped `stamp` may still be used at `now` (ms since the epoch): stamped, and
 * less than `maxAgeMs` (default {@link ERA_VERDICT_MAX_AGE_MS}) old. An unstamped verdict (written
 * before verdicts expired) is stale, so it is probed once and stamped. Pure.
 */
export function isFresh(stamp: Partial<VerdictStamp> | undefined, now: number, maxAgeMs = ERA_VERDICT_MAX_AGE_MS): boolean {
  const at = stamp?.eraCheckedAt === undefined ? Number.NaN : Date.parse(stamp.eraCheckedAt);
  return Number.isFinite(at) && now - at < maxAgeMs && at <= now + 60_000;
}

/**
 * Whether the server a connection reached (`info`, its serverInfo) is not the one the stamped verdict
 * was reached with: another name or version means it was upgraded or replaced, and may speak
 * another era now. Unknown on either side is no change. Pure.
 */
export function serverChanged(stamp: Partial<VerdictStamp> | undefined, info: Implementation | undefined): boolean {
  const then = stamp?.eraServerInfo;
  if (!then || !info) return false;
  return then.name !== info.name || then.version !== info.version;
}

/** A stamp for a verdict reached now by a connect whose server called itself `info`. */
export function stampNow(info: Implementation | undefined, now = Date.now()): VerdictStamp {
  return { eraCheckedAt: new Date(now).toISOString(), ...(info ? { eraServerInfo: { name: info.name, version: info.version } } : {}) };
}
