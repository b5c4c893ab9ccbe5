/**
 * What `toolshelf auth status` says about one remote upstream, from its stored credentials. Pure:
 * the record and the time are passed in. Never shows a token, secret or code. Source: docs/sign-in.md
 * (signed in, expires in, needs sign-in, error).
 */
import type { RemoteServerConfig } from '../config/types.js';
import { describeExpiry } from './expiry.js';
import type { ServerCredentials } from './store.js';

/** One server's sign-in state in words. */
export interface AuthStatus {
  readonly server: string;
  readonly state: 'signed in' | 'expired' | 'needs sign-in' | 'not signed in' | 'client credentials' | 'static header';
  readonly detail: string;
}

/** The state of `server` (key `key`) given its stored `record` at time `now` (ms). */
export function authStatus(key: string, server: RemoteServerConfig, record: ServerCredentials, now: number): AuthStatus {
  const login = `run \`toolshelf auth login ${key}\``;
  if (Object.keys(server.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) {
    return { server: key, state: 'static header', detail: 'sends its configured Authorization header' };
  }
  if (server.auth?.grantType === 'client_credentials') return { server: key, state: 'client credentials', detail: 'gets its tokens without a user' };
  const entry = record.current === undefined ? undefined : record.issuers[record.current];
  if (record.needsSignIn !== undefined) return { server: key, state: 'needs sign-in', detail: `${record.needsSignIn}; ${login}` };
  if (!entry?.tokens) {
    return server.auth
      ? { server: key, state: 'needs sign-in', detail: login }
      : { server: key, state: 'not signed in', detail: `signs in when the server asks for it, or ${login}` };
  }
  const issuer = `issuer ${record.current}`;
  const expired = entry.expiresAt !== undefined && entry.expiresAt <= now;
  if (expired && !entry.tokens.refresh_token) return { server: key, state: 'expired', detail: `${describeExpiry(entry.expiresAt, now)}, no refresh token; ${login}` };
  const refresh = entry.tokens.refresh_token ? ', refreshed when needed' : '';
  return { server: key, state: 'signed in', detail: `${describeExpiry(entry.expiresAt, now)}${refresh}; ${issuer}` };
}

/** Aligned table lines for {@link AuthStatus} rows. */
export function formatStatus(rows: readonly AuthStatus[]): string[] {
  if (rows.length === 0) return ['No remote servers in the config.'];
  const width = Math.max(6, ...rows.map((r) => r.server.length));
  const stateWidth = Math.max(...rows.map((r) => r.state.length));
  return [`${'SERVER'.padEnd(width)}  ${'STATE'.padEnd(stateWidth)}  DETAIL`, ...rows.map((r) => `${r.server.padEnd(width)}  ${r.state.padEnd(stateWidth)}  ${r.detail}`)];
}
