/**
 * A cancel that finds a write in flight whose driver died (kill -9): the cancel waits for the lease to
 * expire, takes the run over, settles the write with the usual look-back (`run.resumed` RECOVERY, the
 * look-back's `tool.invoked` with `lookBack: true`, the interrupted call's `tool.invoked`), then ends
 * the run `cancelled`.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { ensureBuilt, runCli, spawnCli } from '../cli/helpers/cli.js';
import { FLOW, checkTrial, inFlight, rootDir, until, world } from './harness.js';

const root = rootDir('kill');
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

/** Resolves once the race server has received a write (polled with a deadline). */
async function received(dir: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(join(dir, 'received.jsonl'))) {
    if (Date.now() > deadline) throw new Error(`the server received no write within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 3));
  }
}

describe('cancel of a run whose driver died with a write in flight', () => {
  it('looks back, records the write, and ends the run cancelled', async () => {
    const w = world(root, 200);
    const opts = { cwd: w.dir, env: { RACE_DATA: w.dir, AGENT_RUNTIME_LEASE_MS: '300' } };
    const started = await runCli(['run', FLOW, '--input', 'go', '--json', '--db', w.db], opts);
    expect(started.code, started.stderr).toBe(3);
    const { runId, suspension } = started.json as { runId: string; suspension: { pending: { id: string } } };
    const store = await openStore(w.db);
    try {
      const approving = spawnCli(['approve', runId, '--expect', suspension.pending.id, '--db', w.db], opts);
      const gone = new Promise((r) => approving.on('exit', r));
      await until(store, runId, inFlight);
      // Killed while the server holds the write: it executes, and only a look-back can record it.
      await received(w.dir);
      approving.kill('SIGKILL');
      await gone;
      const cancelled = await runCli(['cancel', runId, '--json', '--db', w.db], opts);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect((cancelled.json as { status: string }).status).toBe('cancelled');
      const result = await checkTrial(store, runId, w.dir, ['cancelled']);
      expect(result).toMatchObject({ executed: 1, recordedByLookBack: 1, recordedDirectly: 0 });
      const tail = (await store.events(runId)).slice(-4).map((e) => {
        const x = e as {
          type: string;
          kind?: string;
          tool?: string;
          lookBack?: boolean;
          executed?: boolean;
          outcome?: string;
        };
        return [x.type, x.kind ?? x.tool, x.lookBack, x.executed, x.outcome];
      });
      expect(tail).toEqual([
        ['run.resumed', 'RECOVERY', undefined, undefined, undefined],
        ['tool.invoked', 'site_find', true, true, 'SUCCESS'],
        ['tool.invoked', 'site_create', false, true, 'SUCCESS'],
        ['run.cancelled', undefined, undefined, undefined, undefined],
      ]);
    } finally {
      await store.close();
    }
  });
});
