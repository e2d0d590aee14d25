import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_REQUEST_TIMEOUT_MS } from '../../src/mcp/guarded-fetch.js';
import { protectedMcp, startHostile, type HostileServer } from '../helpers/hostile-http.js';
import { tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * A hostile authorization server answers its metadata with 50 MB (or never finishes it). The server
 * reads at most 1 MiB of an OAuth answer within 10 s, then abandons the request: the run fails soon,
 * naming the limit, and the server's memory does not grow by the answer's size.
 */

const FIFTY_MB = 50 * 1024 * 1024;
let mcp: HostileServer;
let target: Target;
let sent = 0;

beforeAll(async () => {
  mcp = await startHostile();
  protectedMcp(mcp, [mcp.url]);
  const scripted = await tempDir({
    'finish.yaml': 'turns:\n  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }\n',
  });
  target = await startTarget({ server: { allowMcpHosts: [mcp.host], scriptedModels: scripted } });
});
afterAll(async () => {
  await target.stop();
  await mcp.close();
});

/** Writes `total` bytes of JSON-ish text, as fast as the reader takes them, counting what was written. */
function hugeMetadata(total: number) {
  return async (_q: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let closed = false;
    res.on('close', () => (closed = true));
    while (sent < total && !closed) {
      sent += chunk.byteLength;
      if (!res.write(chunk))
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
    }
    res.end();
  };
}

function flow(): Record<string, unknown> {
  return {
    id: 'bounds',
    locale: 'en',
    model: 'scripted:finish.yaml',
    mcpServers: { wiki: { url: `${mcp.url}/mcp`, auth: { grant: 'client_credentials', clientId: 'c' } } },
    nodes: [{ id: 'main', tools: ['whoami'] }],
  };
}

describe('OAuth answers under serve', () => {
  it('abandons a 50 MB authorization server metadata answer: bounded memory, the run fails within 10 s', async () => {
    mcp.route('/.well-known/oauth-authorization-server', hugeMetadata(FIFTY_MB));
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const response = await target.call('POST', '/v1/runs', {
      token: SEC.admin,
      json: { flow: flow(), input: 'x' },
    });
    expect(response.status).toBe(201);
    const { runId } = (await response.json()) as { runId: string };
    let run: { status: string; message?: string } = { status: 'running' };
    let peak = before;
    while (run.status === 'running' || run.status === 'queued') {
      expect(Date.now() - started).toBeLessThan(OAUTH_REQUEST_TIMEOUT_MS);
      peak = Math.max(peak, process.memoryUsage().rss);
      await new Promise((resolve) => setTimeout(resolve, 25));
      run = (await (
        await target.call('GET', `/v1/runs/${runId}`, { token: SEC.admin })
      ).json()) as typeof run;
    }
    expect(run.status).toBe('failed');
    expect(run.message).toMatch(/larger than 1048576 bytes/);
    expect(peak - before).toBeLessThan(30 * 1024 * 1024);
    // The answer was abandoned: far less than it was written (socket buffers aside).
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });
});
