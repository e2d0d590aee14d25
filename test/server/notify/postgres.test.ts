/**
 * Notifications and expiry through `serve` on PostgreSQL with a worker (docs/notifications.md): the
 * receiver gets a signed `run.suspended` (retried after a 500, delivered once); an approval left alone
 * expires once; with the serve that suspended a run killed, the worker fires the deadline and drives the
 * run on with the rejection.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.js';
import type { StoredEvent } from '../../../src/store/store.js';
import { ensureBuilt } from '../../acceptance/build.js';
import { spawnCli } from '../../cli/helpers/cli.js';
import { watch, type Proc } from '../../race/harness.js';
import { PG_URL, SchemaPool, pgAvailable } from '../../store/postgres-server.js';
import {
  serveDir,
  signedWell,
  spawnServe,
  startReceiver,
  startRefund,
  statusOf,
  TOOLS,
  until,
} from './harness.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const procs: Proc[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  ensureBuilt();
  receiver = await startReceiver(1);
}, 300_000);
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await receiver.close();
  if (available) await schemas.dropAll();
});

function ofType(events: StoredEvent[], type: string): StoredEvent[] {
  return events.filter((e) => e.type === type);
}

describe.runIf(available)('serve --webhooks on PostgreSQL with a worker', () => {
  it(
    'notifies, expires each approval once, and the worker fires a deadline of a killed serve',
    { timeout: 150_000 },
    async () => {
      const dir = await serveDir(receiver.url, '4s');
      const db = schemas.urlFor(schemas.next('notify'));
      const log = join(mkdtempSync(join(tmpdir(), 'notify-pg-')), 'refunds.log');
      const a = await spawnServe(dir, db, log);
      procs.push(a.proc);
      const env = { AGENT_RUNTIME_EXPIRY_POLL_MS: '200', AGENT_RUNTIME_LEASE_MS: '2000', REFUND_LOG: log };
      const worker = watch(spawnCli(['worker', '--db', db, '--tools', TOOLS], { cwd: dir, env }));
      procs.push(worker);
      await worker.line(/WORKER started/);

      const first = await startRefund(a.url);
      await statusOf(a.url, first, 'suspended');
      const delivered = await until('two attempts', () =>
        Promise.resolve(receiver.received.length >= 2 ? receiver.received.slice(0, 2) : undefined),
      );
      expect(delivered.map((r) => r.status)).toEqual([500, 200]);
      expect(delivered[1]!.headers['x-agent-runtime-event']).toBe(
        delivered[0]!.headers['x-agent-runtime-event'],
      );
      expect(delivered.every(signedWell)).toBe(true);
      expect(JSON.parse(delivered[1]!.body)).toMatchObject({
        type: 'run.suspended',
        run: { runId: first },
        pending: { tool: 'refund', args: { amount: 250 } },
      });

      // Two processes poll for deadlines: the approval expires once, and the run completes.
      await statusOf(a.url, first, 'completed');
      const store = await openStore(db);
      const events = await store.events(first);
      expect(ofType(events, 'approval.expired')).toHaveLength(1);
      expect(ofType(events, 'run.resumed')).toMatchObject([{ decision: 'rejected', who: 'expiry' }]);

      // The serve that suspended the second run dies: the worker fires its deadline and drives it on.
      const second = await startRefund(a.url);
      await statusOf(a.url, second, 'suspended');
      a.proc.child.kill('SIGKILL');
      await a.proc.exited;
      const killedAt = Date.now();
      const done = await until(
        'the second run completed by the worker',
        async () => ((await store.getRun(second))?.status === 'completed' ? true : undefined),
        60_000,
      );
      expect(done).toBe(true);
      const later = await store.events(second);
      const expired = ofType(later, 'approval.expired');
      expect(expired).toHaveLength(1);
      expect(Date.parse(expired[0]!.ts)).toBeGreaterThanOrEqual(killedAt);
      const messages = JSON.stringify((await store.messages(second, 'pay#1')).map((m) => m.message));
      expect(messages).toContain('the approval expired and was rejected automatically');
      expect(existsSync(log)).toBe(false);
      await store.close();
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    },
  );
});
