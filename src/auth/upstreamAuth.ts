/**
 * The sign-in services the upstream connections use ({@link UpstreamAuth}): which OAuth provider a
 * remote server gets, the gateway's own browser sign-in, and watching the store for credentials
 * written by another process. Source: docs/sign-in.md.
 */
import { unwatchFile, watchFile } from 'node:fs';
import { homedir } from 'node:os';
import { ClientCredentialsProvider, PrivateKeyJwtProvider, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { UpstreamTool } from '../catalog/types.js';
import type { RemoteServerConfig } from '../config/types.js';
import type { Logger } from '../trace/log.js';
import type { UpstreamAuth } from '../upstream/types.js';
import { signIn } from './flow.js';
import { stateDir } from './paths.js';
import { StoredOAuthProvider } from './provider.js';
import { CredentialStore } from './store.js';

/** How often a waiting upstream looks for new credentials in the store, in ms. */
export const WATCH_INTERVAL_MS = 500;

/** The store under the state folder of `env` (TOOLSHELF_STATE_DIR, else the XDG state home). */
export function storeFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): CredentialStore {
  return new CredentialStore(stateDir(env, homedir()));
}

/** True when `headers` already carry an `Authorization` header: the user manages credentials, no OAuth. */
function hasOwnAuthorization(server: RemoteServerConfig): boolean {
  return Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * The provider for `server`: none with a static `Authorization` header; the SDK's
 * client-credentials providers (secret or private_key_jwt) for `grantType: client_credentials`;
 * else a {@link StoredOAuthProvider} over `store`.
 */
export function providerFor(key: string, server: RemoteServerConfig, store: CredentialStore): OAuthClientProvider | undefined {
  if (hasOwnAuthorization(server)) return undefined;
  const settings = server.auth;
  if (settings?.grantType === 'client_credentials' && settings.clientId) {
    const scope = settings.scope ? { scope: settings.scope } : {};
    if (settings.privateKey) {
      return new PrivateKeyJwtProvider({ clientId: settings.clientId, privateKey: settings.privateKey, algorithm: settings.signingAlgorithm ?? 'RS256', clientName: 'toolshelf', ...scope });
    }
    return new ClientCredentialsProvider({ clientId: settings.clientId, clientSecret: settings.clientSecret ?? '', clientName: 'toolshelf', ...scope });
  }
  return new StoredOAuthProvider({ key, url: server.url, store, ...(settings ? { settings } : {}) });
}

/**
 * Sign-in services over `store`. With `interactive`, the gateway signs in by itself in the browser
 * (serve); `logger` gets the URL to open and the outcome.
 */
export function upstreamAuth(store: CredentialStore, logger: Logger, interactive: boolean): UpstreamAuth {
  return {
    providerFor: (key, server) => providerFor(key, server, store),
    ...(interactive
      ? {
          signIn: async (key, server, scope) => {
            const outcome = await signIn({ key, url: server.url, store, err: (line) => logger.warn(line), ...(server.auth ? { settings: server.auth } : {}), ...(scope ? { scope } : {}) });
            if (outcome.kind === 'failed') logger.warn(`sign-in to upstream "${key}" failed: ${outcome.reason}`);
            return outcome.kind === 'signed_in';
          },
        }
      : {}),
    watch: (key, server, onSignedIn) => {
      const file = store.fileFor(key, server.url);
      const listener = (): void => {
        const record = store.read(key, server.url);
        const current = record.current === undefined ? undefined : record.issuers[record.current];
        if (current?.tokens?.access_token && record.needsSignIn === undefined) onSignedIn();
      };
      watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, listener);
      return () => unwatchFile(file, listener);
    },
    lastTools: (key, server) => (store.read(key, server.url).tools ?? []) as UpstreamTool[],
    rememberTools: async (key, server, tools) => {
      const record = store.read(key, server.url);
      // Only for servers signed into (a server that never asked for credentials leaves no file), and only on change.
      if (record.current === undefined || JSON.stringify(record.tools ?? []) === JSON.stringify(tools)) return;
      await store.update(key, server.url, (record) => void (record.tools = [...tools])).catch((error: Error) => logger.debug(`upstream "${key}": its tool list was not kept: ${error.message}`));
    },
  };
}
