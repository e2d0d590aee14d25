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

  it('keeps discovery state across instances until it is invalidated', () => {
    const { make } = provider();
    const state = { authorizationServerUrl: 'http://127.0.0.1:1/' };
    make().saveDiscoveryState(state);
    expect(make().discoveryState()).toEqual(state);
    make().invalidateCredentials('discovery');
    expect(make().discoveryState()).toBeUndefined();
  });
});
