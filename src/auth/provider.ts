/**
 * class StoredOAuthProvider: the SDK's `OAuthClientProvider` over a {@link CredentialStore}, for one
 * server entry. Two modes:
 * - connection (no `flow`): used by an upstream's transport. Sends the stored token, refreshes it
 *   before it expires under the server's refresh lock (the SDK's `auth()` sends the RFC 8707
 *   `resource`), and where a browser would be needed throws {@link NeedsSignInError} instead.
 * - flow (`flow` given): one sign-in. Its PKCE verifier, `state`, discovery state and a new client
 *   registration stay in memory, so two processes signing in at once never use each other's; the
 *   registration is written with the tokens it obtained, together.
 * Discovery, registration (dynamic or CIMD), PKCE, token exchange, refresh and the `invalid_client`
 * redo are the SDK's (`auth()`); this class only keeps state. Source: docs/sign-in.md.
 */
import { auth } from '@modelcontextprotocol/client';
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { AuthSettings } from '../config/types.js';
import { expiresAt, isStepUp, shouldRefresh } from './expiry.js';
import type { CredentialStore, IssuerCredentials, ServerCredentials } from './store.js';

/** Raised where the user must sign in in a browser; carries no secret. */
export class NeedsSignInError extends Error {
  constructor(
    readonly server: string,
    /** The scope the authorization request asked for. */
    readonly scope: string | undefined,
    /** True when more scope than granted was asked for (a 403 `insufficient_scope` step-up). */
    readonly stepUp: boolean,
  ) {
    super(`upstream "${server}" needs sign-in: run \`toolshelf auth login ${server}\``);
    this.name = 'NeedsSignInError';
  }
}

/** The callback and CSRF `state` of one interactive sign-in. */
export interface FlowContext {
  /** `http://127.0.0.1:<port>/callback` of this flow's loopback listener. */
  readonly redirectUrl: string;
  readonly state: string;
  /** Receives the authorization URL to open. */
  readonly onAuthorizationUrl: (url: URL) => void;
}

/** What a provider needs: the server entry, its settings, the store, and for a sign-in its flow. */
export interface ProviderOptions {
  readonly key: string;
  readonly url: string;
  readonly settings?: AuthSettings;
  readonly store: CredentialStore;
  readonly flow?: FlowContext;
  /** Called before a {@link NeedsSignInError} is thrown (connection mode). */
  readonly onNeedsSignIn?: (error: NeedsSignInError) => void;
}

/** Redirect URI of a connection-mode provider: never opened (it throws first), only required to be set for the SDK to take the user flow. */
const NO_CALLBACK = 'http://127.0.0.1/toolshelf-no-callback';

export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private flowClient: StoredOAuthClientInformation | undefined;
  private flowDiscovery: OAuthDiscoveryState | undefined;
  readonly clientMetadataUrl: string | undefined;

  constructor(private readonly options: ProviderOptions) {
    this.clientMetadataUrl = options.settings?.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.options.flow?.redirectUrl ?? NO_CALLBACK;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.options.settings?.clientSecret;
    return {
      client_name: 'toolshelf',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(this.options.settings?.scope ? { scope: this.options.settings.scope } : {}),
    };
  }

  state(): string {
    return this.options.flow?.state ?? '';
  }

  private read(): ServerCredentials {
    return this.options.store.read(this.options.key, this.options.url);
  }

  private entry(record: ServerCredentials, issuer?: string): IssuerCredentials | undefined {
    const at = issuer ?? record.current;
    return at === undefined ? undefined : record.issuers[at];
  }

  private update(change: (record: ServerCredentials) => void): Promise<ServerCredentials> {
    return this.options.store.update(this.options.key, this.options.url, change);
  }

  /**
   * The registration to use: the configured `clientId`, else this flow's new one, else the stored one.
   * In connection mode a missing registration means the user never signed in: {@link NeedsSignInError}
   * (the gateway does not register clients on its own).
   */
  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const settings = this.options.settings;
    if (settings?.clientId) return { client_id: settings.clientId, ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}) };
    if (this.flowClient) return this.flowClient;
    const stored = this.entry(this.read(), ctx?.issuer);
    if (!this.options.flow) return stored?.client ?? this.needSignIn(undefined, false);
    if (!stored?.client) return undefined;
    // A flow reuses a dynamic registration only for the callback it was made with (CIMD ids are URLs, valid for any).
    const portable = /^https:/.test(stored.client.client_id);
    return portable || stored.redirectUris?.includes(this.redirectUrl) ? stored.client : undefined;
  }

  async saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): Promise<void> {
    if (this.options.settings?.clientId) return;
    if (this.options.flow) {
      // Kept for this flow; written with the tokens it obtains (saveTokens).
      this.flowClient = info;
      return;
    }
    const issuer = ctx?.issuer ?? info.issuer;
    if (issuer === undefined) return;
    await this.update((record) => {
      const entry = (record.issuers[issuer] ??= {});
      entry.client = info;
    });
  }

  /**
   * The stored tokens. Without `ctx` (the transport's per-request read) in connection mode, a token
   * about to expire is refreshed first ({@link shouldRefresh}); a refresh that needs the browser
   * throws {@link NeedsSignInError}.
   */
  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (ctx === undefined && !this.options.flow) await this.refreshIfDue();
    return this.entry(this.read(), ctx?.issuer)?.tokens;
  }

  private async refreshIfDue(): Promise<void> {
    const due = (): boolean => {
      const entry = this.entry(this.read());
      return entry?.tokens?.refresh_token !== undefined && shouldRefresh(entry, Date.now());
    };
    if (!due()) return;
    const { store, key, url } = this.options;
    await store.withRefreshLock(key, url, async () => {
      // Another process may have refreshed while this one waited for the lock.
      if (due()) await auth(this, { serverUrl: url, ...(this.options.settings?.scope ? { scope: this.options.settings.scope } : {}) });
    });
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? tokens.issuer;
    if (issuer === undefined) return;
    const now = Date.now();
    const client = this.flowClient;
    const redirectUris = this.options.flow ? [this.redirectUrl] : undefined;
    await this.update((record) => {
      const entry = (record.issuers[issuer] ??= {});
      const previous = entry.tokens;
      // A refresh answer may leave out the refresh token: keep the one it was made with (RFC 6749 §6).
      entry.tokens = { ...tokens, ...(tokens.refresh_token === undefined && previous?.refresh_token && !client ? { refresh_token: previous.refresh_token } : {}) };
      entry.issuedAt = now;
      const at = expiresAt(tokens.expires_in, now);
      if (at === undefined) delete entry.expiresAt;
      else entry.expiresAt = at;
      if (client) entry.client = client;
      if (redirectUris && client) entry.redirectUris = redirectUris;
      record.current = issuer;
      if (this.flowDiscovery) record.discovery = this.flowDiscovery;
      delete record.needsSignIn;
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.options.flow) return this.options.flow.onAuthorizationUrl(authorizationUrl);
    const scope = authorizationUrl.searchParams.get('scope') ?? undefined;
    const granted = this.entry(this.read())?.tokens?.scope;
    return this.needSignIn(scope, granted !== undefined && isStepUp(scope, granted));
  }

  /** Records that the server needs sign-in (unless it is a step-up), tells the connection, and throws. */
  private async needSignIn(scope: string | undefined, stepUp: boolean): Promise<never> {
    const error = new NeedsSignInError(this.options.key, scope, stepUp);
    if (!stepUp) await this.update((record) => void (record.needsSignIn = 'the stored credentials were refused or are missing'));
    this.options.onNeedsSignIn?.(error);
    throw error;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no sign-in is in progress in this process');
    return this.verifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    if (this.options.flow) {
      this.flowDiscovery = state;
      return;
    }
    await this.update((record) => void (record.discovery = state));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.options.flow ? this.flowDiscovery : this.read().discovery;
  }

  /** Drops what the authorization server no longer accepts (`invalid_client`, `invalid_grant`), so the SDK redoes it. */
  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') return void (this.verifier = undefined);
    if (scope === 'client' || scope === 'all') this.flowClient = undefined;
    if (scope === 'discovery' || scope === 'all') this.flowDiscovery = undefined;
    await this.update((record) => {
      const entry = this.entry(record);
      if (scope === 'all') {
        record.issuers = {};
        delete record.discovery;
      }
      if (scope === 'discovery') delete record.discovery;
      if (scope === 'client' && entry) delete entry.client;
      if (scope === 'tokens' && entry) {
        delete entry.tokens;
        delete entry.expiresAt;
      }
    });
  }
}
