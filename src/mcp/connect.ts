import { auth as authorize } from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../domain/flow.js';
import { expandEnvRefs } from './env-refs.js';
import { McpError } from './errors.js';
import { fetchForServer } from './guarded-fetch.js';
import { attempt } from './login.js';
import { StoredOAuthProvider } from './oauth.js';
import type { McpCredentialStore } from './token-store.js';

/**
 * Connect (docs/mcp.md, "Connect"): the authorization code flow of an HTTP MCP server split in two
 * halves for a server process, so that the person's browser comes back to `serve` instead of a
 * loopback listener. The first half builds the authorization URL (PKCE S256, `resource`, `state`);
 * the second exchanges the code the callback brought for tokens, stored encrypted for the tenant.
 */

/** Which server, for whom, and where the browser comes back to. */
export interface ConnectTarget {
  readonly serverId: string;
  readonly config: HttpServerConfig;
  readonly tenant: string | null;
  readonly store: McpCredentialStore;
  /** The callback of `serve` (`…/v1/oauth/callback`), registered with the authorization server. */
  readonly redirectUrl: string;
}

/** What the first half found: tokens that already work, or the URL the person opens. */
export type ConnectStart =
  | { readonly authorized: true }
  | {
      readonly authorized: false;
      readonly url: URL;
      /** The `state` of the URL: the callback must bring it back. */
      readonly state: string;
      /** The PKCE code verifier: kept by the caller (never sent anywhere) until the callback. */
      readonly verifier: string;
      /** The scope asked for when it is a step-up (more than the stored token has). */
      readonly scope?: string;
    };

function providerFor(target: ConnectTarget, onUrl?: (url: URL) => void): StoredOAuthProvider {
  const auth = target.config.auth;
  if (!auth || auth.grant !== 'authorization_code')
    throw new McpError(
      'UNAUTHORIZED',
      `MCP server ${target.serverId} has no \`auth\` with grant authorization_code: a person cannot authorize it`,
      { serverId: target.serverId },
    );
  const secret = expandEnvRefs(
    auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret },
    'auth',
  ).clientSecret;
  return new StoredOAuthProvider(
    target.config.url,
    auth,
    secret,
    {
      store: target.store,
      tenant: target.tenant,
      redirectUrl: target.redirectUrl,
      ...(onUrl ? { onAuthorizationUrl: onUrl } : {}),
    },
    target.config.allowHosts,
  );
}

/**
 * Starts an authorization at the server: lists its tools with what is stored; when that works and no
 * wider scope is missing, nothing is to be done (`authorized: true`). Otherwise the SDK discovers the
 * authorization server, registers a client for `redirectUrl` when the flow gives none, and builds the
 * authorization URL, returned with its state and verifier. McpError UNAUTHORIZED when no URL came of it.
 */
export async function startConnect(target: ConnectTarget): Promise<ConnectStart> {
  let shown: URL | null = null;
  const provider = providerFor(target, (url) => (shown = url));
  const first = await attempt(target, provider);
  const stepUp = first.tools === null ? undefined : provider.missingScope();
  if (first.tools !== null && stepUp === undefined) return { authorized: true };
  if (stepUp !== undefined)
    await authorize(provider, {
      serverUrl: new URL(target.config.url),
      scope: stepUp,
      forceReauthorization: true,
      fetchFn: fetchForServer(target.config, target.serverId),
    });
  const url = shown as URL | null;
  const state = url?.searchParams.get('state') ?? null;
  if (url === null || state === null)
    throw new McpError('UNAUTHORIZED', `MCP server ${target.serverId} gave no authorization URL to open`, {
      serverId: target.serverId,
    });
  return {
    authorized: false,
    url,
    state,
    verifier: provider.codeVerifier(),
    ...(stepUp === undefined ? {} : { scope: stepUp }),
  };
}

/** What the callback brought, with what the first half kept. */
export interface ConnectFinish {
  readonly code: string;
  readonly verifier: string;
  /** The `iss` parameter of the callback (RFC 9207), when the authorization server sends one. */
  readonly iss?: string;
  readonly scope?: string;
}

/**
 * Exchanges the authorization code for tokens (PKCE with the kept verifier), stores them for the
 * tenant and server, and forgets the scope a run found missing. McpError UNAUTHORIZED when the
 * authorization server gives no token.
 */
export async function finishConnect(target: ConnectTarget, finish: ConnectFinish): Promise<void> {
  const provider = providerFor(target);
  provider.saveCodeVerifier(finish.verifier);
  const done = await authorize(provider, {
    serverUrl: new URL(target.config.url),
    authorizationCode: finish.code,
    fetchFn: fetchForServer(target.config, target.serverId),
    ...(finish.scope === undefined ? {} : { scope: finish.scope }),
    ...(finish.iss === undefined ? {} : { iss: finish.iss }),
  });
  if (done !== 'AUTHORIZED')
    throw new McpError(
      'UNAUTHORIZED',
      `the authorization at MCP server ${target.serverId} brought no token`,
      {
        serverId: target.serverId,
      },
    );
  provider.clearRequired();
}
