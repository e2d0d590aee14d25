import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpAuthSchema } from '../../src/domain/flow.js';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { catalogFailureReason, McpError } from '../../src/mcp/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import { credentialPlace, listAsRun, serverEntry, type CredentialPlace } from '../helpers/oauth-client.js';
import { record, startOAuthServer, stopOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';

/**
 * The workload-identity JWT-bearer grant (RFC 7523) against the OAuth test server with
 * JWT_BEARER_JWK: its token endpoint takes an assertion signed by the workload's key for audience
 * `<base>` (its issuer). No person, no registration.
 */

const servers: OAuthServer[] = [];
const places: CredentialPlace[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(stopOAuthServer));
  places.splice(0).forEach((p) => p.remove());
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An ES256 JWT the workload's platform would issue. */
function workloadJwt(key: KeyObject, claims: Record<string, unknown>): string {
  const signed = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64(claims)}`;
  const signature = sign('sha256', Buffer.from(signed), { key, dsaEncoding: 'ieee-p1363' });
  return `${signed}.${signature.toString('base64url')}`;
}

async function setUp() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = await startOAuthServer({
    JWT_BEARER_JWK: JSON.stringify(publicKey.export({ format: 'jwk' })),
  });
  servers.push(server);
  const place = credentialPlace();
  places.push(place);
  const now = Math.floor(Date.now() / 1000);
  const jwt = (exp = now + 600) =>
    workloadJwt(privateKey, { iss: 'https://idp.example', sub: 'workload', aud: server.base, iat: now, exp });
  return { server, place, jwt };
}

const auth = (extra: Record<string, unknown>) => ({ grant: 'jwt_bearer', clientId: 'workload', ...extra });

describe('grant jwt_bearer', () => {
  it('exchanges the JWT of an environment variable for a token', async () => {
    const { server, place, jwt } = await setUp();
    const config = serverEntry({ url: `${server.base}/mcp`, auth: auth({ assertion: '${WORKLOAD_JWT}' }) });
    expect(await listAsRun(place, config, { ...process.env, WORKLOAD_JWT: jwt() })).toEqual(['whoami']);
    const seen = await record<{ as: string; client_id: string; at: string }[]>(server, '/seen');
    expect(seen).toEqual([{ as: '', client_id: 'workload', at: 'token' }]);
  }, 60_000);

  it('reads the JWT of a file at the token request', async () => {
    const { server, place, jwt } = await setUp();
    const file = join(place.dir, 'token.jwt');
    writeFileSync(file, `${jwt()}\n`);
    const config = serverEntry({ url: `${server.base}/mcp`, auth: auth({ assertionFile: file }) });
    expect(await listAsRun(place, config)).toEqual(['whoami']);
  }, 60_000);

  it('gives up after one refused token request (an expired JWT is not sent again)', async () => {
    const { server, place, jwt } = await setUp();
    const config = serverEntry({ url: `${server.base}/mcp`, auth: auth({ assertion: '${WORKLOAD_JWT}' }) });
    const env = { ...process.env, WORKLOAD_JWT: jwt(Math.floor(Date.now() / 1000) - 60) };
    await expect(listAsRun(place, config, env)).rejects.toThrow();
    expect(await record(server, '/token-requests')).toEqual({ count: 1 });
  }, 60_000);

  it('fails a run TOOLS_UNAUTHORIZED naming the refused grant, not a login to run', async () => {
    const { server, place, jwt } = await setUp();
    const config = serverEntry({ url: `${server.base}/mcp`, auth: auth({ assertion: '${WORKLOAD_JWT}' }) });
    const connection = openMcpConnection({
      serverId: 'warehouse',
      config,
      baseDir: place.dir,
      tenant: 'acme',
      credentials: place.store,
      logger: silentLogger,
      env: { ...process.env, WORKLOAD_JWT: jwt(Math.floor(Date.now() / 1000) - 60) },
    });
    try {
      const error = await connection.listTools().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(catalogFailureReason(error)).toBe('TOOLS_UNAUTHORIZED');
      const message = (error as McpError).message;
      expect(message).toMatch(
        /^cannot connect to MCP server warehouse: the authorization server refused the workload's JWT-bearer grant/,
      );
      expect(message).toMatch(/not retried/);
      expect(message).not.toMatch(/mcp login/);
    } finally {
      await connection.close();
    }
  }, 60_000);

  it('names the token file that cannot be read', async () => {
    const { server, place } = await setUp();
    const file = join(place.dir, 'missing.jwt');
    const config = serverEntry({ url: `${server.base}/mcp`, auth: auth({ assertionFile: file }) });
    await expect(listAsRun(place, config)).rejects.toThrow(
      `the workload token file ${file} (auth.assertionFile) cannot be read: ENOENT`,
    );
  }, 60_000);
});

describe('the flow keys of grant jwt_bearer', () => {
  const problems = (value: Record<string, unknown>) =>
    McpAuthSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

  it('needs a client id and exactly one assertion source', () => {
    const needs = ': grant jwt_bearer needs `clientId` and one of `assertion` or `assertionFile`';
    expect(problems({ grant: 'jwt_bearer', assertion: 'x' })).toEqual([needs]);
    expect(problems(auth({}))).toEqual([needs]);
    expect(problems(auth({ assertion: 'x', assertionFile: '/t' }))).toEqual([needs]);
    expect(problems(auth({ assertion: 'x' }))).toEqual([]);
  });

  it('wants an absolute token file, and the assertion keys only with that grant', () => {
    expect(problems(auth({ assertionFile: 'token.jwt' }))).toEqual([
      'assertionFile: must be an absolute path',
    ]);
    expect(problems({ assertion: 'x' })).toEqual([
      ': `assertion` and `assertionFile` belong to grant jwt_bearer',
    ]);
  });
});
