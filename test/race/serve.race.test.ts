/**
 * The HTTP API's cancel, and SIGTERM of `serve`, racing an approved write (a real `serve` process per
 * trial, real HTTP, real SQLite file, real MCP server): a write the server executed is always
 * recorded (before `run.cancelled`), none runs twice, also after a takeover.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { ensureBuilt, runCli, spawnCli } from '../cli/helpers/cli.js';
import {
  SEED,
  api,
  between,
  checkTrial,
  flowsDir,
  inFlight,
  leaseExpired,
  random,
  resumed,
  rootDir,
  tally,
  trials,
  until,
  watch,
  world,
} from './harness.js';

const root = rootDir('serve');
const flows = flowsDir(root);
const totals = { cancel: {} as Record<string, number>, sigterm: {} as Record<string, number> };
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  console.log(`race API cancel: ${JSON.stringify(totals.cancel)}`);
  console.log(`race SIGTERM serve: ${JSON.stringify(totals.sigterm)}`);
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

async function trial(path: 'cancel' | 'sigterm', i: number): Promise<void> {
  const next = random(SEED * (path === 'cancel' ? 3000 : 4000) + i);
  const w = world(root, between(next, 0, 150));
  const stopAfterMs = between(next, 0, 80);
  const atMark = next() < 0.7;
  const env = { RACE_DATA: w.dir, AGENT_RUNTIME_LEASE_MS: '300' };
  const serve = watch(
    spawnCli(['serve', '--port', '0', '--flows', flows, '--db', w.db], { cwd: w.dir, env }),
  );
  const url = (await serve.line(/^http:\/\/127\.0\.0\.1:\d+/)).trim();
  const store = await openStore(w.db);
  try {
    const started = await api(url, 'POST', '/v1/runs', { flowId: 'race-sites', input: 'go' });
    expect(started.status, JSON.stringify(started.json)).toBeLessThan(300);
    const runId = started.json.runId as string;
    await until(store, runId, (r) => r.status === 'suspended');
    const pending = (await api(url, 'GET', `/v1/runs/${runId}`)).json.suspension as {
      pending: { id: string };
    };
    const wrong = await api(url, 'POST', `/v1/runs/${runId}/approval`, {
      decision: 'approve',
      expect: 'pnd_0000000000000000',
    });
    expect(wrong.status).toBe(409);
    const approved = await api(url, 'POST', `/v1/runs/${runId}/approval`, {
      decision: 'approve',
      expect: pending.pending.id,
    });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    await until(store, runId, atMark ? inFlight : resumed);
    await new Promise((r) => setTimeout(r, stopAfterMs));
    if (path === 'cancel') {
      const cancelled = await api(url, 'POST', `/v1/runs/${runId}/cancel`);
      expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
      expect(cancelled.json.status).toBe('cancelled');
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
      tally(totals.cancel, await checkTrial(store, runId, w.dir, ['cancelled']));
      return;
    }
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    tally(totals.sigterm, await checkTrial(store, runId, w.dir, ['running', 'suspended']));
    // Taken over afterwards (a run left running), it goes on without repeating the write.
    const left = await store.getRun(runId);
    if (left?.status === 'running') {
      await leaseExpired(store, runId);
      const resumedRun = await runCli(['resume', runId, '--json', '--db', w.db], { cwd: w.dir, env });
      expect(resumedRun.code, resumedRun.stderr).toBe(3);
    }
    await checkTrial(store, runId, w.dir, ['suspended']);
  } finally {
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
    await store.close();
  }
}

describe('API cancel and SIGTERM of serve while an approved write may be in flight', () => {
  const n = trials(3);
  const ids = Array.from({ length: n }, (_, i) => i);
  it.each(ids)('API cancel, trial %i', (i) => trial('cancel', i), 120_000);
  it.each(ids)('SIGTERM of serve, trial %i', (i) => trial('sigterm', i), 120_000);
});
