import { readFileSync } from 'node:fs';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpAuthConfig } from '../domain/flow.js';
import { expandEnvRefs } from './env-refs.js';
import { McpError } from './errors.js';

/** The grant type of RFC 7523 (a JWT as an authorization grant). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The workload-identity JWT-bearer grant (`grant: jwt_bearer`, docs/mcp.md): the workload's JWT (an
 * identity token its platform issues: Kubernetes, a cloud, a CI system) is the authorization grant
 * at the server's authorization server (RFC 7523), found through its protected resource metadata. No
 * person is asked; the token stays in this process's memory. The JWT comes from `assertion` (usually
 * `${VAR}`, read from `env` here) or `assertionFile` (read again at each token request, so a rotated
 * token is picked up). The client (`clientId`, `clientSecret` when given) authenticates as the
 * authorization server's metadata allows. With `issuer`, the assertion goes to that authorization
 * server only.
 */
export function jwtBearerProvider(
  auth: McpAuthConfig,
  env: NodeJS.ProcessEnv = process.env,
): OAuthClientProvider {
  if (auth.clientId === undefined || (auth.assertion === undefined && auth.assertionFile === undefined))
    throw new Error('grant jwt_bearer needs `clientId` and an assertion (the flow schema checks it)');
  const secrets = expandEnvRefs(
    {
      ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
      ...(auth.assertion === undefined ? {} : { assertion: auth.assertion }),
    },
    'auth',
    env,
  );
  const file = auth.assertionFile;
  return new JwtBearerProvider(
    {
      client_id: auth.clientId,
      ...(secrets.clientSecret === undefined ? {} : { client_secret: secrets.clientSecret }),
      ...(auth.issuer === undefined ? {} : { issuer: auth.issuer }),
    },
    () => (file === undefined ? (secrets.assertion ?? '') : readAssertion(file)),
    auth.scope,
  );
}

/** The JWT in `file` (surrounding whitespace removed); McpError UNAUTHORIZED naming the file when it cannot be read. */
function readAssertion(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new McpError(
      'UNAUTHORIZED',
      `the workload token file ${file} (auth.assertionFile) cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  if (text === '')
    throw new McpError('UNAUTHORIZED', `the workload token file ${file} (auth.assertionFile) is empty`);
  return text;
}

class JwtBearerProvider implements OAuthClientProvider {
  private current: StoredOAuthTokens | undefined;

  constructor(
    private readonly client: StoredOAuthClientInformation,
    private readonly assertion: () => string,
    private readonly scope: string | undefined,
  ) {}

  /** No redirect: the SDK takes the non-interactive path and asks `prepareTokenRequest` for the grant. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'agent-runtime',
      redirect_uris: [],
      grant_types: [JWT_BEARER_GRANT],
      ...(this.scope === undefined ? {} : { scope: this.scope }),
    };
  }

  clientInformation(): StoredOAuthClientInformation {
    return this.client;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.current = tokens;
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this.assertion() });
    if (scope) params.set('scope', scope);
    return params;
  }

  redirectToAuthorization(): void {
    throw new McpError('UNAUTHORIZED', 'grant jwt_bearer has no person to send to an authorization page');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new McpError('UNAUTHORIZED', 'grant jwt_bearer uses no authorization code');
  }

  /**
   * Called by the SDK when the authorization server refused the grant (`invalid_grant`,
   * `invalid_client`, `unauthorized_client`) before it tries again: the same assertion would be
   * refused again, and falling back to another grant is not this grant's to do. So the refusal ends
   * the attempt here, without a second token request.
   */
  invalidateCredentials(): never {
    this.current = undefined;
    throw new McpError(
      'UNAUTHORIZED',
      "the authorization server refused the workload's JWT-bearer grant (invalid_grant, invalid_client or unauthorized_client); not retried: check the token's audience and expiry and the client's registration",
    );
  }
}
