/**
 * Notifications and expiry through `serve` on SQLite (docs/notifications.md): a loopback receiver gets a
 * signed `run.suspended` (retried after a 500, delivered once by its event id); an approval left alone
 * expires after its `expiresAfter` and the run continues with the rejection — also when the serve that
 * suspended it was killed and another serve fires the deadline.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.js';
import type { Store, StoredEvent } from '../../../src/store/store.js';
import { ensureBuilt } from '../../acceptance/build.js';
import type { Proc } from '../../race/harness.js';
import { TOKENS } from '../helpers.js';
import {
  call,
  serveDir,
  signedWell,
  spawnServe,
  startReceiver,
  startRefund,
  statusOf,
  until,
} from './harness.js';

const procs: Proc[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  ensureBuilt();
  receiver = await startReceiver(1);
}, 300_000);
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await receiver.close();
});

/** The expiry rejection as the model read it: the tool result of builtin_node_approval after expiry. */
async function modelSaw(store: Store, runId: string): Promise<string> {
  const messages = await store.messages(runId, 'pay#1');
  return JSON.stringify(messages.map((m) => m.message));
}

function ofType(events: StoredEvent[], type: string): StoredEvent[] {
  return events.filter((e) => e.type === type);
}

describe('serve --webhooks on SQLite, with approval expiry', () => {
  it(
    'notifies signed, retries a 500 once, expires the approval, and survives the death of its serve',
    { timeout: 120_000 },
    async () => {
      const dir = await serveDir(receiver.url, '4s');
      const db = `sqlite:${join(dir, 'serve.db')}`;
      const log = join(dir, 'refunds.log');
      const a = await spawnServe(dir, db, log);
      procs.push(a.proc);

      // 1. A run suspends: its notification fails once (500), then is delivered, same event id.
      const first = await startRefund(a.url);
      const suspended = await statusOf(a.url, first, 'suspended');
      const pendingId = (suspended.suspension as { pending: { id: string; expiresAt: string } }).pending.id;
      const delivered = await until('two attempts', () =>
        Promise.resolve(receiver.received.length >= 2 ? receiver.received.slice(0, 2) : undefined),
      );
      expect(delivered.map((r) => r.status)).toEqual([500, 200]);
      const ids = delivered.map((r) => r.headers['x-agent-runtime-event']);
      expect(ids[0]).toMatch(/^evt_/);
      expect(ids[1]).toBe(ids[0]);
      expect(delivered.every(signedWell)).toBe(true);
      const body = JSON.parse(delivered[1]!.body) as Record<string, unknown>;
      expect(body).toMatchObject({
        id: ids[0],
        type: 'run.suspended',
        run: { runId: first, tenant: null, flowId: 'refunds', status: 'suspended' },
        kind: 'APPROVAL',
        pending: { id: pendingId, tool: 'refund', args: { amount: 250 }, summary: 'refund 250 to the card' },
        consoleUrl: `${a.url}/runs/${first}`,
      });
      expect((body.pending as { expiresAt?: string }).expiresAt).toMatch(/^\d{4}-/);

      // The delivery log: operators see it, viewers do not.
      const log1 = (await (await call(a.url, 'GET', '/v1/webhooks/deliveries')).json()) as Record<
        string,
        unknown
      >[];
      expect(log1.find((d) => d.eventId === ids[0])).toMatchObject({
        webhook: 'ops',
        event: 'run.suspended',
        status: 'delivered',
        attempts: 2,
        lastStatus: 200,
      });
      expect((await call(a.url, 'GET', '/v1/webhooks/deliveries', undefined, TOKENS.viewer)).status).toBe(
        403,
      );

      // 2. Nobody decides: the approval expires, the model reads the rejection, the run completes.
      await statusOf(a.url, first, 'completed');
      const store = await openStore(db);
      const events = await store.events(first);
      const expired = ofType(events, 'approval.expired');
      expect(expired).toHaveLength(1);
      expect(expired[0]).toMatchObject({ nodeId: 'pay', pendingId, tool: 'refund' });
      expect(Date.parse(expired[0]!.ts)).toBeGreaterThanOrEqual(
        Date.parse(body.pending ? (body.pending as { expiresAt: string }).expiresAt : ''),
      );
      expect(ofType(events, 'run.resumed')[0]).toMatchObject({ decision: 'rejected', who: 'expiry' });
      const saw = await modelSaw(store, first);
      expect(saw).toContain('APPROVAL_DENIED');
      expect(saw).toContain('the approval expired and was rejected automatically');
      expect(existsSync(log)).toBe(false); // the refund never ran
      const expiredHook = await until('approval.expired delivered', () =>
        Promise.resolve(
          receiver.received.find((r) => r.status === 200 && r.body.includes('"approval.expired"')),
        ),
      );
      expect(JSON.parse(expiredHook.body)).toMatchObject({
        type: 'approval.expired',
        run: { runId: first },
        pending: { id: pendingId, tool: 'refund' },
      });
      // Each event id reached the receiver successfully once.
      const okIds = receiver.received
        .filter((r) => r.status === 200)
        .map((r) => r.headers['x-agent-runtime-event']);
      expect(new Set(okIds).size).toBe(okIds.length);

      // 3. A second run suspends; its serve is killed before the deadline; another serve fires it.
      const second = await startRefund(a.url);
      await statusOf(a.url, second, 'suspended');
      a.proc.child.kill('SIGKILL');
      await a.proc.exited;
      const killedAt = Date.now();
      const b = await spawnServe(dir, db, log);
      procs.push(b.proc);
      await statusOf(b.url, second, 'completed');
      const later = await store.events(second);
      const expiredLater = ofType(later, 'approval.expired');
      expect(expiredLater).toHaveLength(1);
      expect(Date.parse(expiredLater[0]!.ts)).toBeGreaterThanOrEqual(killedAt);
      expect(ofType(later, 'run.resumed')).toHaveLength(1);
      expect(await modelSaw(store, second)).toContain('APPROVAL_DENIED');
      expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
      await store.close();
      b.proc.child.kill('SIGTERM');
      expect(await b.proc.exited).toBe(0);
    },
  );
});
