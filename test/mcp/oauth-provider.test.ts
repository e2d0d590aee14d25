import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoredOAuthProvider } from '../../src/mcp/oauth.js';
import { FileCredentialStore } from '../../src/mcp/token-store.js';

/** The stored OAuth provider's memory between processes: the scope a run was refused for, discovery. */

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const SERVER = 'http://127.0.0.1:1/mcp';

function provider(onAuthorizationUrl?: (url: URL) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-oauth-'));
  dirs.push(dir);
  const store = new FileCredentialStore(dir, 'test key');
  const make = () =>
    new StoredOAuthProvider(SERVER, { grant: 'authorization_code' }, undefined, {
      store,
      tenant: 'acme',
      ...(onAuthorizationUrl ? { onAuthorizationUrl } : {}),
    });
  return { store, make };
}

const AUTHORIZE = 'http://127.0.0.1:1/authorize?client_id=c&scope=mcp%3Abasic+mcp%3Awrite';

describe('StoredOAuthProvider', () => {
  it('keeps the scope a run was refused for, and reports what the stored token lacks of it', () => {
    const { store, make } = provider();
    const run = make();
    run.saveTokens({ access_token: 'a', token_type: 'Bearer', scope: 'mcp:basic' });
    expect(run.missingScope()).toBeUndefined();
    run.redirectToAuthorization(new URL(AUTHORIZE));
    expect(store.read('acme', SERVER).required).toEqual({ scope: 'mcp:basic mcp:write' });
    // Another process (the login) sees it.
    const login = make();
    expect(login.missingScope()).toBe('mcp:basic mcp:write');
    login.saveTokens({ access_token: 'b', token_type: 'Bearer', scope: 'mcp:basic mcp:write' });
    expect(login.missingScope()).toBeUndefined();
    login.clearRequired();
    expect(store.read('acme', SERVER).required).toBeUndefined();
  });

  it('shows the URL when someone is there to open it, and keeps nothing then', () => {
    const shown: string[] = [];
    const { store, make } = provider((url) => shown.push(url.href));
    make().redirectToAuthorization(new URL(AUTHORIZE));
    expect(shown).toEqual([AUTHORIZE]);
    expect(store.read('acme', SERVER).required).toBeUndefined();
  });

  it('keeps discovery state across instances until it is invalidated', async () => {
    const { make } = provider();
    const state = { authorizationServerUrl: 'http://127.0.0.1:1/' };
    make().saveDiscoveryState(state);
    expect(await make().discoveryState()).toEqual(state);
    make().invalidateCredentials('discovery');
    expect(await make().discoveryState()).toBeUndefined();
  });

  it('keeps a client registration per authorization server, and the latest for a caller naming none', () => {
    const { store, make } = provider();
    const one = make();
    one.saveClientInformation(
      { client_id: 'at-a', issuer: 'https://a.example' },
      { issuer: 'https://a.example' },
    );
    one.saveClientInformation(
      { client_id: 'at-b', issuer: 'https://b.example' },
      { issuer: 'https://b.example' },
    );
    const other = make();
    expect(other.clientInformation({ issuer: 'https://a.example' })?.client_id).toBe('at-a');
    expect(other.clientInformation({ issuer: 'https://b.example' })?.client_id).toBe('at-b');
    expect(other.clientInformation()?.client_id).toBe('at-b');
    other.invalidateCredentials('client');
    expect(store.read('acme', SERVER).clients).toBeUndefined();
    expect(other.clientInformation({ issuer: 'https://a.example' })).toBeUndefined();
  });
});
