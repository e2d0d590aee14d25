/**
 * Crash-injection suite, part 1 (issue 6): resume from a copy of the store after EVERY
 * committed step of a run with three approved writes and a follow-up answer.
 *
 * How every committed step is captured, without any hook in the runtime: the run is driven once by
 * the real CLI (`run`, then `approve`/`answer` in fresh processes) while this test holds a SQLite read
 * transaction opened before the run began (WalRecorder, helpers/wal.ts). In WAL mode every commit of
 * every process is appended to the `-wal` file and, while that reader is open, no checkpoint can copy
 * anything back into the main file; so afterwards the main file plus the WAL cut after commit k is the
 * database exactly as it was after commit k (it is how SQLite itself recovers after a crash). That is
 * each committed step, not a sample of them as a polling copier would take.
 * The demo server's data at commit k is rebuilt by replaying the first j writes of the run's write log
 * through the server's own tool code (same calls, same keys, same state), j being the writes whose
 * results are in the store at commit k. A commit that marks a write in flight gives two crash states,
 * since the server executes the write after that commit and before the next: not executed yet, and
 * executed with its reply lost.
 * Each state is resumed in fresh CLI processes (`resume` once the 300 ms lease has expired, `approve` /
 * `answer` for a suspended copy) until the run completes, and checked (helpers/checks.ts): completed,
 * each write executed exactly once in that copy's write log (publish: one effect, the server dedupes
 * the re-send; notify_send, which has neither `idempotent` nor `recover`, not at all when its state is
 * "in flight, not executed": the person is told its result is unknown), every approval and the answer
 * honoured, the trace gap-free. Then each recovery branch of the HTTP API is checked in detail on its state.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../acceptance/build.js';
import { checkRun } from './helpers/checks.js';
import { driveToEnd } from './helpers/drive.js';
import {
  cleanRun,
  crashStates,
  resumeFrom,
  worldAt,
  type CleanRun,
  type CrashState,
  type Resumed,
} from './helpers/steps.js';
import { replayWrites, WalRecorder } from './helpers/wal.js';
import { pool, RECOVERY_ANSWER, World, type TraceEvent } from './helpers/world.js';

const CONCURRENCY = 3;

describe('crash: resume from a copy of the store after every committed step', () => {
  let base: World;
  let clean: CleanRun;
  let states: CrashState[];
  const worlds: World[] = [];
  const resumed = new Map<string, Promise<Resumed>>();

  /** Resumes from a state once (memoised: the sweep and the branch checks share the result). */
  function resume(state: CrashState): Promise<Resumed> {
    let result = resumed.get(state.label);
    if (!result) {
      result = resumeFrom(clean, state).then((r) => {
        worlds.push(r.world);
        return r;
      });
      resumed.set(state.label, result);
    }
    return result;
  }

  function inFlight(tool: string, executed: boolean): CrashState {
    const state = states.find((s) => s.inFlight?.tool === tool && s.executed === executed);
    if (!state) throw new Error(`no commit with ${tool} in flight`);
    return state;
  }

  beforeAll(async () => {
    ensureBuilt();
    base = World.fresh('crash-steps-');
    const recorder = await WalRecorder.open(base.db);
    let runId = '';
    try {
      runId = await cleanRun(base);
    } finally {
      clean = { runId, capture: recorder.capture(), writes: base.writes() };
    }
    states = crashStates(clean);
  }, 300_000);

  afterAll(() => {
    base?.dispose();
    for (const w of worlds) w.dispose();
  });

  it('the recording holds every commit of the clean run, and replaying its write log rebuilds the server data', async () => {
    checkRun(base, clean.runId);
    const finalRow = base.row(clean.runId);
    expect(clean.capture.commits.length).toBe(finalRow.version);
    console.log(
      `crash/steps: ${clean.capture.commits.length} commits, ${new Set(states.map((s) => s.k)).size} distinct steps, ${states.length} crash states`,
    );
    const last = states.at(-1)!;
    expect(last).toMatchObject({ status: 'completed', seq: finalRow.lastSeq, lastEvent: 'run.completed' });
    expect(states.filter((s) => s.inFlight).map((s) => `${s.inFlight!.tool}:${s.executed}`)).toEqual([
      'web_site_create:false',
      'web_site_create:true',
      'web_site_publish:false',
      'web_site_publish:true',
      'notify_send:false',
      'notify_send:true',
    ]);
    const replayed = World.fresh('crash-replay-');
    worlds.push(replayed);
    await replayWrites(clean.writes, replayed.dataDir);
    expect(readFileSync(join(replayed.dataDir, 'state.json'), 'utf8')).toBe(
      readFileSync(join(base.dataDir, 'state.json'), 'utf8'),
    );
  });

  it('from every committed step, fresh processes complete the run with each write executed once and every approval and answer honoured', async () => {
    const results = await pool(states, CONCURRENCY, async (state) => {
      try {
        await resume(state);
        return null;
      } catch (error) {
        return `${state.label}: ${error instanceof Error ? error.message : String(error)}`;
      }
    });
    expect(results.filter((r) => r !== null)).toEqual([]);
    const seen = new Set<string>();
    for (const r of await Promise.all(states.map(resume)))
      for (const b of r.report.branches) seen.add(`${b.branch} ${b.tool ?? ''}`.trim());
    expect([...seen].sort()).toEqual(
      [
        'found web_site_create',
        'none',
        'not-found web_site_create',
        're-sent web_site_publish',
        'unknown notify_send',
      ].sort(),
    );
  }, 900_000);

  /** The events from the takeover (run.resumed RECOVERY) on. */
  function afterTakeover(r: Resumed): TraceEvent[] {
    const i = r.report.events.findIndex((e) => e.type === 'run.resumed' && e.kind === 'RECOVERY');
    expect(i).toBeGreaterThanOrEqual(0);
    return r.report.events.slice(i);
  }

  const invoked = (events: TraceEvent[], tool: string) =>
    events.filter((e) => e.type === 'tool.invoked' && e.tool === tool);

  it.each([false, true])(
    'idempotent re-send (executed before the crash: %s): sent again with the same key, one effect',
    async (executed) => {
      const state = inFlight('web_site_publish', executed);
      const r = await resume(state);
      const events = afterTakeover(r);
      expect(events[1]).toMatchObject({
        type: 'tool.invoked',
        tool: 'web_site_publish',
        outcome: 'SUCCESS',
        executed: true,
        lookBack: false,
      });
      expect(events.some((e) => e.type === 'tool.invoked' && e.lookBack === true)).toBe(false);
      const published = r.report.writes.filter((w) => w.tool === 'web_site_publish');
      expect(published).toHaveLength(1);
      expect(published[0]!.idempotencyKey).toBe(state.inFlight!.key);
      expect(r.report.branches.map((b) => b.branch)).toContain('re-sent');
    },
    120_000,
  );

  it('look-back found: SUCCESS citing the look-back evidence, not re-sent; the identical call is a reuse', async () => {
    const r = await resume(inFlight('web_site_create', true));
    const events = afterTakeover(r);
    const look = events[1]!;
    expect(look).toMatchObject({
      type: 'tool.invoked',
      tool: 'web_site_list',
      lookBack: true,
      outcome: 'SUCCESS',
      executed: true,
    });
    expect(events[2]).toMatchObject({
      type: 'tool.invoked',
      tool: 'web_site_create',
      outcome: 'SUCCESS',
      evidenceId: look.evidenceId,
    });
    const creates = invoked(events, 'web_site_create');
    expect(creates[1]).toMatchObject({ outcome: 'SUCCESS', executed: false, evidenceId: look.evidenceId });
    expect(r.report.writes.filter((w) => w.tool === 'web_site_create')).toHaveLength(1);
  }, 120_000);

  it('look-back not found: WRITE_NOT_EXECUTED, and the identical call runs on the same approval without asking again', async () => {
    const r = await resume(inFlight('web_site_create', false));
    const events = afterTakeover(r);
    expect(events[1]).toMatchObject({
      type: 'tool.invoked',
      tool: 'web_site_list',
      lookBack: true,
      outcome: 'SUCCESS',
    });
    expect(events[2]).toMatchObject({
      tool: 'web_site_create',
      outcome: 'DEFERRED',
      errorCode: 'WRITE_NOT_EXECUTED',
      evidenceId: null,
    });
    const next = invoked(events, 'web_site_create')[1]!;
    expect(next).toMatchObject({ outcome: 'SUCCESS', executed: true });
    const between = events.slice(2, events.indexOf(next));
    expect(between.filter((e) => e.type === 'run.suspended')).toEqual([]);
    expect(r.report.writes.filter((w) => w.tool === 'web_site_create')).toHaveLength(1);
  }, 120_000);

  it.each([false, true])(
    'neither idempotent nor recover (executed before the crash: %s): FAILED WRITE_RESULT_UNKNOWN, the person is asked, the answer continues',
    async (executed) => {
      const r = await resume(inFlight('notify_send', executed));
      const events = afterTakeover(r);
      expect(events[1]).toMatchObject({
        tool: 'notify_send',
        outcome: 'FAILED',
        errorCode: 'WRITE_RESULT_UNKNOWN',
        evidenceId: null,
      });
      expect(events[2]).toMatchObject({ type: 'react.stall' });
      const asked = events.find((e) => e.type === 'run.suspended')!;
      expect(asked).toMatchObject({ kind: 'FOLLOW_UP' });
      expect(String((asked.pending as { question: string }).question)).toContain('notify_send');
      expect(events.find((e) => e.type === 'run.resumed' && e.kind === 'FOLLOW_UP')).toMatchObject({
        answer: RECOVERY_ANSWER,
      });
      // The approval is used up (the write may have run): an identical call would have to ask again.
      const approval = r.world.row(clean.runId).state?.run.approvals.find((a) => a.tool === 'notify_send');
      expect(approval).toMatchObject({ consumed: true });
      expect(r.report.writes.filter((w) => w.tool === 'notify_send')).toHaveLength(executed ? 1 : 0);
    },
    120_000,
  );

  it('look-back failing: the result is unknown, the person is asked, and the run goes on once the server is mended', async () => {
    const state = inFlight('web_site_create', true);
    const world = await worldAt(clean, state);
    worlds.push(world);
    const stateFile = join(world.dataDir, 'state.json');
    const good = readFileSync(stateFile, 'utf8');
    writeFileSync(stateFile, '{ broken'); // the server fails every call until mended
    const log = await driveToEnd(world, clean.runId, {
      beforeCommand: (row) => {
        if (row.status === 'suspended') writeFileSync(stateFile, good);
      },
    });
    const report = checkRun(world, clean.runId, { interrupted: log.interrupted });
    expect(report.branches.map((b) => b.branch)).toContain('look-back-failed');
    const events = report.events.slice(
      report.events.findIndex((e) => e.type === 'run.resumed' && e.kind === 'RECOVERY'),
    );
    expect(events[1]).toMatchObject({ tool: 'web_site_list', lookBack: true, outcome: 'FAILED' });
    expect(events[2]).toMatchObject({
      tool: 'web_site_create',
      outcome: 'FAILED',
      errorCode: 'WRITE_RESULT_UNKNOWN',
    });
    expect(report.writes.filter((w) => w.tool === 'web_site_create')).toHaveLength(1);
  }, 120_000);
});
