/**
 * `agent-runtime cancel` racing `approve` (each its own process, real SQLite file, real MCP server):
 * a write the server executed is always recorded before `run.cancelled`, none runs twice.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { ensureBuilt, runCli } from '../cli/helpers/cli.js';
import {
  SEED,
  FLOW,
  between,
  checkTrial,
  inFlight,
  random,
  resumed,
  rootDir,
  tally,
  trials,
  until,
  world,
} from './harness.js';

const root = rootDir('cli');
const totals: Record<string, number> = {};
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  console.log(`race CLI cancel: ${JSON.stringify(totals)}`);
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('CLI cancel while an approved write may be in flight', () => {
  const n = trials(4);
  it.each(Array.from({ length: n }, (_, i) => i))(
    'trial %i',
    async (i) => {
      const next = random(SEED * 2000 + i);
      // The cancel process needs a few hundred ms to start: the write's latency spans that.
      const w = world(root, between(next, 0, 900));
      const cancelAfterMs = between(next, 0, 80);
      const atMark = next() < 0.7;
      const opts = { cwd: w.dir, env: { RACE_DATA: w.dir } };
      const started = await runCli(['run', FLOW, '--input', 'go', '--json', '--db', w.db], opts);
      expect(started.code, started.stderr).toBe(3);
      const { runId, suspension } = started.json as {
        runId: string;
        suspension: { pending: { id: string } };
      };
      const store = await openStore(w.db);
      try {
        const approving = runCli(
          ['approve', runId, '--expect', suspension.pending.id, '--json', '--db', w.db],
          opts,
        );
        await until(store, runId, atMark ? inFlight : resumed);
        await new Promise((r) => setTimeout(r, cancelAfterMs));
        const cancelled = await runCli(['cancel', runId, '--json', '--db', w.db], opts);
        const approved = await approving;
        expect(cancelled.code, cancelled.stderr).toBe(0);
        expect([1, 3, 4], approved.stderr).toContain(approved.code);
        const r = await checkTrial(store, runId, w.dir, ['cancelled']);
        if (process.env.RACE_DEBUG)
          console.log(JSON.stringify({ i, atMark, cancelAfterMs, approve: approved.code, ...r }));
        tally(totals, r);
      } finally {
        await store.close();
      }
    },
    120_000,
  );
});
