import {
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  requestJwtAuthorizationGrant,
  type FetchLike,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import type { McpAuthConfig } from '../domain/flow.js';
import { expandEnvRefs } from './env-refs.js';

/**
 * Enterprise-managed authorization (`grant: cross_app_access`, docs/mcp.md): the SDK's
 * CrossAppAccessProvider discovers the server's authorization server (protected resource metadata);
 * the person's ID token is exchanged at the enterprise IdP for an authorization grant (RFC 8693 token
 * exchange, requested token type ID-JAG, audience the authorization server, resource the MCP
 * server), and that grant for an access token at the authorization server (RFC 7523 JWT bearer,
 * client_secret_basic). No person is asked; tokens stay in this process's memory. `${VAR}` references
 * in the secrets and the ID token are read from the environment here. Every request (the IdP's, the
 * authorization server's) goes through `fetchFn` (the server entry's guarded fetch).
 */
export function crossAppAccessProvider(
  auth: McpAuthConfig,
  fetchFn: FetchLike,
  env: NodeJS.ProcessEnv = process.env,
): OAuthClientProvider {
  const idp = auth.idp;
  if (!idp || auth.clientId === undefined)
    throw new Error('grant cross_app_access needs `idp` and `clientId` (the flow schema checks it)');
  const secrets = expandEnvRefs(
    {
      clientSecret: auth.clientSecret ?? '',
      idpSecret: idp.clientSecret ?? '',
      idToken: idp.idToken,
    },
    'auth',
    env,
  );
  return new CrossAppAccessProvider({
    fetchFn,
    ...(auth.issuer === undefined ? {} : { expectedIssuer: auth.issuer }),
    clientId: auth.clientId,
    clientSecret: secrets.clientSecret ?? '',
    assertion: async (ctx) => {
      const request = {
        audience: ctx.authorizationServerUrl,
        resource: ctx.resourceUrl,
        idToken: secrets.idToken ?? '',
        clientId: idp.clientId,
        ...(secrets.idpSecret ? { clientSecret: secrets.idpSecret } : {}),
        ...(ctx.scope === undefined ? {} : { scope: ctx.scope }),
        fetchFn: ctx.fetchFn,
      };
      const granted =
        idp.tokenEndpoint !== undefined
          ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: idp.tokenEndpoint })
          : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl: idp.issuer ?? '' });
      return granted.jwtAuthGrant;
    },
  });
}
