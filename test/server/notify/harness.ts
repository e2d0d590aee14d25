import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { spawnCli } from '../../cli/helpers/cli.js';
import { watch, type Proc } from '../../race/harness.js';
import { REPO_ROOT } from '../../acceptance/build.js';
import { TOKENS, TOKEN_LIST, tempDir } from '../helpers.js';

export const SECRET = 'whsec-0123456789abcdef';
export const TOOLS = join(REPO_ROOT, 'test/fixtures/interceptors/tools.mjs');

/** A refund flow whose approvals expire after `after` (rejected, the default `onExpiry`). */
export function refundFlow(after: string): string {
  return `id: refunds
locale: en
model: scripted:./turns.yaml
tools:
  refund:
    write: true
    approval: { expiresAfter: ${after} }
nodes:
  - id: pay
    instructions: Refund the customer.
    tools: [customer_get, refund]
`;
}

/** The model asks for the refund, for its approval, then finishes (after the rejection). */
export const REFUND_TURNS = `turns:
  - { calls: [{ tool: refund, args: { amount: 250 } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: refund, summary: refund 250 to the card } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: not refunded } }] }
`;

/** A request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A webhook receiver on loopback: answers 500 to the first `failFirst` requests, then 200. */
export async function startReceiver(failFirst = 1): Promise<{
  url: string;
  received: Received[];
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = received.length < failFirst ? 500 : 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether the request's signature header is the HMAC-SHA256 of its body with SECRET. */
export function signedWell(r: Received): boolean {
  const expected = `sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`;
  return r.headers['x-agent-runtime-signature'] === expected;
}

/** The folder of a serve: flows, turns, tokens and the webhooks file naming `receiverUrl`. */
export async function serveDir(receiverUrl: string, after: string): Promise<string> {
  const hooks = [
    {
      name: 'ops',
      url: receiverUrl,
      events: ['run.suspended', 'approval.expired', 'run.completed'],
      secret: SECRET,
    },
  ];
  return tempDir({
    'flows/refunds.yaml': refundFlow(after),
    'flows/turns.yaml': REFUND_TURNS,
    'tokens.json': JSON.stringify(TOKEN_LIST),
    'webhooks.json': JSON.stringify(hooks),
  });
}

/** A `serve` process of `dir` on `db`, with webhooks, quick expiry passes and quick store scans. */
export async function spawnServe(dir: string, db: string, log: string): Promise<{ url: string; proc: Proc }> {
  const args = ['serve', '--port', '0', '--db', db, '--flows', join(dir, 'flows'), '--tokens'];
  args.push(join(dir, 'tokens.json'), '--tools', TOOLS, '--webhooks', join(dir, 'webhooks.json'));
  args.push('--allow-webhook-host', '127.0.0.1');
  const env = {
    AGENT_RUNTIME_EXPIRY_POLL_MS: '200',
    AGENT_RUNTIME_WEBHOOK_POLL_MS: '100',
    AGENT_RUNTIME_LEASE_MS: '2000',
    REFUND_LOG: log,
  };
  const proc = watch(spawnCli(args, { cwd: dir, env }));
  const url = (await proc.line(/^http:\/\/127\.0\.0\.1:\d+/)).trim();
  return { url, proc };
}

/** A request to a serve with the operator token. */
export function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  token: string = TOKENS.operator,
) {
  return fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** Polls `probe` until it gives a value (not undefined) or `ms` passed (then throws with `what`). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a refunds run through the API; its id. */
export async function startRefund(url: string): Promise<string> {
  const res = await call(url, 'POST', '/v1/runs', { flowId: 'refunds', input: { text: 'refund me' } });
  if (res.status !== 201) throw new Error(`start: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { runId: string }).runId;
}

/** The run's status once it is `status` (polled through the API). */
export function statusOf(
  url: string,
  runId: string,
  status: string,
  ms?: number,
): Promise<Record<string, unknown>> {
  return until(
    `run ${runId} ${status}`,
    async () => {
      const body = (await (await call(url, 'GET', `/v1/runs/${runId}`)).json()) as Record<string, unknown>;
      return body.status === status ? body : undefined;
    },
    ms,
  );
}
