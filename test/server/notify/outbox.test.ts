/**
 * The durable webhook outbox (docs/notifications.md, "Retries and the delivery log"): a delivery left
 * pending by a `serve` that died is sent by the next one, and two processes sharing a store send each
 * event to each webhook once.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../acceptance/build.js';
import type { Proc } from '../../race/harness.js';
import { event, newRun } from '../../../src/testing/store-contract/index.js';
import { openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { WebhookDispatcher, type Delivery } from '../../../src/server/webhooks.js';
import { SchemaPool, pgAvailable } from '../../store/postgres-server.js';
import { quietLogger, tempDir } from '../helpers.js';
import {
  SECRET,
  call,
  serveDir,
  spawnServe,
  startReceiver,
  startRefund,
  statusOf,
  until,
} from './harness.js';

const procs: Proc[] = [];
const closers: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt(), 300_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

describe('the webhook outbox is durable', () => {
  it(
    'a delivery pending when its serve is killed is retried and delivered by the next serve',
    { timeout: 120_000 },
    async () => {
      const receiver = await startReceiver(1);
      closers.push(receiver.close);
      const dir = await serveDir(receiver.url, '1h');
      const db = `sqlite:${join(dir, 'serve.db')}`;
      const a = await spawnServe(dir, db, join(dir, 'refunds.log'));
      procs.push(a.proc);
      const runId = await startRefund(a.url);
      await statusOf(a.url, runId, 'suspended');
      // The first attempt gets a 500: the delivery waits 1 s for its retry. The serve dies meanwhile.
      const waiting = await until('the first attempt recorded', async () => {
        const log = (await (await call(a.url, 'GET', '/v1/webhooks/deliveries')).json()) as Delivery[];
        return log[0]?.attempts === 1 ? log[0] : undefined;
      });
      expect(waiting).toMatchObject({ status: 'pending', lastStatus: 500, lastError: 'HTTP 500' });
      a.proc.child.kill('SIGKILL');
      await new Promise((resolve) => a.proc.child.once('exit', resolve));
      expect(receiver.received).toHaveLength(1);

      const b = await spawnServe(dir, db, join(dir, 'refunds.log'));
      procs.push(b.proc);
      const retried = await until('the retry by the next serve', () => Promise.resolve(receiver.received[1]));
      expect(retried.status).toBe(200);
      const ids = receiver.received.map((r) => r.headers['x-agent-runtime-event']);
      expect(ids[1]).toBe(ids[0]);
      expect(JSON.parse(retried.body)).toMatchObject({ type: 'run.suspended', run: { runId } });
      const log = (await (await call(b.url, 'GET', '/v1/webhooks/deliveries')).json()) as Delivery[];
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({
        webhook: 'ops',
        eventId: ids[0],
        event: 'run.suspended',
        runId,
        status: 'delivered',
        attempts: 2,
        lastStatus: 200,
        nextAttemptAt: null,
      });
      b.proc.child.kill('SIGTERM');
    },
  );
});

const schemas = new SchemaPool();
const pg = await pgAvailable();
afterAll(() => (pg ? schemas.dropAll() : undefined));
const shared: [string, () => Promise<string>][] = [
  ['SQLite file', async () => `sqlite:${join(await tempDir({}), 'shared.db')}`],
  ...(pg
    ? [
        ['PostgreSQL schema', () => Promise.resolve(schemas.urlFor(schemas.next('ob')))] as [
          string,
          () => Promise<string>,
        ],
      ]
    : []),
];

describe.each(shared)('two processes on one %s', (_name, storeUrl) => {
  it('send each event to each webhook once, also the retry after a 500', async () => {
    const receiver = await startReceiver(1);
    closers.push(receiver.close);
    const url = await storeUrl();
    const stores: Store[] = [await openStore(url), await openStore(url)];
    closers.push(async () => {
      for (const s of stores) await s.close();
    });
    const hooks = [
      {
        name: 'ops',
        url: receiver.url,
        events: ['run.suspended' as const, 'run.completed' as const],
        secret: SECRET,
      },
    ];
    const dispatchers = stores.map(
      (store) =>
        new WebhookDispatcher({
          webhooks: hooks,
          store: () => Promise.resolve(store),
          consoleBase: () => null,
          logger: quietLogger,
          backoffMs: [100],
        }),
    );
    for (const d of dispatchers) await d.start();
    closers.push(() => {
      for (const d of dispatchers) d.stop();
      return Promise.resolve();
    });
    const [first] = stores as [Store];
    await first.createRun(newRun('r1'), [
      event('r1', 1, 'run.started'),
      { ...event('r1', 2, 'run.suspended'), kind: 'APPROVAL', pending: { id: 'pnd_1', tool: 'refund' } },
    ]);
    // Both processes see the event and work at the same time, again and again.
    const settled = await until('delivered', async () => {
      await Promise.all(dispatchers.map((d) => d.tick()));
      const log = await dispatchers[1]!.deliveries({});
      return log[0]?.status === 'delivered' ? log : undefined;
    });
    for (let i = 0; i < 5; i++) await Promise.all(dispatchers.map((d) => d.tick()));
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ eventId: 'evt_r1_2', attempts: 2, lastStatus: 200 });
    expect(receiver.received.map((r) => [r.headers['x-agent-runtime-event'], r.status])).toEqual([
      ['evt_r1_2', 500],
      ['evt_r1_2', 200],
    ]);
  });
});
