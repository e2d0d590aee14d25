import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, MAX_OAUTH_BODY_BYTES } from '../../src/mcp/guarded-fetch.js';
import { json, startHostile, type HostileServer } from '../helpers/hostile-http.js';

/**
 * The fetch of HTTP MCP servers (docs/security.md, "Limits for OAuth and Connect"): each request and
 * each redirect hop goes only to an allowed host, and OAuth answers (requests that do not accept an
 * event stream) are read whole within a deadline and at most MAX_OAUTH_BODY_BYTES.
 */

let allowed: HostileServer;
let other: HostileServer;

beforeAll(async () => {
  allowed = await startHostile();
  other = await startHostile();
  other.route('/meta', (_q, res) => json(res, 200, { stolen: true }));
  allowed.route('/meta', (_q, res) => json(res, 200, { issuer: allowed.url }));
  allowed.route('/hop', (_q, res) => void res.writeHead(302, { location: `${other.url}/meta` }).end());
  allowed.route('/local-hop', (_q, res) => void res.writeHead(307, { location: '/meta' }).end());
  allowed.route('/big', (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(Buffer.alloc(MAX_OAUTH_BODY_BYTES + 10, 0x20));
  });
  allowed.route('/drip', (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(timer));
  });
});
afterAll(async () => {
  await allowed.close();
  await other.close();
});

const fetchAllowed = () =>
  guardedFetch({ allowHosts: new Set([allowed.host]), serverId: 'wiki', timeoutMs: 500 });

describe('guardedFetch', () => {
  it('sends nothing to a host not allowed', async () => {
    await expect(fetchAllowed()(`${other.url}/meta`)).rejects.toThrow(
      new RegExp(`request for MCP server wiki to "${other.host}" was not sent: that host is not allowed`),
    );
    expect(other.hits).toEqual([]);
  });

  it('checks each redirect hop: a hop to another host is never sent, one on the allowed host is followed', async () => {
    await expect(fetchAllowed()(`${allowed.url}/hop`)).rejects.toThrow(/not allowed for this flow/);
    expect(other.hits).toEqual([]);
    const followed = await fetchAllowed()(`${allowed.url}/local-hop`);
    expect(await followed.json()).toEqual({ issuer: allowed.url });
    // A caller that follows redirects itself gets the redirect, and asks again (checked again).
    const manual = await fetchAllowed()(`${allowed.url}/hop`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
  });

  it('refuses an OAuth answer larger than the limit, but passes an MCP event stream as it is', async () => {
    await expect(fetchAllowed()(`${allowed.url}/big`)).rejects.toThrow(
      `larger than ${MAX_OAUTH_BODY_BYTES} bytes`,
    );
    const stream = await fetchAllowed()(`${allowed.url}/big`, {
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect((await stream.arrayBuffer()).byteLength).toBe(MAX_OAUTH_BODY_BYTES + 10);
  });

  it('abandons an OAuth answer that does not end within the deadline', async () => {
    // The answer drips forever: only the deadline ends the request.
    await expect(fetchAllowed()(`${allowed.url}/drip`)).rejects.toThrow(
      /was abandoned: no whole answer within 500 ms/,
    );
  });

  it('admits any host when no list is given (flows of the operator)', async () => {
    const response = await guardedFetch({ allowHosts: null })(`${other.url}/meta`);
    expect(await response.json()).toEqual({ stolen: true });
  });
});
