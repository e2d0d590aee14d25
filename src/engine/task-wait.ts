import type { McpTaskState } from '../mcp/types.js';
import type { ModelSpec } from '../model/resolve.js';
import type { PendingItem, TaskPending } from '../records/pending.js';
import type { SuspendedCall } from '../records/loop-state.js';
import type { RunSummary } from '../records/summary.js';
import { isVersionConflict, type RunRecord, type StoredEvent } from '../store/store.js';
import type { RunEngine } from './engine.js';
import { markPending } from './pending-marks.js';
import { flowRefOf } from './toolbox.js';

/**
 * A run waiting for an MCP task (docs/mcp.md, "Tools that run as tasks"; suspension kind TASK). Any
 * process that has the run's store looks at the task when its `nextPollAt` came: `tasks/get` on the
 * flow's server; while the task works, the item gets the task's status and the next look (a `tool.task`
 * event when the status or its message changed); once it ended — or the server no longer knows it — the
 * run goes on with the call that started it, which polls the same task and fetches its result
 * (`tasks/result`), never sending the call again. Looks are claimed by compare-and-set commits, so
 * several processes looking at once change the run once.
 */

/** How long one `tasks/get` of a look may take. */
const LOOK_TIMEOUT_MS = 10_000;

/** What a look at a run did. */
export type TaskLook =
  | { readonly kind: 'not-waiting' }
  /** The task still works: looked at (or not due yet); `at` is when to look again (epoch ms). */
  | { readonly kind: 'working'; readonly at: number }
  /** The task ended: the run went on (driven here, or handed to the queue). */
  | { readonly kind: 'resumed'; readonly summary: RunSummary };

/** Options of a look. */
export interface TaskLookOptions {
  /** Look now even when the item's `nextPollAt` has not come yet. */
  readonly force?: boolean;
  readonly model?: ModelSpec;
  readonly onAccepted?: (summary: RunSummary) => void;
}

/** The task item a suspended run waits for (its first, with parallel branches), or null. */
export function waitingTask(
  record: Pick<RunRecord, 'status' | 'suspension'>,
): { nodeId: string | null; pending: TaskPending } | null {
  const suspension = record.suspension;
  if (record.status !== 'suspended' || !suspension) return null;
  const items = suspension.items ?? [{ kind: suspension.kind, nodeId: '', pending: suspension.pending }];
  const item = items.find((i) => i.kind === 'TASK' && 'task' in i.pending);
  return item ? { nodeId: item.nodeId || null, pending: item.pending as TaskPending } : null;
}

/** One look at the task a run waits for (see above). */
export async function lookAtTask(
  engine: RunEngine,
  runId: string,
  options: TaskLookOptions = {},
): Promise<TaskLook> {
  const record = await engine.require(runId);
  const waiting = waitingTask(record);
  if (!waiting) return { kind: 'not-waiting' };
  const now = engine.clock();
  const due = Date.parse(waiting.pending.task.nextPollAt);
  if (!options.force && due > now) return { kind: 'working', at: due };
  const state = await taskState(engine, record, waiting.pending);
  if (state && !ended(state)) {
    const at = now + waiting.pending.task.pollInterval;
    await notePoll(engine, record, waiting, state, at);
    return { kind: 'working', at };
  }
  const summary = await engine.exclusive(runId, () => goOn(engine, runId, waiting.pending, options));
  return summary ? { kind: 'resumed', summary } : { kind: 'not-waiting' };
}

/** Cancels the task a run waits for (best effort: a task already ended or forgotten is fine). */
export async function cancelWaitedTask(engine: RunEngine, record: RunRecord): Promise<void> {
  const waiting = waitingTask(record);
  if (!waiting) return;
  const { server, taskId } = waiting.pending.task;
  try {
    const catalog = await engine.toolbox.catalog(flowRefOf(record));
    await catalog.invoker.task?.(server, taskId, 'cancel', { timeoutMs: LOOK_TIMEOUT_MS });
  } catch (error) {
    engine.logger.warn('MCP task not cancelled', { runId: record.runId, server, taskId, error });
  }
}

/** The task as its server reports it, or null when asking failed (the call then meets the failure itself). */
async function taskState(
  engine: RunEngine,
  record: RunRecord,
  pending: TaskPending,
): Promise<McpTaskState | null> {
  const { server, taskId } = pending.task;
  try {
    const catalog = await engine.toolbox.catalog(flowRefOf(record));
    const invoker = catalog.invoker;
    if (!invoker.task) return null;
    return await invoker.task(server, taskId, 'get', { timeoutMs: LOOK_TIMEOUT_MS });
  } catch (error) {
    engine.logger.info('MCP task look failed; the call goes on to report it', {
      runId: record.runId,
      server,
      taskId,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}

function ended(task: McpTaskState): boolean {
  return task.status !== 'working';
}

/**
 * Records a look at a task that still works: the item's status and next look, at the run's version (a
 * process that changed the run first wins; this look is then dropped). A `tool.task` event is traced
 * only when the status or its message changed, so a long task does not flood the trace.
 */
async function notePoll(
  engine: RunEngine,
  record: RunRecord,
  waiting: { nodeId: string | null; pending: TaskPending },
  state: McpTaskState,
  at: number,
): Promise<void> {
  const before = waiting.pending.task;
  const id = waiting.pending.id;
  if (id === undefined) return;
  const changed = state.status !== before.status || state.statusMessage !== before.statusMessage;
  const doc = structuredClone(record.state);
  if (!record.suspension) return;
  const suspension = markPending(record.suspension, doc, id, (item: PendingItem) => {
    const task = (item as TaskPending).task;
    const { statusMessage: _dropped, ...rest } = task;
    return {
      ...item,
      task: {
        ...rest,
        status: state.status,
        ...(state.statusMessage === undefined ? {} : { statusMessage: state.statusMessage }),
        nextPollAt: new Date(at).toISOString(),
      },
    };
  });
  const call = suspendedCall(record, id);
  const events: StoredEvent[] =
    changed && call
      ? [
          {
            seq: record.lastSeq + 1,
            ts: new Date(engine.clock()).toISOString(),
            runId: record.runId,
            type: 'tool.task',
            nodeId: waiting.nodeId ?? record.state.nodeId ?? '',
            round: call.round,
            callId: call.callId,
            tool: call.tool,
            server: before.server,
            taskId: before.taskId,
            phase: 'polled',
            status: state.status,
            ...(state.statusMessage === undefined ? {} : { statusMessage: state.statusMessage }),
          },
        ]
      : [];
  try {
    await (
      await engine.db()
    ).commit({
      runId: record.runId,
      expectedVersion: record.version,
      patch: { suspension, state: doc },
      events,
    });
  } catch (error) {
    if (!isVersionConflict(error)) throw error;
  }
}

/** The suspended call of the run (or of the branch) that waits for item `id`. */
function suspendedCall(record: RunRecord, id: string): SuspendedCall | null {
  const branch = record.state.branches?.find((b) => b.suspension?.pending.id === id);
  return (branch ? branch.loop : record.state.loop).suspended;
}

/**
 * The task ended: the run, under its lease, goes on with the call that started the task — put back as
 * the node's wave, so that the call runs through the guards again and polls the recorded task. Null when
 * the run no longer waits for this task (another process went on first).
 */
async function goOn(
  engine: RunEngine,
  runId: string,
  pending: TaskPending,
  options: TaskLookOptions,
): Promise<RunSummary | null> {
  const before = await engine.require(runId);
  if (waitingTask(before)?.pending.id !== pending.id) return null;
  const model = engine.models.forRun(before, options.model);
  const record = await engine.acquire(runId);
  if (!record || waitingTask(record)?.pending.id !== pending.id) {
    if (record) await engine.release(record);
    return null;
  }
  const session = await engine.openSession(record, 'drive');
  await session.inSuspendedBranch(() => {
    const suspended = session.doc.loop.suspended;
    const nodeId = session.doc.nodeId;
    if (!suspended || suspended.kind !== 'TASK' || !nodeId)
      throw new Error(`run ${runId} waits for a task without its suspended call`);
    session.doc.loop.suspended = null;
    session.doc.loop.wave = {
      round: suspended.round,
      calls: [{ callId: suspended.callId, tool: suspended.tool, rawArgs: JSON.stringify(suspended.args) }],
      next: 0,
    };
    session.emit({ type: 'run.resumed', nodeId, kind: 'TASK' });
    return Promise.resolve();
  }, pending.id);
  session.update({ status: 'running', suspension: null });
  return engine.proceed(session, flowRefOf(record), model, { commit: true, onAccepted: options.onAccepted });
}
