import { afterEach, describe, expect, it } from 'vitest';
import {
  credentialPlace,
  listAsRun,
  loginAs,
  serverEntry,
  type CredentialPlace,
} from '../helpers/oauth-client.js';
import { record, startOAuthServer, stopOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';

/**
 * Authorization-server migration (SEP-2352) against the OAuth test server: after POST /migrate its
 * protected resource metadata names its second authorization server (`<base>/as2`) and the first's
 * tokens stop working. The runtime must register at the new one and never show it what the old one
 * issued.
 */

const servers: OAuthServer[] = [];
const places: CredentialPlace[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(stopOAuthServer));
  places.splice(0).forEach((p) => p.remove());
});

interface Seen {
  readonly as: string;
  readonly client_id: string | null;
  readonly at: string;
}

describe('authorization-server migration', () => {
  it('registers at the new authorization server and authorizes there, keeping each registration', async () => {
    const server = await startOAuthServer();
    servers.push(server);
    const place = credentialPlace();
    places.push(place);
    const config = serverEntry({ url: `${server.base}/mcp`, auth: {} });

    expect(await loginAs(place, config)).toEqual({ authorized: true, tools: 1 });
    expect(await listAsRun(place, config)).toEqual(['whoami']);
    const before = await record<Seen[]>(server, '/seen');
    const firstClient = before.find((s) => s.as === '')?.client_id;
    expect(firstClient).toMatch(/^client_/);

    await fetch(`${server.base}/migrate`, { method: 'POST' });
    // A run has no person at hand: it is refused, but finds the new authorization server and registers.
    await expect(listAsRun(place, config)).rejects.toThrow();
    const stored = place.store.read('acme', config.url);
    expect(stored.discovery?.authorizationServerUrl).toBe(`${server.base}/as2`);
    expect(Object.keys(stored.clients ?? {}).sort()).toEqual([server.base, `${server.base}/as2`]);

    // The person authorizes once more, at the new authorization server.
    expect(await loginAs(place, config)).toEqual({ authorized: true, tools: 1 });
    expect(await listAsRun(place, config)).toEqual(['whoami']);
    const atNew = (await record<Seen[]>(server, '/seen')).filter((s) => s.as === '/as2');
    expect(atNew.map((s) => s.at)).toEqual(['authorize', 'token']);
    expect(atNew.every((s) => s.client_id !== firstClient && s.client_id?.startsWith('client_as2_'))).toBe(
      true,
    );
  }, 90_000);

  it('keeps the discovery state while the metadata still names the same authorization server', async () => {
    const server = await startOAuthServer();
    servers.push(server);
    const place = credentialPlace();
    places.push(place);
    const config = serverEntry({ url: `${server.base}/mcp`, auth: {} });
    expect(await loginAs(place, config)).toEqual({ authorized: true, tools: 1 });
    const client = place.store.read('acme', config.url).client;
    // Logging in again asks nobody (the token works) and registers nowhere new.
    expect(await loginAs(place, config)).toEqual({ authorized: false, tools: 1 });
    expect(place.store.read('acme', config.url).client).toEqual(client);
    expect((await record<Seen[]>(server, '/seen')).every((s) => s.as === '')).toBe(true);
  }, 90_000);
});
