/**
 * Done-when of `kill -9` of a worker mid-run → its runs finish on the other workers once
 * their leases expire, resumed from the last persisted step (`run.resumed` RECOVERY), each write once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  approveUntilDone,
  demoWrites,
  driveLines,
  openApprover,
  scaleFlow,
  siteName,
  spawnWorker,
  startDemoServer,
  startRuns,
  stopChild,
  type Child,
  type DriveLine,
} from '../../bench/scale-harness.js';
import type { Store, StoredEvent } from '../../src/store/store.js';
import { ensureBuilt } from '../acceptance/build.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';
import { expectPartitioned } from './checks.js';

const LEASE_MS = 1500;
const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const dir = mkdtempSync(join(tmpdir(), 'takeover-'));
const children: Child[] = [];
afterAll(async () => {
  await Promise.all(children.map(stopChild));
  if (available) await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Runs whose driver has asked for `tool` and not yet recorded its result (it is executing it). */
async function executing(store: Store, runIds: readonly string[], tool: string): Promise<string[]> {
  const busy: string[] = [];
  for (const runId of runIds) {
    const events = await store.events(runId);
    const asked = events.some(
      (e) => e.type === 'model.response' && JSON.stringify(e.toolCalls).includes(tool),
    );
    const done = events.some((e) => e.type === 'tool.invoked' && e.tool === tool);
    if (asked && !done) busy.push(runId);
  }
  return busy;
}

describe.runIf(available)('a worker killed mid-run', () => {
  it(
    'leaves its runs to the others, who take them over once the leases expire',
    { timeout: 120_000 },
    async () => {
      ensureBuilt();
      const db = schemas.urlFor(schemas.next('kill'));
      const demo = await startDemoServer(join(dir, 'demo'));
      children.push(demo.child);
      const flow = await scaleFlow(demo.url);
      const approver = await openApprover(db);
      const store = await approver.runtime.db();

      const victim = spawnWorker({ db, concurrency: 4, leaseMs: LEASE_MS, label: 'victim' });
      children.push(victim);
      await victim.waitFor(/WORKER started/);
      const ids = [...(await startRuns(approver, flow, dir, { from: 0, to: 6, slowMs: 2500 })).values()];

      // Kill the victim while four of its runs wait for their slow read.
      let held: string[] = [];
      for (let i = 0; i < 200 && held.length < 4; i++) {
        held = await executing(store, ids, 'slow_query');
        if (held.length < 4) await new Promise((r) => setTimeout(r, 50));
      }
      expect(held).toHaveLength(4);
      victim.process.kill('SIGKILL');
      expect(await victim.exited).toBeNull();
      const killedAt = Date.now();
      const leases = new Map(
        await Promise.all(held.map(async (id) => [id, (await store.getRun(id))!] as const)),
      );
      for (const run of leases.values())
        expect(run).toMatchObject({ status: 'running', leaseOwner: expect.stringMatching(/^rt_/) });

      const others = ['w2', 'w3'].map((label) =>
        spawnWorker({ db, concurrency: 4, leaseMs: LEASE_MS, label }),
      );
      children.push(...others);
      const statuses = await approveUntilDone(approver, ids, 90_000);
      expect([...statuses.values()]).toEqual(ids.map(() => 'completed'));

      expect(await Promise.all(others.map(stopChild))).toEqual([0, 0]);
      const victimBlocks: DriveLine[] = [];
      for (const runId of held) {
        const events = await store.events(runId);
        const recovered = events.filter((e) => e.type === 'run.resumed' && e.kind === 'RECOVERY');
        expect(recovered).toHaveLength(1);
        const takeover = recovered[0] as StoredEvent;
        // Taken over only once the dead worker's lease had expired.
        expect(Date.parse(takeover.ts)).toBeGreaterThanOrEqual(leases.get(runId)!.leaseExpiresAt!);
        expect(Date.parse(takeover.ts)).toBeGreaterThanOrEqual(killedAt);
        // What the victim committed before dying: from the approver's start commit to the takeover.
        const first = Math.max(...(approver.committed.get(runId) ?? []).filter((s) => s < takeover.seq)) + 1;
        victimBlocks.push({ runId, status: 'killed', first, last: takeover.seq - 1, worker: 'victim' });
        // The interrupted read ran again; nothing else was repeated.
        expect(events.filter((e) => e.type === 'tool.invoked' && e.tool === 'slow_query')).toHaveLength(1);
      }
      for (const runId of ids.filter((id) => !held.includes(id))) {
        expect(
          (await store.events(runId)).some((e) => e.type === 'run.resumed' && e.kind === 'RECOVERY'),
        ).toBe(false);
      }
      const drives = [...others.flatMap((w, i) => driveLines(w, `w${i + 2}`)), ...victimBlocks];
      await expectPartitioned(store, ids, drives, approver.committed);

      const writes = demoWrites(join(dir, 'demo')).filter((w) => w.tool === 'web_site_create');
      expect(writes.map((w) => w.args.name).sort()).toEqual(ids.map((_, n) => siteName(n)));
      expect(new Set(writes.map((w) => w.idempotencyKey)).size).toBe(ids.length);

      await approver.close();
    },
  );
});
