import type { McpTaskState } from '../../mcp/types.js';
import type { TaskPending } from '../../records/pending.js';
import type { ControlEffect, TaskBridge } from '../call.js';
import type { ReadyCall } from '../stages.js';
import { callTaskOf } from '../interrupted.js';

/** How long a call waits for its task in the process that made it before the run waits for it. */
export const TASK_WAIT_MS = 2_000;
/** The wait between two looks at a task when the server names none. */
const DEFAULT_POLL_MS = 1_000;

/** The bridge of one MCP call to the task it runs as, and the wait it asks for, if any. */
export interface CallTask {
  readonly bridge: TaskBridge;
  /** The suspension the call asks for once it returned: its task had not ended yet. */
  effect(): Extract<ControlEffect, { kind: 'suspend' }> | null;
}

/**
 * A call of a tool that runs as a task (docs/mcp.md, "Tools that run as tasks"): the task is recorded in
 * the run (and committed) as soon as the server created it, so that the same call, when the run goes
 * on — in this process or another, after a wait or a crash — polls that task instead of sending the call
 * again. A task that has not ended within the wait suspends the run with kind TASK; the record is
 * dropped once the call has its result.
 */
export function callTask(ctx: ReadyCall): CallTask {
  const server = ctx.descriptor.server ?? '';
  const fingerprint = ctx.fingerprint;
  let working: McpTaskState | null = null;
  const recorded = () =>
    callTaskOf(ctx.run, { nodeId: ctx.nodeId, callId: ctx.call.callId, fingerprint, server });
  const trace = ctx.services.taskTrace?.bind(ctx.services);
  const bridge: TaskBridge = {
    waitMs: ctx.services.taskWaitMs ?? TASK_WAIT_MS,
    resume: () => recorded()?.taskId,
    started: async (task) => {
      const started = {
        server,
        tool: ctx.call.tool,
        fingerprint,
        taskId: task.taskId,
        nodeId: ctx.nodeId,
        callId: ctx.call.callId,
        startedAt: ctx.services.now().toISOString(),
      };
      ctx.changes.record({ kind: 'taskStarted', task: started });
      trace?.({ server, taskId: task.taskId, phase: 'started', status: task.status, ...message(task) });
      // Committed before the task is polled: a crash from here on polls it, never sends the call again.
      await ctx.services.checkpoint();
    },
    working: (task) => {
      working = task;
      trace?.({ server, taskId: task.taskId, phase: 'polled', status: task.status, ...message(task) });
    },
    ended: () => {
      const task = recorded();
      if (task) ctx.changes.record({ kind: 'taskEnded', server, taskId: task.taskId });
    },
  };
  return {
    bridge,
    effect: () => {
      if (working === null) return null;
      const task: McpTaskState = working;
      const started = recorded()?.startedAt ?? ctx.services.now().toISOString();
      const pollInterval = task.pollInterval ?? DEFAULT_POLL_MS;
      const pending: TaskPending = {
        task: {
          server,
          tool: ctx.call.tool,
          fingerprint,
          taskId: task.taskId,
          status: task.status,
          ...message(task),
          pollInterval,
          ...(task.ttl === undefined ? {} : { ttl: task.ttl }),
          startedAt: started,
          nextPollAt: new Date(ctx.services.now().getTime() + pollInterval).toISOString(),
        },
      };
      return { kind: 'suspend', suspension: { kind: 'TASK', pending } };
    },
  };
}

function message(task: McpTaskState): { statusMessage?: string } {
  return task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage };
}
