import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '../../src/mcp/errors.js';
import { dpopAlgFor, dpopSession, loadDpopKey, newDpopKey } from '../../src/mcp/dpop.js';
import {
  credentialPlace,
  listAsRun,
  loginAs,
  serverEntry,
  type CredentialPlace,
} from '../helpers/oauth-client.js';
import { record, startOAuthServer, stopOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';

/**
 * DPoP-bound tokens (RFC 9449) against the OAuth test server with DPOP=1: it advertises ES256, binds
 * each token to the key of the token request's proof and wants every /mcp request signed with that
 * key (htm, htu, ath); with DPOP_NONCE=1 both its authorization server and /mcp ask for a nonce first.
 */

const servers: OAuthServer[] = [];
const places: CredentialPlace[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(stopOAuthServer));
  places.splice(0).forEach((p) => p.remove());
});

async function setUp(env: Record<string, string>) {
  const server = await startOAuthServer(env);
  servers.push(server);
  const place = credentialPlace();
  places.push(place);
  return { server, place };
}

describe('DPoP', () => {
  it('binds the tokens of a login to a stored key, used by a later connection (nonces answered)', async () => {
    const { server, place } = await setUp({ DPOP: '1', DPOP_NONCE: '1' });
    const config = serverEntry({ url: `${server.base}/mcp`, auth: {} });
    expect(await loginAs(place, config)).toEqual({ authorized: true, tools: 1 });
    const stored = place.store.read('acme', config.url);
    expect(stored.tokens?.token_type).toBe('DPoP');
    expect(stored.dpop?.alg).toBe('ES256');
    // A new connection (as another process would make) signs with the stored key.
    expect(await listAsRun(place, config)).toEqual(['whoami']);
    expect(await record(server, '/dpop')).toEqual({ refused: [] });
    // The private key is stored encrypted, like the tokens.
    const d = String((stored.dpop?.privateJwk as { d: string }).d);
    for (const name of readdirSync(place.dir))
      expect(readFileSync(join(place.dir, name)).includes(Buffer.from(d))).toBe(false);
  }, 60_000);

  it('sends no proof with dpop: false (a server that requires one refuses the token request)', async () => {
    const { server, place } = await setUp({ DPOP: '1' });
    const config = serverEntry({ url: `${server.base}/mcp`, auth: { dpop: false } });
    await expect(loginAs(place, config)).rejects.toThrow();
    // The SDK asks once more after invalid_dpop_proof: each request came without a proof.
    const { refused } = await record<{ refused: string[] }>(server, '/dpop');
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['token: missing or repeated DPoP header']));
    expect(place.store.read('acme', config.url).dpop).toBeUndefined();
  }, 60_000);

  it('uses Bearer tokens when the authorization server advertises no DPoP', async () => {
    const { server, place } = await setUp({});
    const config = serverEntry({ url: `${server.base}/mcp`, auth: {} });
    expect(await loginAs(place, config)).toEqual({ authorized: true, tools: 1 });
    const stored = place.store.read('acme', config.url);
    expect(stored.tokens?.token_type).toBe('Bearer');
    expect(stored.dpop).toBeUndefined();
  }, 60_000);
});

describe('DPoP keys and proofs', () => {
  it('picks the preferred algorithm the authorization server advertises', () => {
    expect(dpopAlgFor(['RS256', 'ES256'])).toBe('ES256');
    expect(dpopAlgFor(['RS256'])).toBe('RS256');
    expect(dpopAlgFor(['HS256', 'none'])).toBeNull();
    expect(dpopAlgFor(undefined)).toBeNull();
  });

  it('signs no proof for a host outside allowHosts (serve --allow-mcp-host)', async () => {
    const session = await dpopSession(
      await loadDpopKey(await newDpopKey('ES256')),
      new Set(['mcp.example.com']),
    );
    const proof = await session.buildProof({ htm: 'POST', htu: 'https://mcp.example.com/mcp' });
    const header = JSON.parse(Buffer.from(proof.split('.')[0] ?? '', 'base64url').toString()) as {
      typ: string;
      jwk: Record<string, unknown>;
    };
    expect(header.typ).toBe('dpop+jwt');
    expect(header.jwk.d).toBeUndefined();
    const refused = session.buildProof({ htm: 'POST', htu: 'https://evil.example/token' });
    await expect(refused).rejects.toThrow(McpError);
    await expect(refused).rejects.toThrow(/no DPoP proof was signed for "evil.example"/);
  });

  it('reloads a stored key of each supported family', async () => {
    for (const alg of ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'] as const) {
      const pair = await loadDpopKey(await newDpopKey(alg));
      const session = await dpopSession(pair, null);
      expect(
        (await session.buildProof({ htm: 'GET', htu: 'https://a.example/x?q=1' })).split('.'),
      ).toHaveLength(3);
    }
  });
});
