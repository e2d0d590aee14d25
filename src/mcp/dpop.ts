import { webcrypto } from 'node:crypto';

type JsonWebKey = webcrypto.JsonWebKey;
import {
  DpopSession,
  generateDpopKeyPair,
  type DpopAlg,
  type DpopKeyPair,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import { McpError } from './errors.js';
import { hostAllowed } from './guarded-fetch.js';
import type { McpCredentials } from './token-store.js';

/**
 * DPoP (RFC 9449) for the stored OAuth provider (docs/mcp.md, "DPoP"): one signing key pair per
 * tenant and server, kept with its tokens (encrypted in the credential store, since a DPoP-bound
 * token is worth nothing without it), and the SDK's DpopSession signing the proofs with it: on token
 * requests (with an authorization server's `DPoP-Nonce` retry) and, for tokens issued as `DPoP`, on
 * every request to the MCP server (with `ath`, and the resource server's nonce retry).
 */

/** The key pair as kept in the credential store (the private key as a JWK: never logged, never traced). */
export interface StoredDpopKey {
  readonly alg: DpopAlg;
  readonly privateJwk: JsonWebKey;
  readonly publicJwk: JsonWebKey;
  readonly thumbprint: string;
}

/** The algorithms the runtime signs proofs with, most preferred first (small, fast keys before RSA). */
const PREFERRED: readonly DpopAlg[] = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'PS256',
  'RS256',
  'PS384',
  'RS384',
  'PS512',
  'RS512',
];

/** The first algorithm of PREFERRED that `advertised` (`dpop_signing_alg_values_supported`) lists; null when none. */
export function dpopAlgFor(advertised: unknown): DpopAlg | null {
  if (!Array.isArray(advertised)) return null;
  return PREFERRED.find((alg) => advertised.includes(alg)) ?? null;
}

/** The DPoP algorithms an authorization server's metadata advertises (undefined when it says nothing). */
export function advertisedDpopAlgs(metadata: unknown): unknown {
  return typeof metadata === 'object' && metadata !== null
    ? (metadata as { dpop_signing_alg_values_supported?: unknown }).dpop_signing_alg_values_supported
    : undefined;
}

/** Where `storedDpopSession` finds and keeps the key, and what the flow says (`auth.dpop`). */
export interface DpopKeyPlace {
  /** true: always; false: never; undefined: when the authorization server advertises DPoP. */
  readonly mode: boolean | undefined;
  read(): McpCredentials;
  write(key: StoredDpopKey): void;
  readonly allowHosts: ReadonlySet<string> | null;
  readonly serverId?: string;
}

/**
 * The DPoP session of a (tenant, server), or undefined when DPoP is off for it: `mode` false, or
 * unset and the authorization server (its metadata in the kept discovery state) advertises no
 * algorithm the runtime signs with. The key is the stored one; a new one (ES256 when the server
 * names none) is made and stored when there is none, or when the server no longer accepts its
 * algorithm.
 */
export async function storedDpopSession(place: DpopKeyPlace): Promise<DpopSession | undefined> {
  if (place.mode === false) return undefined;
  const stored = place.read();
  const discovery = stored.discovery as OAuthDiscoveryState | undefined;
  const advertised = advertisedDpopAlgs(discovery?.authorizationServerMetadata);
  let key: StoredDpopKey | undefined = isStoredDpopKey(stored.dpop) ? stored.dpop : undefined;
  if (key && Array.isArray(advertised) && !advertised.includes(key.alg)) key = undefined;
  if (key === undefined) {
    const alg = dpopAlgFor(advertised) ?? (place.mode === true ? 'ES256' : null);
    if (alg === null) return undefined;
    key = await newDpopKey(alg);
    place.write(key);
  }
  return dpopSession(await loadDpopKey(key), place.allowHosts, place.serverId);
}

/** A fresh key pair for `alg`, in the form the credential store keeps. */
export async function newDpopKey(alg: DpopAlg): Promise<StoredDpopKey> {
  const pair = await generateDpopKeyPair({ alg, extractable: true });
  const privateJwk = await webcrypto.subtle.exportKey('jwk', pair.privateKey);
  return { alg, privateJwk, publicJwk: pair.publicJwk, thumbprint: pair.thumbprint };
}

/** The stored key as the SDK's key pair (the private key imported non-extractable, for signing only). */
export async function loadDpopKey(stored: StoredDpopKey): Promise<DpopKeyPair> {
  const params = importParams(stored.alg);
  const { key_ops: _ops, ext: _ext, ...jwk } = stored.privateJwk;
  const { key_ops: _pops, ext: _pext, ...publicJwk } = stored.publicJwk;
  const privateKey = await webcrypto.subtle.importKey('jwk', jwk, params, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', publicJwk, params, true, ['verify']);
  return {
    privateKey,
    publicKey,
    publicJwk: publicJwk,
    thumbprint: stored.thumbprint,
    alg: stored.alg,
  };
}

/** True when `stored` looks like a key this module wrote (a damaged record reads as none). */
export function isStoredDpopKey(stored: unknown): stored is StoredDpopKey {
  const key = stored as Partial<StoredDpopKey> | undefined;
  return (
    typeof key === 'object' &&
    key !== null &&
    PREFERRED.includes(key.alg as DpopAlg) &&
    typeof key.privateJwk === 'object' &&
    typeof key.publicJwk === 'object' &&
    typeof key.thumbprint === 'string'
  );
}

/**
 * A DpopSession over `pair` that signs no proof for a URL outside `allowHosts` (a flow sent to `serve`
 * is held to `--allow-mcp-host`: the server signs for those hosts only). McpError CONNECT naming the
 * host otherwise; null: any host.
 */
export async function dpopSession(
  pair: DpopKeyPair,
  allowHosts: ReadonlySet<string> | null,
  serverId?: string,
): Promise<DpopSession> {
  const session = await DpopSession.create({ keyPair: pair });
  if (allowHosts === null) return session;
  const sign = session.buildProof.bind(session);
  session.buildProof = async (request) => {
    const url = new URL(String(request.htu));
    if (!hostAllowed(url, allowHosts))
      throw new McpError(
        'CONNECT',
        `no DPoP proof was signed for ${JSON.stringify(url.host)}: that host is not allowed for this flow (serve --allow-mcp-host)`,
        serverId === undefined ? {} : { serverId },
      );
    return sign(request);
  };
  return session;
}

function importParams(alg: DpopAlg): webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams | string {
  const bits = alg.slice(2);
  if (alg.startsWith('ES')) return { name: 'ECDSA', namedCurve: bits === '512' ? 'P-521' : `P-${bits}` };
  if (alg.startsWith('RS')) return { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${bits}` };
  if (alg.startsWith('PS')) return { name: 'RSA-PSS', hash: `SHA-${bits}` };
  return 'Ed25519';
}
