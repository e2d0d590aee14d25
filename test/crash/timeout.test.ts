/**
 * Crash-injection suite: slow writes (issue 6; the invoke step and durability). crash-cloud's web_site_create can
 * be slowed (CRASH_CLOUD_SLOW=…:web_site_create, examples/crash/crash-tools.js): `reply:MS` executes at once and
 * answers MS later, `execute:MS` waits MS and then executes even if the caller gave up. The flow's
 * `build` node gives tools 2.5 s. This makes the in-flight window of a write long and deterministic:
 * a write times out during normal running and is looked back; the CLI is killed while a write is in
 * flight, after or before the server executed it; and the documented limit of a look-back is shown: a
 * server that commits after the look-back looked.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../acceptance/build.js';
import { checkRun } from './helpers/checks.js';
import { driveToEnd, settleServers } from './helpers/drive.js';
import { childPids, CRASH_FLOW, killProcess, INPUT, until, World, type TraceEvent } from './helpers/world.js';

const created = (world: World) => world.writes().filter((w) => w.tool === 'web_site_create');
const invoked = (events: TraceEvent[], tool: string) =>
  events.filter((e) => e.type === 'tool.invoked' && e.tool === tool);

describe('crash: slow writes, timeouts and look-backs', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let world: World;
  afterEach(() => world.dispose());

  /** A new run, suspended for the approval of web_site_create. */
  async function startRun(): Promise<string> {
    world = World.fresh('crash-slow-');
    const started = await world.cli(['run', CRASH_FLOW, '--input', INPUT]);
    expect(started.code).toBe(3);
    return world.runId()!;
  }

  /** Starts `approve` with a slow create and kill -9s it (and its server) once `ready` holds. */
  async function approveAndKill(
    runId: string,
    slow: string,
    ready: () => boolean,
    what: string,
  ): Promise<void> {
    const { child, done } = world.spawn(['approve', runId], { CRASH_CLOUD_SLOW: `${slow}:web_site_create` });
    await until(ready, what);
    const servers = childPids(child.pid!);
    child.kill('SIGKILL');
    for (const pid of servers) killProcess(pid);
    await done;
    await settleServers(servers);
  }

  it('a write that times out during normal running is looked back with `recover`: found → SUCCESS, not sent again', async () => {
    const runId = await startRun();
    const approved = await world.cli(['approve', runId], { CRASH_CLOUD_SLOW: 'reply:4000:web_site_create' });
    expect(approved.code).toBe(3);
    const events = world.events(runId);
    const look = invoked(events, 'web_site_list').find((e) => e.lookBack === true)!;
    expect(look).toMatchObject({ outcome: 'SUCCESS', executed: true });
    const [first, second] = invoked(events, 'web_site_create').filter((e) => e.outcome !== 'DEFERRED');
    expect(first).toMatchObject({ outcome: 'SUCCESS', executed: true, evidenceId: look.evidenceId });
    expect(events.indexOf(look)).toBeLessThan(events.indexOf(first!));
    expect(second).toMatchObject({ outcome: 'SUCCESS', executed: false, evidenceId: look.evidenceId });
    expect(created(world)).toHaveLength(1);
    await driveToEnd(world, runId);
    checkRun(world, runId);
  }, 120_000);

  it('killed after the server executed the write, before its reply: the takeover finds it and does not send it again', async () => {
    const runId = await startRun();
    await approveAndKill(
      runId,
      'reply:30000',
      () => created(world).length === 1,
      'the server to execute the write',
    );
    expect(world.row(runId).state?.run.inFlight.map((w) => w.tool)).toEqual(['web_site_create']);
    const log = await driveToEnd(world, runId);
    const report = checkRun(world, runId, { interrupted: log.interrupted });
    expect(report.branches.map((b) => b.branch)).toEqual(['found']);
  }, 120_000);

  it('killed before the server executed the write: not found, and the same approval runs it exactly once', async () => {
    const runId = await startRun();
    const inFlight = () => (world.row(runId).state?.run.inFlight.length ?? 0) > 0;
    await approveAndKill(runId, 'execute:30000', inFlight, 'the write to be marked in flight');
    expect(created(world)).toHaveLength(0);
    const log = await driveToEnd(world, runId);
    const report = checkRun(world, runId, { interrupted: log.interrupted });
    expect(report.branches.map((b) => b.branch)).toEqual(['not-found']);
    const approvals = report.events.filter((e) => e.type === 'run.suspended' && e.kind === 'APPROVAL');
    expect(approvals.map((e) => (e.pending as { tool: string }).tool)).toEqual([
      'web_site_create',
      'web_site_publish',
      'notify_send',
    ]);
  }, 120_000);

  it('the limit of a look-back: a server that commits after the look-back looked leaves an effect the run reported as failed', async () => {
    const runId = await startRun();
    const approved = await world.cli(['approve', runId], {
      CRASH_CLOUD_SLOW: 'execute:4500:web_site_create',
    });
    expect(approved.code).toBe(3); // the run goes on and asks its question
    const events = world.events(runId);
    const look = invoked(events, 'web_site_list').find((e) => e.lookBack === true)!;
    expect(look).toMatchObject({ outcome: 'SUCCESS' });
    expect(world.evidence(runId).find((e) => e.id === look.evidenceId)?.payload).toMatchObject({ data: [] });
    expect(invoked(events, 'web_site_create')[1]).toMatchObject({
      outcome: 'FAILED',
      errorCode: 'TOOL_TIMEOUT',
      executed: true,
    });
    // The server, still working on the call, commits it after the look-back: the run believes it failed.
    await until(() => created(world).length === 1, 'the late commit', 15_000);
    expect(Date.parse(created(world)[0]!.ts)).toBeGreaterThan(Date.parse(String(look.ts)));
    expect(world.row(runId).state?.run.inFlight).toEqual([]);
  }, 120_000);
});
