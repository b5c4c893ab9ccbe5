/**
 * Who may use the dashboard. A page session is a random id in an HttpOnly, SameSite=Strict cookie;
 * each session has its own CSRF token, which every state-changing request must carry in a header
 * (OWASP's synchronizer-token pattern: a page of another origin can make the browser send the cookie
 * but cannot read the token). With a bearer token set on the gateway, a session is only had through a
 * one-time login code: `toolshelf ui` mints one (proving it holds the token, or, for the shared
 * instance, that it can open the instance's owner-only socket) and opens `/ui/login?code=…`. Without a
 * token the dashboard is as open as `/mcp` is, and a session is given on the first page load.
 * Source: docs/dashboard.md; RFC 6265 §4.1.2 (cookie attributes).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a login code may wait to be used, in ms (5 min). */
export const LOGIN_CODE_TTL_MS = 5 * 60_000;
/** Most login codes outstanding at once; minting one more forgets the oldest. */
export const MAX_LOGIN_CODES = 16;
/** Most page sessions at once; a new one past this forgets the least recently used. */
export const MAX_PAGE_SESSIONS = 64;
/** Header that carries the CSRF token on state-changing requests. */
export const CSRF_HEADER = 'x-toolshelf-csrf';

/** A random token: 32 bytes, base64url (256 bits). */
function token(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time equality of two strings (hashed first, so lengths never leak). */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length > 0;
}

/** Page sessions, login codes and CSRF tokens of one dashboard. */
export class DashboardAccess {
  private readonly codes = new Map<string, number>();
  /** Session id → its CSRF token, in least-recently-used order. */
  private readonly sessions = new Map<string, string>();

  /**
   * @param loginRequired true when the gateway has a bearer token: a session then needs a login code.
   * @param cookieName the session cookie's name (it names the port: cookies are not kept apart by port).
   */
  constructor(
    readonly loginRequired: boolean,
    readonly cookieName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new one-time login code, valid for {@link LOGIN_CODE_TTL_MS}. */
  mintLoginCode(): string {
    const code = token();
    this.codes.set(code, this.now() + LOGIN_CODE_TTL_MS);
    while (this.codes.size > MAX_LOGIN_CODES) this.codes.delete(this.codes.keys().next().value!);
    return code;
  }

  /** Spends `code`: a new session id when it was minted here, unused and unexpired; else undefined. */
  redeem(code: string): string | undefined {
    let found: string | undefined;
    for (const known of this.codes.keys()) if (sameSecret(known, code)) found = known;
    if (found === undefined) return undefined;
    const expires = this.codes.get(found)!;
    this.codes.delete(found);
    return expires >= this.now() ? this.openSession() : undefined;
  }

  /** A new session id with its own CSRF token (only when no login is required, or after {@link redeem}). */
  openSession(): string {
    const id = token();
    this.sessions.set(id, token());
    while (this.sessions.size > MAX_PAGE_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return id;
  }

  /** The session named by the request's Cookie header, when it is one of ours. */
  sessionOf(cookieHeader: string | undefined): string | undefined {
    const given = readCookie(cookieHeader, this.cookieName);
    if (given === undefined) return undefined;
    for (const id of this.sessions.keys()) {
      if (sameSecret(id, given)) {
        const csrf = this.sessions.get(id)!;
        this.sessions.delete(id);
        this.sessions.set(id, csrf);
        return id;
      }
    }
    return undefined;
  }

  /** The CSRF token of `session`. */
  csrfOf(session: string): string | undefined {
    return this.sessions.get(session);
  }

  /** Whether `given` (the request's CSRF header) is `session`'s token. */
  csrfMatches(session: string, given: string | undefined): boolean {
    const expected = this.sessions.get(session);
    return expected !== undefined && given !== undefined && sameSecret(expected, given);
  }

  /** Forgets every login code and page session: each later request must sign in again. */
  endSessions(): void {
    this.codes.clear();
    this.sessions.clear();
  }

  /** The Set-Cookie value that gives a browser `session`. */
  cookieFor(session: string): string {
    return `${this.cookieName}=${session}; Path=/; HttpOnly; SameSite=Strict`;
  }
}

/** The value of cookie `name` in a Cookie header (RFC 6265 §5.4), or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
