import { randomBytes } from 'node:crypto';
import {
  ClientCredentialsProvider,
  computeScopeUnion,
  isStrictScopeSuperset,
  PrivateKeyJwtProvider,
  type DpopSession,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthDiscoveryState,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig, McpAuthConfig } from '../domain/flow.js';
import { authorizationServerMoved } from './as-migration.js';
import { crossAppAccessProvider } from './cross-app.js';
import { storedDpopSession } from './dpop.js';
import { expandEnvRefs } from './env-refs.js';
import { fetchForServer, guardedFetch } from './guarded-fetch.js';
import { jwtBearerProvider } from './jwt-bearer.js';
import type { McpCredentials, McpCredentialStore } from './token-store.js';
import { CLIENT_NAME } from './client-info.js';

/** The loopback redirect `mcp login` listens on when the flow fixes no port. */
export const DEFAULT_REDIRECT_PATH = '/callback';

/** Who the credentials are for and what to do with an authorization URL. */
export interface McpAuthContext {
  readonly store: McpCredentialStore;
  readonly tenant: string | null;
  /** The loopback redirect of `mcp login`; runs use the flow's `redirectPort` (else a placeholder). */
  readonly redirectUrl?: string;
  /**
   * Told the authorization URL when a person must authorize (`mcp login` prints it). Without it the
   * connection fails McpError UNAUTHORIZED naming the server.
   */
  readonly onAuthorizationUrl?: (url: URL) => void;
}

/**
 * The OAuth provider of an HTTP server entry with `auth` (docs/mcp.md, "Authorization"):
 * client_credentials (client secret, or a private key for private_key_jwt) tokens are fetched by
 * the process itself; authorization_code uses the credentials `mcp login` stored for this tenant and
 * server, refreshing them as needed. Secrets may be `${VAR}` references.
 */
export function authProviderFor(
  config: HttpServerConfig,
  context: McpAuthContext,
  env: NodeJS.ProcessEnv = process.env,
): OAuthClientProvider | null {
  const auth = config.auth;
  if (!auth) return null;
  if (auth.grant === 'cross_app_access') return crossAppAccessProvider(auth, fetchForServer(config), env);
  if (auth.grant === 'jwt_bearer') return jwtBearerProvider(auth, env);
  const secrets = expandEnvRefs(
    {
      ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
      ...(auth.privateKey === undefined ? {} : { privateKey: auth.privateKey }),
    },
    'auth',
    env,
  );
  if (auth.grant === 'client_credentials') {
    const clientId = auth.clientId ?? '';
    const scope = {
      ...(auth.scope === undefined ? {} : { scope: auth.scope }),
      ...(auth.issuer === undefined ? {} : { expectedIssuer: auth.issuer }),
    };
    if (secrets.privateKey !== undefined)
      return new PrivateKeyJwtProvider({
        clientId,
        privateKey: secrets.privateKey,
        algorithm: auth.signingAlgorithm ?? 'RS256',
        ...scope,
      });
    return new ClientCredentialsProvider({ clientId, clientSecret: secrets.clientSecret ?? '', ...scope });
  }
  return new StoredOAuthProvider(config.url, auth, secrets.clientSecret, context, config.allowHosts);
}

/**
 * Authorization code + PKCE with the registration and tokens kept in the credential store: client
 * registrations per authorization server (its issuer), tokens stamped with the issuer that gave them,
 * the discovery state checked against the server's current protected resource metadata before each
 * authorization (as-migration.ts), and DPoP (dpop.ts).
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier = '';
  private expectedState = '';
  private session: DpopSession | undefined;
  private readonly allow: ReadonlySet<string> | null;
  private readonly fetchFn: FetchLike;
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly serverUrl: string,
    private readonly auth: McpAuthConfig,
    private readonly clientSecret: string | undefined,
    /** Whose credentials, where kept, whom to show an authorization URL. */
    readonly context: McpAuthContext,
    /** The server entry's `allowHosts` (set under `serve`): no request and no DPoP proof for other hosts. */
    allowHosts?: readonly string[],
  ) {
    if (auth.clientMetadataUrl !== undefined) this.clientMetadataUrl = auth.clientMetadataUrl;
    this.allow = allowHosts === undefined ? null : new Set(allowHosts.map((h) => h.toLowerCase()));
    this.fetchFn = guardedFetch({ allowHosts: this.allow });
  }

  get redirectUrl(): string {
    return (
      this.context.redirectUrl ?? `http://127.0.0.1:${this.auth.redirectPort ?? 0}${DEFAULT_REDIRECT_PATH}`
    );
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.clientSecret === undefined ? 'none' : 'client_secret_basic',
      ...(this.auth.scope === undefined ? {} : { scope: this.auth.scope }),
    };
  }

  /** A fresh state for an authorization request (the callback must carry it back). */
  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  /** True when `state` is the one of the last authorization request. */
  stateMatches(state: string | null): boolean {
    return this.expectedState !== '' && state === this.expectedState;
  }

  /** The registration at the authorization server `ctx` names (else the latest one). */
  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    if (this.auth.clientId !== undefined)
      return {
        client_id: this.auth.clientId,
        ...(this.clientSecret === undefined ? {} : { client_secret: this.clientSecret }),
      };
    const stored = this.read();
    const client = ((ctx && stored.clients?.[ctx.issuer]) ?? stored.client) as
      StoredOAuthClientInformation | undefined;
    // A registration made for another redirect (an earlier login on another port) is not reused.
    const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (this.context.redirectUrl && Array.isArray(uris) && !uris.includes(this.context.redirectUrl))
      return undefined;
    return client;
  }

  /** Keeps the registration as the latest, and under its authorization server's issuer. */
  saveClientInformation(client: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
    const issuer = ctx?.issuer ?? client.issuer;
    const clients =
      issuer === undefined ? {} : { clients: { ...this.read().clients, [issuer]: { ...client } } };
    this.update({ client: { ...client }, ...clients });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.read().tokens as StoredOAuthTokens | undefined;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.update({ tokens: { ...tokens } });
  }

  /**
   * A person must authorize. With someone to show the URL to (`mcp login`) it is shown; without (a
   * run) the scope asked for is kept, so that the next login asks for it too (a 403
   * `insufficient_scope` step-up needs more than the token has).
   */
  redirectToAuthorization(url: URL): void {
    if (this.context.onAuthorizationUrl) return this.context.onAuthorizationUrl(url);
    const scope = url.searchParams.get('scope');
    this.update({ required: scope === null ? {} : { scope } });
  }

  /** The scope a run found missing from the stored token (a step-up), or undefined when there is none. */
  missingScope(): string | undefined {
    const { required, tokens } = this.read();
    const granted = typeof tokens?.scope === 'string' ? tokens.scope : undefined;
    if (!tokens || required?.scope === undefined) return undefined;
    const union = computeScopeUnion(granted, required.scope);
    return isStrictScopeSuperset(union, granted) ? union : undefined;
  }

  /** Forgets what a run asked for (after a person authorized). */
  clearRequired(): void {
    if (this.read().required !== undefined) this.update({ required: undefined });
  }

  /**
   * The kept discovery state, unless the server's protected resource metadata names another
   * authorization server now: then it is dropped, and the SDK discovers the new one.
   */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const state = this.read().discovery as OAuthDiscoveryState | undefined;
    if (state === undefined || !(await authorizationServerMoved(this.serverUrl, state, this.fetchFn)))
      return state;
    this.update({ discovery: undefined });
    return undefined;
  }

  /** The DPoP session of this server's stored key (made on first use), or undefined when DPoP is off. */
  async dpop(): Promise<DpopSession | undefined> {
    this.session ??= await storedDpopSession({
      mode: this.auth.dpop,
      read: () => this.read(),
      write: (dpop) => this.update({ dpop }),
      allowHosts: this.allow,
    });
    return this.session;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.update({ discovery: { ...state } });
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') this.verifier = '';
    if (scope === 'all' || scope === 'tokens') this.update({ tokens: undefined });
    if (scope === 'all' || scope === 'client') this.update({ client: undefined, clients: undefined });
    if (scope === 'all' || scope === 'discovery') this.update({ discovery: undefined });
  }

  private read() {
    return this.context.store.read(this.context.tenant, this.serverUrl);
  }

  private update(change: Partial<Record<keyof McpCredentials, unknown>>): void {
    const next = { ...this.read(), ...change } as McpCredentials;
    this.context.store.write(this.context.tenant, this.serverUrl, next);
  }
}
