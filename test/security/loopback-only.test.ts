import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { runServe } from '../../src/cli/serve.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer, type ApiServer } from '../../src/server/app.js';
import { mountConsole } from '../../src/server/console.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { isLoopbackHost } from '../../src/server/origin-guard.js';
import { ticketTools } from '../server/fixtures.js';
import { quietLogger, reached, tempDir } from '../server/helpers.js';

/**
 * Finding 8 of issue 27: without `--tokens` every caller is admin and nothing checked `Host` or
 * `Origin`, so a DNS-rebinding page got the API and a plain cross-site form POST cancelled a run.
 * Now such a server answers only loopback names and refuses state-changing requests of other sites;
 * its own console (same origin) and non-browser clients work as before.
 */

const ASK = `turns:
  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which printer? } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

let runtime: Runtime;
let server: ApiServer;
let url: string;
let port: number;

beforeAll(async () => {
  const tools = ticketTools();
  const flowsDir = await tempDir({
    'ask.yaml':
      'id: ask\nlocale: en\nmodel: scripted:./turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
    'turns.yaml': ASK,
  });
  runtime = createRuntime({ store: 'memory', tools: tools.tools, logger: false });
  const flows = new FlowRegistry({ dir: flowsDir, knownTools: ['ticket_list'] });
  await flows.loadDir();
  server = createServer({ runtime, flows, tokens: null, logger: quietLogger });
  mountConsole(server.app, { dir: await tempDir({ 'index.html': '<!doctype html><title>console</title>' }) });
  ({ url, port } = await server.listen({ host: '127.0.0.1', port: 0 }));
});
afterAll(async () => {
  await server.close();
  await runtime.close();
});

/** A raw HTTP request (fetch cannot set Host), answered with status and body. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function suspendedRun(): Promise<string> {
  const started = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ flowId: 'ask', input: 'x' }),
  });
  const { runId } = (await started.json()) as { runId: string };
  await reached(runtime, runId, 'run.suspended');
  return runId;
}

describe('a server without tokens', () => {
  it('refuses a Host that is not a loopback name (DNS rebinding), the console included', async () => {
    for (const host of ['attacker.example', 'attacker.example:' + port, '0.0.0.0:' + port, '10.0.0.7']) {
      for (const path of ['/v1/runs', '/v1/me', '/', '/healthz']) {
        const answer = await raw('GET', path, { host });
        expect(answer.status, `${host} ${path}`).toBe(403);
        expect(answer.body).toContain('loopback');
      }
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, '127.3.4.5', 'LOCALHOST'])
      expect((await raw('GET', '/v1/me', { host })).status, host).toBe(200);
  });

  it('names loopback hosts only', () => {
    for (const host of ['localhost', 'localhost:1', '127.0.0.1', '127.255.255.254:8080', '[::1]', '[::1]:80'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '',
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
      '128.0.0.1',
      '[::2]',
      '::1',
      '127.0.0.256',
      '127.0.0.1:99999',
      '[::ffff:127.0.0.1]',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('refuses a cross-site POST: it cannot cancel a run', async () => {
    const runId = await suspendedRun();
    const cross = await raw(
      'POST',
      `/v1/runs/${runId}/cancel`,
      { host: `127.0.0.1:${port}`, origin: 'https://attacker.example', 'content-type': 'text/plain' },
      '',
    );
    expect(cross.status).toBe(403);
    expect(cross.body).toContain('another site');
    const fetchSite = await raw('POST', `/v1/runs/${runId}/cancel`, {
      host: `127.0.0.1:${port}`,
      'sec-fetch-site': 'cross-site',
    });
    expect(fetchSite.status).toBe(403);
    const nullOrigin = await raw('POST', `/v1/runs/${runId}/cancel`, {
      host: `127.0.0.1:${port}`,
      origin: 'null',
    });
    expect(nullOrigin.status).toBe(403);
    expect((await runtime.status(runId)).status).toBe('suspended');

    // The console of this server (same origin) and clients without browser headers still act.
    const own = await raw('POST', `/v1/runs/${runId}/cancel`, {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      'sec-fetch-site': 'same-origin',
    });
    expect(own.status, own.body).toBe(200);
    const other = await suspendedRun();
    const curl = await fetch(`${url}/v1/runs/${other}/cancel`, { method: 'POST' });
    expect(curl.status).toBe(200);
  });

  it('serve refuses a non-loopback --host without tokens (exit 2, a clear message)', async () => {
    const io = { out: () => undefined, stopped: () => Promise.resolve(), logger: quietLogger };
    await expect(runServe(['--host', '0.0.0.0', '--port', '0', '--db', 'memory'], io)).rejects.toThrow(
      UsageError,
    );
    await expect(runServe(['--host', '0.0.0.0', '--port', '0', '--db', 'memory'], io)).rejects.toThrow(
      /refusing --host 0\.0\.0\.0 without tokens/,
    );
  });
});
