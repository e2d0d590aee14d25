/**
 * Steering through `serve` (docs/approvals.md, "Steering") on SQLite and PostgreSQL with a worker: a
 * message sent while the model is called is in the next request to a strict provider stand-in and in
 * the trace; on PostgreSQL, with the serve killed while it waits for the model, the worker takes the
 * run over and sends the message, once. Tenants, roles and the refusals answer as documented.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import type { StoredEvent } from '../../src/store/store.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import { ensureBuilt } from '../acceptance/build.js';
import { spawnCli } from '../cli/helpers/cli.js';
import { providerSetup } from '../providers/play.js';
import { watch, type Proc } from '../race/harness.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';
import { TOKENS, TOKEN_LIST, tempDir } from './helpers.js';
import { TOOLS, call, statusOf, until } from './notify/harness.js';

const NOTE = 'use the other customer: c-77';

/**
 * A proxy in front of the strict fake that holds a request while `hold` is set (until `release`), so a
 * message can be sent while the model is called.
 */
class HeldProxy {
  url = '';
  hold = false;
  held: Promise<void> = new Promise(() => undefined);
  #arrive: () => void = () => undefined;
  #open: () => void = () => undefined;
  #server: Server | null = null;

  constructor(private readonly fake: StrictFake) {}

  /** The next request is held: `held` resolves when it arrives. */
  holdNext(): void {
    this.hold = true;
    this.held = new Promise((resolve) => (this.#arrive = resolve));
  }

  release(): void {
    this.#open();
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          if (this.hold) {
            this.hold = false;
            const gate = new Promise<void>((resolve) => (this.#open = resolve));
            this.#arrive();
            await gate;
          }
          const headers = Object.fromEntries(
            Object.entries(req.headers).filter(
              ([k]) => !['host', 'content-length', 'connection'].includes(k),
            ),
          ) as Record<string, string>;
          const answer = await fetch(`${this.fake.url}${(req.url ?? '').replace(/^\/v1/, '')}`, {
            method: 'POST',
            headers,
            body: Buffer.concat(chunks),
          });
          res.writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
          });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })().catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    this.#open();
    this.#server?.closeAllConnections();
    return new Promise((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}

/** The model reads a customer, then finishes once a tool result is in the conversation. */
function play(index: number, body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as { role: string }[];
  return messages.some((m) => m.role === 'tool')
    ? { calls: [{ id: `c${index}`, name: 'builtin_node_finish', args: '{"summary":"done"}' }] }
    : { calls: [{ id: `c${index}`, name: 'customer_get', args: '{"id":"c-1"}' }] };
}

/** The user messages of a request the fake received that carry NOTE. */
function notes(body: Record<string, unknown>): number {
  const messages = (body.messages ?? []) as { role: string; content?: unknown }[];
  return messages.filter((m) => m.role === 'user' && JSON.stringify(m.content).includes(NOTE)).length;
}

const FLOW = `id: support
locale: en
model: openai:gpt-test
nodes:
  - id: main
    instructions: Help the customer.
    tools: [customer_get]
`;

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const procs: Proc[] = [];
let fake: StrictFake;
let proxy: HeldProxy;
let env: Record<string, string>;
beforeAll(async () => {
  ensureBuilt();
  fake = await startStrictFake('openai', play, 'sk-openai-test');
  proxy = new HeldProxy(fake);
  await proxy.start();
  env = { ...providerSetup('openai', proxy.url, fake.key, false).env, AGENT_RUNTIME_LEASE_MS: '2000' };
}, 300_000);
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await proxy.close();
  await fake.close();
  if (available) await schemas.dropAll();
});

async function serve(db: string): Promise<{ url: string; proc: Proc }> {
  const dir = await tempDir({ 'flows/support.yaml': FLOW, 'tokens.json': JSON.stringify(TOKEN_LIST) });
  const args = ['serve', '--port', '0', '--db', db, '--flows', join(dir, 'flows')];
  args.push('--tokens', join(dir, 'tokens.json'), '--tools', TOOLS);
  const proc = watch(spawnCli(args, { cwd: dir, env }));
  procs.push(proc);
  return { url: (await proc.line(/^http:\/\/127\.0\.0\.1:\d+/)).trim(), proc };
}

/** Starts a run whose first model call is held; its id once the call is waiting. */
async function startHeld(url: string, token: string = TOKENS.operator): Promise<string> {
  proxy.holdNext();
  const res = await call(url, 'POST', '/v1/runs', { flowId: 'support', input: { text: 'help' } }, token);
  expect(res.status).toBe(201);
  await proxy.held;
  return ((await res.json()) as { runId: string }).runId;
}

async function say(url: string, runId: string, text: string, token: string = TOKENS.operator) {
  const res = await call(url, 'POST', `/v1/runs/${runId}/messages`, { text }, token);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function ofType(events: StoredEvent[], type: string): StoredEvent[] {
  return events.filter((e) => e.type === type);
}

/** Sends NOTE while the model is called; the next request carries it, once, and the trace shows it. */
async function steerWhileCalled(url: string, db: string): Promise<void> {
  const runId = await startHeld(url);
  const before = fake.requests.length;
  const sent = await say(url, runId, NOTE);
  expect(sent).toMatchObject({ status: 201, body: { runId, seq: 1, text: NOTE, who: 'olivia' } });
  proxy.release();
  await statusOf(url, runId, 'completed');
  const requests = fake.requests.slice(before).filter((r) => r.refused === null);
  expect(requests.map((r) => notes(r.body))).toEqual([0, 1]);
  const store = await openStore(db);
  try {
    const events = await store.events(runId);
    expect(ofType(events, 'run.message')).toMatchObject([
      { round: 2, messageId: sent.body.messageId, messageSeq: 1, text: NOTE, who: 'olivia' },
    ]);
  } finally {
    await store.close();
  }
  // Ended: refused with its own code, nothing kept.
  expect(await say(url, runId, 'too late')).toMatchObject({
    status: 409,
    body: { error: { code: 'RUN_ENDED' } },
  });
}

describe('steering through serve', () => {
  it(
    'SQLite: in the next request and the trace; roles, tenants and limits answer as documented',
    { timeout: 120_000 },
    async () => {
      const db = `sqlite:${join(await tempDir(), 'runs.db')}`;
      const { url } = await serve(db);
      await steerWhileCalled(url, db);

      const runId = await startHeld(url, TOKENS.tenantA);
      expect(await say(url, runId, NOTE, TOKENS.viewerA)).toMatchObject({
        status: 403,
        body: { error: { code: 'FORBIDDEN' } },
      });
      expect(await say(url, runId, NOTE, TOKENS.tenantB)).toMatchObject({
        status: 404,
        body: { error: { code: 'RUN_NOT_FOUND' } },
      });
      expect(await say(url, runId, '', TOKENS.tenantA)).toMatchObject({
        status: 400,
        body: { error: { code: 'BAD_REQUEST' } },
      });
      expect(await say(url, runId, 'x'.repeat(4001), TOKENS.tenantA)).toMatchObject({
        status: 413,
        body: { error: { code: 'MESSAGE_TOO_LONG' } },
      });
      for (let n = 1; n <= 20; n += 1)
        expect((await say(url, runId, `note ${n}`, TOKENS.tenantA)).status).toBe(201);
      expect(await say(url, runId, 'one more', TOKENS.tenantA)).toMatchObject({
        status: 429,
        body: { error: { code: 'TOO_MANY_MESSAGES' } },
      });
      proxy.release();
      await until('the tenant run completed', async () => {
        const res = await call(url, 'GET', `/v1/runs/${runId}`, undefined, TOKENS.tenantA);
        return ((await res.json()) as { status: string }).status === 'completed' ? true : undefined;
      });
    },
  );

  it.runIf(available)(
    'PostgreSQL with a worker: in the next request and the trace; with the serve killed mid-call, the worker sends it once',
    { timeout: 150_000 },
    async () => {
      const db = schemas.urlFor(schemas.next('steer'));
      const a = await serve(db);
      const worker = watch(spawnCli(['worker', '--db', db, '--tools', TOOLS], { cwd: await tempDir(), env }));
      procs.push(worker);
      await worker.line(/WORKER started/);
      await steerWhileCalled(a.url, db);

      // Accepted, then the serve dies before any round reads it: the worker's request carries it.
      const runId = await startHeld(a.url);
      const before = fake.requests.length;
      expect((await say(a.url, runId, NOTE)).status).toBe(201);
      a.proc.child.kill('SIGKILL');
      await a.proc.exited;
      proxy.release();
      const store = await openStore(db);
      try {
        await until(
          'the worker completed the run',
          async () => ((await store.getRun(runId))?.status === 'completed' ? true : undefined),
          60_000,
        );
        const events = await store.events(runId);
        expect(ofType(events, 'run.message')).toMatchObject([{ text: NOTE, messageSeq: 1 }]);
        expect(ofType(events, 'run.resumed')).toMatchObject([{ kind: 'RECOVERY' }]);
        const after = fake.requests.slice(before).filter((r) => r.refused === null);
        expect(after.map((r) => notes(r.body)).filter((n) => n > 0)).toEqual([1, 1]);
      } finally {
        await store.close();
      }
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    },
  );
});
