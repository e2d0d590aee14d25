import {
  discoverOAuthProtectedResourceMetadata,
  type FetchLike,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';

/**
 * Authorization-server migration (docs/mcp.md, "When the server moves to another authorization
 * server"): the discovery state kept with a server's credentials names the authorization server its
 * client registration and tokens came from. Before the SDK relies on it (each authorization: a 401,
 * `mcp login`, the console's Connect), the server's protected resource metadata is read again; when
 * it no longer names that authorization server, the kept state is stale and must be dropped, so that
 * the SDK discovers the new one, registers there and asks for a new authorization — the credentials
 * of the old one are never presented to the new one (the SDK's issuer stamps).
 *
 * True when `state` is stale. State without protected resource metadata (a 2025-03-26 server, the
 * legacy discovery) is never stale; nor is any when the metadata cannot be read now (a passing
 * failure must not throw a working registration away).
 */
export async function authorizationServerMoved(
  serverUrl: string,
  state: OAuthDiscoveryState,
  fetchFn: FetchLike,
): Promise<boolean> {
  if (state.resourceMetadata === undefined || !state.authorizationServerUrl) return false;
  let named: readonly string[];
  try {
    const metadata = await discoverOAuthProtectedResourceMetadata(
      new URL(serverUrl),
      state.resourceMetadataUrl ? { resourceMetadataUrl: new URL(state.resourceMetadataUrl) } : undefined,
      fetchFn,
    );
    named = metadata.authorization_servers ?? [];
  } catch {
    return false;
  }
  if (named.length === 0) return false;
  const kept = state.authorizationServerUrl;
  return !named.some((url) => sameIssuer(url, kept));
}

/** Issuer identity as the SDK compares it: equal, or equal but for one trailing slash. */
function sameIssuer(a: string, b: string): boolean {
  return a === b || a.replace(/\/$/, '') === b.replace(/\/$/, '');
}
