/**
 * `close()` of an in-process runtime racing an approved write (docs/durability.md): the write in
 * flight is waited for and recorded, nothing new starts, and a later takeover never repeats it.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime } from '../../src/runtime/create.js';
import {
  SEED,
  FLOW,
  between,
  leaseExpired,
  checkTrial,
  inFlight,
  random,
  rootDir,
  tally,
  trials,
  until,
  world,
} from './harness.js';

const root = rootDir('close');
const totals: Record<string, number> = {};
afterAll(() => {
  console.log(`race close(): ${JSON.stringify(totals)}`);
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('close() while an approved write may be in flight', () => {
  const n = trials(4);
  it.each(Array.from({ length: n }, (_, i) => i))(
    'trial %i',
    async (i) => {
      const next = random(SEED * 1000 + i);
      const w = world(root, between(next, 0, 150));
      const stopMs = between(next, 0, 80);
      const atMark = next() < 0.7;
      process.env.RACE_DATA = w.dir;
      const flow = await loadFlow(FLOW);
      const one = createRuntime({ store: w.db, logger: false, leaseMs: 200 });
      const first = await one.start(flow, { input: { text: 'go' } });
      const approving = one.approve(first.runId, { expect: first.suspension?.pending.id as string });
      if (atMark) await until(await one.db(), first.runId, inFlight);
      await new Promise((r) => setTimeout(r, stopMs));
      await one.close();
      const stopped = await approving;
      expect(['running', 'suspended']).toContain(stopped.status);

      // The record is complete as `close()` left it; a takeover then goes on without repeating the write.
      const two = createRuntime({ store: w.db, logger: false, leaseMs: 200 });
      try {
        const store = await two.db();
        tally(totals, await checkTrial(store, first.runId, w.dir, ['running', 'suspended']));
        let summary = await two.status(first.runId);
        if (summary.status === 'running') {
          await leaseExpired(store, first.runId);
          summary = await two.resume(first.runId);
        }
        if (
          summary.suspension?.pending.id &&
          (summary.suspension.pending as { args?: { name?: string } }).args?.name === 'b'
        ) {
          summary = await two.approve(first.runId, { expect: summary.suspension.pending.id });
        }
        expect(summary.status).toBe('completed');
        await checkTrial(store, first.runId, w.dir, ['completed']);
      } finally {
        await two.close();
      }
    },
    120_000,
  );
});
