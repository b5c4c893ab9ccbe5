/**
 * Token lifetime decisions, pure (times in ms since the epoch, passed in). Source: docs/sign-in.md
 * (refresh before expiry); RFC 6749 §5.1 (`expires_in` is in seconds, optional).
 */

/** Refresh this long before expiry at most (ms): one request's worth of slack on a slow network. */
export const REFRESH_MARGIN_MS = 60_000;

/** Absolute expiry in ms for a token issued at `now` with `expiresIn` seconds; undefined when the server gave none. */
export function expiresAt(expiresIn: number | undefined, now: number): number | undefined {
  return typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : undefined;
}

/**
 * True when a token should be refreshed before it is sent: it expires within
 * min({@link REFRESH_MARGIN_MS}, half its lifetime), so a short-lived token is not refreshed on every
 * request. A token with no known expiry is sent as it is (a 401 then triggers the refresh).
 */
export function shouldRefresh(token: { expiresAt?: number; issuedAt?: number }, now: number): boolean {
  if (token.expiresAt === undefined) return false;
  const lifetime = token.issuedAt === undefined ? Infinity : token.expiresAt - token.issuedAt;
  return token.expiresAt - now <= Math.min(REFRESH_MARGIN_MS, lifetime / 2);
}

/** "expires in 53 min" / "expired 2 min ago" / "no expiry given", for `auth status`. */
export function describeExpiry(at: number | undefined, now: number): string {
  if (at === undefined) return 'no expiry given';
  const left = at - now;
  const words = humanMs(Math.abs(left));
  return left >= 0 ? `expires in ${words}` : `expired ${words} ago`;
}

function humanMs(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

/**
 * True when `requested` asks for a scope that `granted` lacks: an authorization request made for a
 * 403 `insufficient_scope` challenge (a step-up), not for lost credentials. Scopes are
 * space-separated (RFC 6749 §3.3).
 */
export function isStepUp(requested: string | undefined, granted: string | undefined): boolean {
  if (!requested) return false;
  const have = new Set((granted ?? '').split(' ').filter(Boolean));
  return requested.split(' ').some((s) => s && !have.has(s));
}
