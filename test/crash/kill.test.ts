/**
 * Crash-injection suite, part 2 (issue 6): kill -9 the CLI at random points, resume, check.
 *
 * A clean run of examples/crash/flow.yaml is driven once by the CLI (`run`, `approve`, `answer`,
 * `approve`, `approve`); before each command the store (VACUUM INTO) and the server's data are copied,
 * and the command's progress lines on stderr are counted (it prints one as each event is committed and
 * as each call returns). Each trial (seeded: CRASH_SEED, default below; CRASH_TRIALS, default 50)
 * takes the copy before a random command, runs that command in a fresh process and kill -9s it at a
 * random point of its own progress: 0-40 ms after its n-th line, n random up to its line count (n = 0:
 * during start-up). A write's in-flight window lasts only a few ms, so in 60% of the trials of an
 * `approve` the server takes 250 ms over each write, before or after executing it (CRASH_CLOUD_SLOW),
 * n is the line where the model has just made the approved call and the kill comes 0-350 ms later, taking the server down too in half
 * of them (the request dies with the host) or letting it finish the call (as a remote server would).
 * So kills land at every step whatever the machine's speed: mid-start, mid-model-turn, mid-write
 * (marked in flight, executed or not), mid-commit. It waits for the MCP server the command
 * had started to leave, then continues the run as people and operators would (`resume` once the
 * 300 ms lease has expired, `approve`, `answer`). In about a third of the trials the first command
 * after the crash is killed too, at a random point (a crash during recovery: mid look-back, mid
 * re-send). Every trial must end with the checks of helpers/checks.ts: completed, create and publish
 * executed exactly once (publish: one effect), notify_send at most once and missing only when the
 * person was told its result is unknown, approvals and the answer honoured.
 * The trials run three at a time; a failure names the trial, its seed and where the kill landed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../acceptance/build.js';
import { checkRun } from './helpers/checks.js';
import { driveToEnd, nextCommand, runAndKill, type KillPoint } from './helpers/drive.js';
import { CRASH_FLOW, INPUT, pool, World } from './helpers/world.js';

const SEED = Number(process.env.CRASH_SEED ?? 20261202);
const TRIALS = Number(process.env.CRASH_TRIALS ?? 50);
const CONCURRENCY = 3;
const SECOND_KILL_SHARE = 0.3;
/** The longest delay after a progress line: a step (model turn, call, commit) takes a few ms. */
const EXTRA_MS = 40;
/** The share of kills, in the commands that approve a write, aimed at that write's in-flight window. */
const WRITE_SHARE = 0.6;
const WRITE_CALL = /model → .*(web_site_create|web_site_publish|notify_send)/;
/** In write-aimed trials the server takes this long over each write (CRASH_CLOUD_SLOW), before or after executing it. */
const SLOW_MS = 250;
/** A command continuing a run prints about this many lines before it reaches the next suspension. */
const SECOND_KILL_LINES = 12;

/** A seeded PRNG (mulberry32): the same seed gives the same trials. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One command of the clean run, the world just before it, and how many progress lines it printed. */
interface Stage {
  before: World;
  args: string[];
  /** Progress lines up to the one saying the command suspended or completed the run. */
  lines: number;
  /** The line counts after which the model has just called a write (its in-flight window follows). */
  writeLines: number[];
  ms: number;
}

/** What one trial did. */
interface Trial {
  index: number;
  stage: number;
  /** The server's slowness in this trial, if any. */
  slow: string | null;
  kill: KillPoint;
  secondKill: KillPoint | null;
  killed: boolean;
  /** Where the kill left the run: its status and last event, or `no run` (killed before it existed). */
  landed: string;
  branches: string[];
  commands: number;
}

describe('crash: kill -9 at random points, then resume', () => {
  const stages: Stage[] = [];
  const worlds: World[] = [];

  beforeAll(async () => {
    ensureBuilt();
    const base = World.fresh('crash-kill-base-');
    worlds.push(base);
    let args: string[] | null = ['run', CRASH_FLOW, '--input', INPUT];
    while (args) {
      const before = base.copy('crash-kill-stage-');
      worlds.push(before);
      const outcome = await base.cli(args);
      if (outcome.code !== 0 && outcome.code !== 3)
        throw new Error(`clean run: ${args[0]} exited ${outcome.code}: ${outcome.stderr}`);
      const lines = outcome.stderr.split('\n');
      const end = lines.findIndex((line) => /^(⏸ waiting|✔ run completed)/.test(line));
      // The approved call of a write: the first one the model makes after the approval was granted.
      const granted = lines.findIndex((line) => line.startsWith('▶ resumed (APPROVAL'));
      const call = granted < 0 ? -1 : lines.findIndex((line, i) => i > granted && WRITE_CALL.test(line));
      const writeLines = call < 0 ? [] : [call + 1];
      stages.push({ before, args, lines: end < 0 ? lines.length - 1 : end + 1, writeLines, ms: outcome.ms });
      args = nextCommand(base.row(base.runId()!));
    }
    checkRun(base, base.runId()!);
  }, 300_000);

  afterAll(() => {
    for (const w of worlds) w.dispose();
  });

  async function trial(index: number): Promise<Trial> {
    const rand = random(SEED + index * 7919);
    const stageIndex = Math.floor(rand() * stages.length);
    const stage = stages[stageIndex]!;
    const point = (lines: number, startMs: number): KillPoint => {
      const afterLines = Math.floor(rand() * (lines + 1));
      return {
        afterLines,
        extraMs: afterLines === 0 ? Math.round(rand() * startMs) : Math.round(rand() * EXTRA_MS),
      };
    };
    const atWrite = stage.writeLines.length > 0 && rand() < WRITE_SHARE;
    const kill: KillPoint = atWrite
      ? {
          afterLines: stage.writeLines[Math.floor(rand() * stage.writeLines.length)]!,
          extraMs: Math.round(rand() * (SLOW_MS + 100)),
          servers: rand() < 0.5,
        }
      : point(stage.lines, stage.ms);
    const phase = rand() < 0.5 ? 'reply' : 'execute';
    const slow: Record<string, string> = atWrite ? { CRASH_CLOUD_SLOW: `${phase}:${SLOW_MS}` } : {};
    const secondKill = rand() < SECOND_KILL_SHARE ? point(SECOND_KILL_LINES, 1_000) : null;
    const world = stage.before.copy('crash-kill-');
    worlds.push(world);
    const { killed } = await runAndKill(world, stage.args, kill, slow);
    let runId = world.runId();
    let landed = 'no run';
    if (!runId) {
      const again = await world.cli(stage.args);
      if (again.code !== 3) throw new Error(`run after the crash exited ${again.code}: ${again.stderr}`);
      runId = world.runId()!;
    } else {
      const row = world.row(runId);
      const unchanged = stage.before.runId() !== null && stage.before.row(runId).version === row.version;
      const last = world.events(runId).at(-1)?.type ?? '-';
      const ran = world.writes().length > stage.before.writes().length ? ', executed' : '';
      const inFlight = row.state?.run.inFlight.length ? ` (write in flight${ran})` : '';
      landed = unchanged ? 'before its first commit' : `${row.status} after ${last}${inFlight}`;
    }
    const log = await driveToEnd(world, runId, secondKill ? { killFirst: secondKill } : {});
    const report = checkRun(world, runId, {
      times: { notify_send: 'at-most-once' },
      interrupted: log.interrupted,
    });
    const branches = report.branches
      .filter((b) => b.branch !== 'none')
      .map((b) => `${b.branch} ${b.tool ?? ''}`.trim());
    return {
      index,
      stage: stageIndex,
      slow: slow.CRASH_CLOUD_SLOW ?? null,
      kill,
      secondKill,
      killed,
      landed,
      branches,
      commands: log.commands.length,
    };
  }

  it(`${TRIALS} seeded trials (seed ${SEED}): every run completes, each write executed once, approvals and answers honoured`, async () => {
    const failures: string[] = [];
    const trials = await pool(
      Array.from({ length: TRIALS }, (_, i) => i),
      CONCURRENCY,
      async (index) => {
        try {
          return await trial(index);
        } catch (error) {
          failures.push(
            `trial ${index} (CRASH_SEED=${SEED}): ${error instanceof Error ? error.message : String(error)}`,
          );
          return null;
        }
      },
    );
    expect(failures).toEqual([]);
    const done = trials.filter((t): t is Trial => t !== null);
    const tally = (values: string[]) =>
      Object.entries(values.reduce<Record<string, number>>((m, v) => ({ ...m, [v]: (m[v] ?? 0) + 1 }), {}));
    console.log(
      [
        `crash/kill: ${done.length} trials, ${done.filter((t) => t.killed).length} killed mid-command, ${done.filter((t) => t.secondKill !== null).length} with a second kill`,
        ...tally(done.map((t) => t.landed)).map(([k, n]) => `  landed: ${k} × ${n}`),
        ...tally(done.flatMap((t) => t.branches)).map(([k, n]) => `  recovery: ${k} × ${n}`),
      ].join('\n'),
    );
    if (process.env.CRASH_VERBOSE) for (const t of done) console.log(JSON.stringify(t));
    // Kills that land after the command ended inject nothing; most must land while it works.
    expect(done.filter((t) => t.killed).length).toBeGreaterThanOrEqual(Math.ceil(TRIALS * 0.6));
  }, 1_200_000);
});
