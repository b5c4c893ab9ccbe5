/**
 * Dashboard access (src/dashboard/access.ts): one-time login codes that expire, page sessions with a
 * CSRF token each, and the Cookie header read as RFC 6265 §5.4 writes it.
 */
import { describe, expect, it } from 'vitest';
import { DashboardAccess, LOGIN_CODE_TTL_MS, MAX_LOGIN_CODES, MAX_PAGE_SESSIONS, readCookie } from '../../src/dashboard/access.js';

describe('DashboardAccess', () => {
  it('spends a login code once, and not after it expired', () => {
    let now = 1_000;
    const access = new DashboardAccess(true, 'ui', () => now);
    const code = access.mintLoginCode();
    const session = access.redeem(code);
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(access.redeem(code)).toBeUndefined();
    const late = access.mintLoginCode();
    now += LOGIN_CODE_TTL_MS + 1;
    expect(access.redeem(late)).toBeUndefined();
    expect(access.redeem('')).toBeUndefined();
  });

  it('forgets every code and session when the page ends (the last `toolshelf ui` closed)', () => {
    const access = new DashboardAccess(true, 'ui');
    const code = access.mintLoginCode();
    const session = access.redeem(access.mintLoginCode())!;
    access.endSessions();
    expect(access.sessionOf(`ui=${session}`)).toBeUndefined();
    expect(access.redeem(code)).toBeUndefined();
  });

  it('keeps at most MAX_LOGIN_CODES codes, forgetting the oldest', () => {
    const access = new DashboardAccess(true, 'ui');
    const first = access.mintLoginCode();
    for (let i = 0; i < MAX_LOGIN_CODES; i += 1) access.mintLoginCode();
    expect(access.redeem(first)).toBeUndefined();
  });

  it('knows a session by its cookie and its CSRF token, and nothing else', () => {
    const access = new DashboardAccess(false, 'toolshelf_ui_x');
    const session = access.openSession();
    expect(access.cookieFor(session)).toBe(`toolshelf_ui_x=${session}; Path=/; HttpOnly; SameSite=Strict`);
    expect(access.sessionOf(`other=1; toolshelf_ui_x=${session}`)).toBe(session);
    expect(access.sessionOf('toolshelf_ui_x=forged')).toBeUndefined();
    expect(access.sessionOf(undefined)).toBeUndefined();
    const csrf = access.csrfOf(session)!;
    expect(access.csrfMatches(session, csrf)).toBe(true);
    expect(access.csrfMatches(session, undefined)).toBe(false);
    expect(access.csrfMatches(session, `${csrf}x`)).toBe(false);
    expect(access.csrfMatches(access.openSession(), csrf)).toBe(false);
  });

  it('keeps at most MAX_PAGE_SESSIONS sessions, the least recently used going first', () => {
    const access = new DashboardAccess(false, 'ui');
    const kept = access.openSession();
    const dropped = access.openSession();
    for (let i = 0; i < MAX_PAGE_SESSIONS - 2; i += 1) access.openSession();
    expect(access.sessionOf(`ui=${kept}`)).toBe(kept);
    access.openSession();
    expect(access.sessionOf(`ui=${dropped}`)).toBeUndefined();
    expect(access.sessionOf(`ui=${kept}`)).toBe(kept);
  });
});

describe('readCookie', () => {
  it('reads the named cookie among others, trimmed', () => {
    expect(readCookie(' a=1 ;b=two; c = 3', 'b')).toBe('two');
    expect(readCookie('a=1; c = 3', 'c')).toBe('3');
    expect(readCookie('ab=1', 'a')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});
