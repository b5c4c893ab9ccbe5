/**
 * One interactive sign-in to a remote upstream: probe the server for its `WWW-Authenticate`
 * challenge, bind the loopback callback, run the SDK's `auth()` (discovery, CIMD or dynamic
 * registration, PKCE, authorization URL with `state` and `resource`), open the browser, wait for the
 * callback, and exchange the code (the SDK checks RFC 9207 `iss`). Used by `toolshelf auth login`
 * and by the gateway when an upstream needs sign-in. Source: docs/sign-in.md; MCP spec,
 * Authorization (2025-11-25).
 */
import { randomBytes } from 'node:crypto';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import type { AuthSettings } from '../config/types.js';
import { openBrowser } from './browser.js';
import { listenForCallback } from './callback.js';
import { StoredOAuthProvider } from './provider.js';
import type { CredentialStore } from './store.js';

/** Default time a user has to finish signing in, in ms ("gives up after a configurable time"). */
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 300_000;

/** What a sign-in needs. `err` receives the lines for the user (the URL to open, never a secret). */
export interface SignInOptions {
  readonly key: string;
  readonly url: string;
  readonly settings?: AuthSettings;
  readonly store: CredentialStore;
  readonly err: (line: string) => void;
  /** Extra scope to ask for (a step-up), over the server's challenge. */
  readonly scope?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** How a sign-in ended: signed in, or failed with a reason. */
export type SignInOutcome = { kind: 'signed_in' } | { kind: 'failed'; reason: string };

/** Runs the sign-in; never rejects. Gives up after `settings.signInTimeoutMs` (default 300,000 ms). */
export async function signIn(options: SignInOptions): Promise<SignInOutcome> {
  const { key, url, settings, store } = options;
  const timeoutMs = settings?.signInTimeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS;
  const challenge = await probe(url);
  const state = randomBytes(18).toString('base64url');
  const listener = await listenForCallback(state, storedPort(store.read(key, url)));
  try {
    const provider = new StoredOAuthProvider({
      key,
      url,
      store,
      ...(settings ? { settings } : {}),
      flow: { redirectUrl: listener.redirectUrl, state, onAuthorizationUrl: (at) => openBrowser(at.href, options.err, options.env) },
    });
    const scope = [settings?.scope ?? challenge.scope, options.scope].filter(Boolean).join(' ') || undefined;
    const common = { serverUrl: url, ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
    const first = await auth(provider, { ...common, forceReauthorization: true });
    if (first === 'AUTHORIZED') return { kind: 'signed_in' };
    const params = await listener.wait(timeoutMs).catch((error: Error) => {
      throw new Error(`${error.message}; gave up. Run \`toolshelf auth login ${key}\` to try again`);
    });
    const code = params.get('code') ?? '';
    const iss = params.get('iss');
    const second = await auth(provider, { ...common, authorizationCode: code, ...(iss ? { iss } : {}) });
    return second === 'AUTHORIZED' ? { kind: 'signed_in' } : { kind: 'failed', reason: 'the authorization server did not issue tokens' };
  } catch (error) {
    return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await listener.close();
  }
}

/**
 * Sends an unauthenticated `initialize` to learn the server's challenge: the `resource_metadata` URL
 * and `scope` of its `WWW-Authenticate`. Either may be absent (a server may let `initialize`
 * through and challenge later requests): discovery then uses the well-known URLs.
 */
async function probe(url: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const body = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'toolshelf', version: '0' } } };
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return {};
  }
}

/** The port of the callback a stored dynamic registration was made with, to reuse it when free. */
function storedPort(record: ReturnType<CredentialStore['read']>): number | undefined {
  const entry = record.current === undefined ? undefined : record.issuers[record.current];
  const uri = entry?.redirectUris?.[0];
  const port = uri ? Number(new URL(uri).port) : NaN;
  return Number.isInteger(port) && port > 0 ? port : undefined;
}
