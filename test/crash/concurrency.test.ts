/**
 * Crash-injection suite: people's responses under concurrency (issue 6). Approvals and
 * answers are accepted only while the run waits for exactly that kind of input, checked against the
 * store (lease + compare-and-set on the run's version), not in one process's memory: two CLI
 * processes approving at once continue the run once, and a response of the wrong kind exits 4 with
 * nothing changed. The steps share one run and run in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../acceptance/build.js';
import { checkRun } from './helpers/checks.js';
import { driveToEnd } from './helpers/drive.js';
import { CRASH_FLOW, INPUT, MODEL_QUESTION, VERSION_ANSWER, World } from './helpers/world.js';

/** A lease longer than any stall of a loaded machine: here two live drivers race, none is dead. */
const LIVE = { AGENT_RUNTIME_LEASE_MS: '10000' };

describe('crash: concurrent and mistaken responses', () => {
  let world: World;
  let runId: string;

  beforeAll(async () => {
    ensureBuilt();
    world = World.fresh('crash-concurrency-');
    const started = await world.cli(['run', CRASH_FLOW, '--input', INPUT], LIVE);
    expect(started.code).toBe(3);
    runId = world.runId()!;
  }, 300_000);

  afterAll(() => world?.dispose());

  /** The run's stored row, events, messages and evidence, including its version. */
  const snapshot = () => JSON.stringify([world.row(runId).version, world.content(runId)]);
  const ofType = (type: string, kind: string) =>
    world.events(runId).filter((e) => e.type === type && e.kind === kind);

  it('an answer to a run that waits for an approval, and a resume of a suspended run, exit 4 with nothing changed', async () => {
    expect(world.row(runId).suspension?.kind).toBe('APPROVAL');
    const before = snapshot();
    const answered = await world.cli(['answer', runId, VERSION_ANSWER], LIVE);
    expect(answered.code).toBe(4);
    expect(answered.stderr).toContain('nothing changed');
    const resumed = await world.cli(['resume', runId], LIVE);
    expect(resumed.code).toBe(4);
    expect(snapshot()).toBe(before);
    expect(world.writes()).toEqual([]);
  }, 60_000);

  it('two approve commands at once: the run continues once, the other exits 4, the write runs once', async () => {
    const results = await Promise.all([
      world.cli(['approve', runId], LIVE),
      world.cli(['approve', runId], LIVE),
    ]);
    expect(results.map((r) => r.code).sort()).toEqual([3, 4]);
    expect(ofType('run.resumed', 'APPROVAL')).toHaveLength(1);
    expect(world.writes().map((w) => w.tool)).toEqual(['web_site_create']);
    const row = world.row(runId);
    expect(row.suspension).toMatchObject({ kind: 'FOLLOW_UP', pending: { question: MODEL_QUESTION } });
  }, 60_000);

  it('an approve on a run that waits for an answer exits 4 with nothing changed; two answers at once continue it once', async () => {
    const before = snapshot();
    const approved = await world.cli(['approve', runId], LIVE);
    expect(approved.code).toBe(4);
    expect(snapshot()).toBe(before);
    const results = await Promise.all([
      world.cli(['answer', runId, VERSION_ANSWER], LIVE),
      world.cli(['answer', runId, VERSION_ANSWER], LIVE),
    ]);
    expect(results.map((r) => r.code).sort()).toEqual([3, 4]);
    expect(ofType('run.resumed', 'FOLLOW_UP')).toHaveLength(1);
    expect(world.row(runId).suspension).toMatchObject({
      kind: 'APPROVAL',
      pending: { tool: 'web_site_publish' },
    });
  }, 60_000);

  it('the run then completes with every write executed once', async () => {
    await driveToEnd(world, runId, { env: LIVE });
    checkRun(world, runId);
  }, 120_000);
});
