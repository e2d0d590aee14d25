import { waitForExit } from '../../helpers/demo-server.js';
import {
  childPids,
  killProcess,
  MODEL_QUESTION,
  RECOVERY_ANSWER,
  sleep,
  VERSION_ANSWER,
  type CliOutcome,
  type RunRow,
  type World,
} from './world.js';

/** How a person (the test) continues a run, and where it may crash once more. */
export interface DriveOptions {
  /** Kill -9 the first command of this drive at this point (a crash during the recovery itself). */
  killFirst?: KillPoint;
  /** Called before each command with the run's row (e.g. to mend the server's data first). */
  beforeCommand?: (row: RunRow) => void | Promise<void>;
  /** Extra environment of the CLI processes. */
  env?: Record<string, string>;
}

/** What a drive did: every command it ran, how many it killed, the writes in flight when it resumed. */
export interface DriveLog {
  commands: CliOutcome[];
  kills: number;
  interrupted: string[];
}

/**
 * When to kill a command: `extraMs` after it has printed `afterLines` lines of progress on stderr (0:
 * after it started). The CLI prints a line as each event is committed and as each call returns, and
 * stderr is a pipe, written synchronously, so a line count is a point in the command's own progress
 * whatever the machine's speed; `extraMs` then lands the kill inside the step that follows.
 */
export interface KillPoint {
  afterLines: number;
  extraMs: number;
  /** Kill the MCP servers the command started too (the request dies with the host) instead of letting them finish. */
  servers?: boolean;
}

/** What a killed (or not) command did. */
export interface KillOutcome {
  outcome: CliOutcome;
  /** True when the process was still running at the kill point and got SIGKILL. */
  killed: boolean;
}

const MAX_COMMANDS = 16;
const MAX_REFUSALS = 6;

/**
 * Runs `agent-runtime <args>` and kill -9s it at `point` if it is still running; then waits until the
 * MCP server processes it had started have left too (they finish the call they are in, as a remote
 * server would), so that the next command sees the server's data as the crash left it.
 */
export async function runAndKill(
  world: World,
  args: string[],
  point: KillPoint,
  env: Record<string, string> = {},
): Promise<KillOutcome> {
  const { child, done } = world.spawn(args, env);
  let killed = false;
  let servers: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    servers = childPids(child.pid);
    killed = child.kill('SIGKILL');
    if (point.servers) for (const pid of servers) killProcess(pid);
  };
  const arm = () => (timer ??= setTimeout(kill, point.extraMs));
  let lines = 0;
  if (point.afterLines <= 0) arm();
  else {
    child.stderr?.on('data', (chunk: string) => {
      lines += chunk.split('\n').length - 1;
      if (lines >= point.afterLines) arm();
    });
  }
  const outcome = await done;
  clearTimeout(timer);
  await settleServers(servers);
  return { outcome, killed };
}

/** Waits for orphaned server processes to leave; kills one that is still there after a while. */
export async function settleServers(pids: readonly number[], ms = 8_000): Promise<void> {
  for (const pid of pids) {
    if (await waitForExit(pid, ms)) continue;
    killProcess(pid);
    await waitForExit(pid, 2_000);
  }
}

/** The command a person (or an operator) gives next for a run in this state, or null when it has ended. */
export function nextCommand(row: RunRow): string[] | null {
  if (row.status === 'suspended' && row.suspension?.kind === 'APPROVAL') return ['approve', row.runId];
  if (row.status === 'suspended' && row.suspension?.kind === 'FOLLOW_UP') {
    const question = row.suspension.pending.question;
    return ['answer', row.runId, question === MODEL_QUESTION ? VERSION_ANSWER : RECOVERY_ANSWER];
  }
  if (row.status === 'running') return ['resume', row.runId];
  return null;
}

/**
 * Continues a run until it has ended, as the people and operators of a durable run would: approves
 * every pending write, answers the model's question with "v2" and the runtime's question about an
 * unknown write with RECOVERY_ANSWER, and resumes a run left `running` once its lease has expired.
 * Throws when a command fails or refuses more often than a lease race explains.
 */
export async function driveToEnd(world: World, runId: string, options: DriveOptions = {}): Promise<DriveLog> {
  const log: DriveLog = { commands: [], kills: 0, interrupted: [] };
  let refusals = 0;
  for (;;) {
    const row = world.row(runId);
    const args = nextCommand(row);
    if (!args) return log;
    if (log.commands.length >= MAX_COMMANDS)
      throw new Error(`run ${runId} did not end after ${MAX_COMMANDS} commands`);
    if (row.status === 'running') {
      await sleep(Math.max(0, (row.leaseExpiresAt ?? 0) - Date.now()) + 20);
      log.interrupted.push(...(row.state?.run.inFlight ?? []).map((w) => w.tool));
    }
    await options.beforeCommand?.(row);
    const result =
      log.commands.length === 0 && options.killFirst
        ? await runAndKill(world, args, options.killFirst, options.env)
        : { outcome: await world.cli(args, options.env), killed: false };
    log.commands.push(result.outcome);
    if (result.killed) {
      log.kills += 1;
      continue;
    }
    const code = result.outcome.code;
    if (code === 4 && ++refusals <= MAX_REFUSALS) continue;
    if (code !== 0 && code !== 3)
      throw new Error(`${describe(result.outcome)}\nrun state: ${JSON.stringify(world.row(runId))}`);
  }
}

/** One line per command for failure messages. */
export function describe(outcome: CliOutcome): string {
  const name = outcome.args.slice(0, 2).join(' ');
  return `agent-runtime ${name} → exit ${outcome.code ?? outcome.signal} after ${outcome.ms} ms\n${outcome.stderr.trim().split('\n').slice(-8).join('\n')}`;
}
