import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRun, type RunReport, type Times, type WriteTool } from './checks.js';
import { driveToEnd, type DriveLog, type DriveOptions } from './drive.js';
import { materialize, replayWrites, type WalCapture } from './wal.js';
import { CRASH_FLOW, INPUT, World, type WriteEntry } from './world.js';

/**
 * One crash state of the clean run: the store right after commit `k`, and the server's data as it was
 * then. Between a commit that marks a write in flight and the next one the server executes that write,
 * so such a commit gives two states: the write not executed yet, and executed with its reply lost.
 */
export interface CrashState {
  label: string;
  k: number;
  /** The last event committed at this step (its seq and type), for the label. */
  seq: number;
  lastEvent: string;
  status: string;
  /** Writes the server had executed before this commit (their results are in the store). */
  executedBefore: number;
  /** The write marked in flight at this commit, if any. */
  inFlight: { tool: string; key: string; args: Record<string, unknown> } | null;
  /** For a write in flight: whether the server executed it before the crash. */
  executed: boolean;
}

/** The clean run the states come from. */
export interface CleanRun {
  runId: string;
  capture: WalCapture;
  writes: WriteEntry[];
}

/** The clean run, recorded: `run` then a person approving and answering until it completes. */
export async function cleanRun(world: World): Promise<string> {
  const started = await world.cli(['run', CRASH_FLOW, '--input', INPUT]);
  if (started.code !== 3) throw new Error(`run exited ${started.code}: ${started.stderr}`);
  const runId = world.runId();
  if (!runId) throw new Error('run created no run');
  await driveToEnd(world, runId);
  return runId;
}

const WRITE_TOOLS = new Set(['web_site_create', 'web_site_publish', 'notify_send']);

/**
 * Every crash state of the clean run, one or two per commit, in commit order. Commits that only renew
 * the lease of the driver (every third of AGENT_RUNTIME_LEASE_MS while it works) change nothing a
 * resume reads except the lease's expiry, and are skipped as the state before them.
 */
export function crashStates(clean: CleanRun): CrashState[] {
  const scratch = mkdtempSync(join(tmpdir(), 'crash-plan-'));
  try {
    const states: CrashState[] = [];
    let previous = '';
    clean.capture.commits.forEach((_, k) => {
      const world = new World(join(scratch, String(k)));
      materialize(clean.capture, k, world.db);
      const row = world.row(clean.runId);
      // A commit that only extended the driver's lease is the same crash state as the one before it.
      const content = world.content(clean.runId);
      if (content === previous) return;
      previous = content;
      const last = world.events(clean.runId).at(-1);
      const executedBefore = world.evidence(clean.runId).filter((e) => WRITE_TOOLS.has(e.tool)).length;
      const mark = row.state?.run.inFlight[0] ?? null;
      const inFlight = mark ? { tool: mark.tool, key: mark.key, args: mark.args } : null;
      const base = {
        k,
        seq: row.lastSeq,
        lastEvent: last?.type ?? '-',
        status: row.status,
        executedBefore,
        inFlight,
      };
      const name = `commit ${k + 1} (seq ${row.lastSeq} ${last?.type ?? 'no event'}, ${row.status})`;
      if (!inFlight) states.push({ ...base, executed: false, label: name });
      else {
        states.push({ ...base, executed: false, label: `${name}, ${inFlight.tool} in flight, not executed` });
        states.push({ ...base, executed: true, label: `${name}, ${inFlight.tool} in flight, executed` });
      }
    });
    return states;
  } finally {
    rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** How often each write must have run after resuming from this state. */
export function expectedTimes(state: CrashState): Partial<Record<WriteTool, Times>> {
  return state.inFlight?.tool === 'notify_send' && !state.executed ? { notify_send: 0 } : {};
}

/** A world holding this crash state: the store cut after commit k, and the server data replayed. */
export async function worldAt(clean: CleanRun, state: CrashState): Promise<World> {
  const world = World.fresh('crash-step-');
  materialize(clean.capture, state.k, world.db);
  const executed = state.executedBefore + (state.executed ? 1 : 0);
  if (state.executed) {
    const w = clean.writes[state.executedBefore];
    if (w?.tool !== state.inFlight?.tool || w?.idempotencyKey !== state.inFlight?.key) {
      throw new Error(
        `${state.label}: the write log's next write is not the one in flight: ${JSON.stringify(w)}`,
      );
    }
  }
  await replayWrites(clean.writes.slice(0, executed), world.dataDir);
  return world;
}

/** What resuming from one crash state gave. */
export interface Resumed {
  state: CrashState;
  world: World;
  log: DriveLog;
  report: RunReport;
}

/** Resumes the run from a crash state in fresh processes until it completes, then checks it. */
export async function resumeFrom(
  clean: CleanRun,
  state: CrashState,
  options: DriveOptions = {},
): Promise<Resumed> {
  const world = await worldAt(clean, state);
  const log = await driveToEnd(world, clean.runId, options);
  const report = checkRun(world, clean.runId, { times: expectedTimes(state), interrupted: log.interrupted });
  return { state, world, log, report };
}
