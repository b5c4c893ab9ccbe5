/**
 * The pure parts of sign-in: state folder, file names, expiry and step-up decisions, the browser
 * command, the callback check and the status line. Source: docs/sign-in.md.
 */
import { describe, expect, it } from 'vitest';
import { browserCommand } from '../../src/auth/browser.js';
import { checkCallback } from '../../src/auth/callback.js';
import { describeExpiry, expiresAt, isStepUp, REFRESH_MARGIN_MS, shouldRefresh } from '../../src/auth/expiry.js';
import { serverFileStem, stateDir } from '../../src/auth/paths.js';
import { authStatus, formatStatus } from '../../src/auth/status.js';
import type { ServerCredentials } from '../../src/auth/store.js';

describe('stateDir', () => {
  it('takes TOOLSHELF_STATE_DIR, else an absolute XDG_STATE_HOME, else ~/.local/state', () => {
    expect(stateDir({ TOOLSHELF_STATE_DIR: '/s', XDG_STATE_HOME: '/x' }, '/home/u')).toBe('/s');
    expect(stateDir({ XDG_STATE_HOME: '/x' }, '/home/u')).toBe('/x/toolshelf');
    expect(stateDir({ XDG_STATE_HOME: 'relative' }, '/home/u')).toBe('/home/u/.local/state/toolshelf');
    expect(stateDir({}, '/home/u')).toBe('/home/u/.local/state/toolshelf');
  });
});

describe('serverFileStem', () => {
  it('is file-name safe and differs for keys that sanitise alike and for a changed URL', () => {
    const a = serverFileStem('a/b', 'https://x/mcp');
    expect(a).toMatch(/^a_b-[0-9a-f]{12}$/);
    expect(serverFileStem('a_b', 'https://x/mcp')).not.toBe(a);
    expect(serverFileStem('a/b', 'https://y/mcp')).not.toBe(a);
    expect(serverFileStem('../../etc', 'u')).not.toContain('/');
  });
});

describe('expiry', () => {
  it('turns expires_in seconds into an absolute time, none when absent or nonsense', () => {
    expect(expiresAt(3600, 1000)).toBe(3_601_000);
    expect(expiresAt(undefined, 1000)).toBeUndefined();
    expect(expiresAt(-5, 1000)).toBeUndefined();
  });

  it('refreshes within the margin of expiry, or in the second half of a short lifetime', () => {
    const issuedAt = 0;
    const hour = { issuedAt, expiresAt: 3_600_000 };
    expect(shouldRefresh(hour, 3_600_000 - REFRESH_MARGIN_MS - 1)).toBe(false);
    expect(shouldRefresh(hour, 3_600_000 - REFRESH_MARGIN_MS)).toBe(true);
    expect(shouldRefresh(hour, 4_000_000)).toBe(true);
    const short = { issuedAt, expiresAt: 4000 };
    expect(shouldRefresh(short, 1000)).toBe(false);
    expect(shouldRefresh(short, 2000)).toBe(true);
    expect(shouldRefresh({}, 10)).toBe(false);
  });

  it('describes expiry in words', () => {
    expect(describeExpiry(3_180_000, 0)).toBe('expires in 53 min');
    expect(describeExpiry(0, 120_000)).toBe('expired 2 min ago');
    expect(describeExpiry(undefined, 0)).toBe('no expiry given');
  });

  it('calls a request for scope the grant lacks a step-up', () => {
    expect(isStepUp('notes:read notes:write', 'notes:read')).toBe(true);
    expect(isStepUp('notes:read', 'notes:read notes:write')).toBe(false);
    expect(isStepUp(undefined, 'a')).toBe(false);
  });
});

describe('browserCommand', () => {
  const url = 'http://127.0.0.1:1/authorize?a=1&b=2';
  it('runs BROWSER with the URL as its last argument, or in place of %s', () => {
    expect(browserCommand(url, { BROWSER: 'node /t/browser.mjs' }, 'linux')).toEqual({ command: 'node', args: ['/t/browser.mjs', url] });
    expect(browserCommand(url, { BROWSER: 'firefox --new-tab %s' }, 'linux')).toEqual({ command: 'firefox', args: ['--new-tab', url] });
    expect(browserCommand(url, { BROWSER: 'w3m:lynx' }, 'linux')).toEqual({ command: 'w3m', args: [url] });
  });
  it("falls back to the platform's opener", () => {
    expect(browserCommand(url, {}, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(browserCommand(url, {}, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(browserCommand(url, {}, 'win32').args.at(-1)).toBe('http://127.0.0.1:1/authorize?a=1^&b=2');
  });
});

describe('checkCallback', () => {
  it('accepts a code with the right state and refuses the rest, never echoing the error description', () => {
    expect(checkCallback(new URLSearchParams('code=c&state=s&iss=i'), 's')).toMatchObject({ ok: true });
    expect(checkCallback(new URLSearchParams('code=c&state=x'), 's')).toMatchObject({ ok: false, reason: expect.stringContaining('wrong state') });
    expect(checkCallback(new URLSearchParams('state=s'), 's')).toMatchObject({ ok: false, reason: expect.stringContaining('no authorization code') });
    const refused = checkCallback(new URLSearchParams('state=s&error=access_denied&error_description=<script>'), 's');
    expect(refused).toEqual({ ok: false, reason: 'the authorization server refused: access_denied' });
  });
});

describe('authStatus', () => {
  const server = { url: 'https://x/mcp' };
  const record = (extra: Partial<ServerCredentials>): ServerCredentials => ({ url: server.url, issuers: {}, ...extra });
  it('reads signed in, expired, needs sign-in and not signed in, without any secret', () => {
    const tokens = { access_token: 'SECRET-A', token_type: 'Bearer', refresh_token: 'SECRET-R' };
    const signedIn = authStatus('n', server, record({ current: 'https://as', issuers: { 'https://as': { tokens, expiresAt: 3_180_000 } } }), 0);
    expect(signedIn).toEqual({ server: 'n', state: 'signed in', detail: 'expires in 53 min, refreshed when needed; issuer https://as' });
    const noRefresh = { access_token: 'SECRET-A', token_type: 'Bearer' };
    expect(authStatus('n', server, record({ current: 'i', issuers: { i: { tokens: noRefresh, expiresAt: 0 } } }), 60_000).state).toBe('expired');
    expect(authStatus('n', server, record({ needsSignIn: 'refused' }), 0)).toMatchObject({ state: 'needs sign-in', detail: 'refused; run `toolshelf auth login n`' });
    expect(authStatus('n', server, record({}), 0).state).toBe('not signed in');
    expect(authStatus('n', { ...server, auth: {} }, record({}), 0).state).toBe('needs sign-in');
    expect(authStatus('n', { ...server, headers: { authorization: 'x' } }, record({}), 0).state).toBe('static header');
    expect(authStatus('n', { ...server, auth: { grantType: 'client_credentials' } }, record({}), 0).state).toBe('client credentials');
    expect(JSON.stringify(formatStatus([signedIn]))).not.toContain('SECRET');
  });
});
