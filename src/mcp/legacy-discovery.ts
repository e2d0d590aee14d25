import {
  discoverOAuthProtectedResourceMetadata,
  discoverOAuthServerInfo,
  IssuerMismatchError,
  type FetchLike,
} from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import { causeChain } from './errors.js';
import { fetchForServer } from './guarded-fetch.js';
import type { McpAuthContext } from './oauth.js';

/**
 * Servers of the 2025-03-26 revision of MCP publish no protected resource metadata: their
 * authorization server is the server's origin, with its metadata at
 * `/.well-known/oauth-authorization-server` there (or none: the default endpoints `/authorize`,
 * `/token`, `/register`), and that revision did not require the metadata's `issuer` to be the URL
 * it was fetched from. The SDK checks that it is (RFC 8414), and refuses such a server.
 *
 * When a connection failed for that reason only — the check expected the server's origin, and the
 * server has no protected resource metadata — the metadata is fetched without the check and kept as
 * the server's discovery state (per tenant, with its credentials), which later connections use
 * instead of discovering again. True when it did: the caller connects once more. A server that
 * does publish protected resource metadata is never relaxed for.
 */
export async function adoptLegacyAuthorizationServer(
  config: McpServerConfig,
  error: unknown,
  auth: McpAuthContext | undefined,
): Promise<boolean> {
  if (!('url' in config) || !config.auth || config.auth.grant !== 'authorization_code' || !auth) return false;
  const serverUrl = new URL(config.url);
  const origin = `${serverUrl.origin}/`;
  const mismatch = causeChain(error).find(
    (e): e is IssuerMismatchError => e instanceof IssuerMismatchError && e.kind === 'metadata',
  );
  if (!mismatch || (mismatch.expected !== origin && mismatch.expected !== serverUrl.origin)) return false;
  const fetchFn = fetchForServer(config);
  if (await hasResourceMetadata(serverUrl, fetchFn)) return false;
  const info = await discoverOAuthServerInfo(serverUrl, { skipIssuerMetadataValidation: true, fetchFn });
  if (!info.authorizationServerMetadata) return false;
  const stored = auth.store.read(auth.tenant, config.url);
  auth.store.write(auth.tenant, config.url, {
    ...stored,
    discovery: {
      authorizationServerUrl: String(info.authorizationServerUrl),
      authorizationServerMetadata: info.authorizationServerMetadata,
    },
  });
  return true;
}

async function hasResourceMetadata(serverUrl: URL, fetchFn: FetchLike): Promise<boolean> {
  try {
    await discoverOAuthProtectedResourceMetadata(serverUrl, undefined, fetchFn);
    return true;
  } catch {
    // No protected resource metadata at the well-known locations (or none readable): a 2025-03-26 server.
    return false;
  }
}
