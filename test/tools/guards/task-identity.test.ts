import { describe, expect, it } from 'vitest';
import { ChangeLog } from '../../../src/records/changes.js';
import { newNodeState, newRunState, type RunState } from '../../../src/records/run-state.js';
import { callTask } from '../../../src/tools/guards/task-wait.js';
import type { ReadyCall } from '../../../src/tools/stages.js';

/**
 * Two parallel branches may call the same tool with the same arguments (a read: the gate's in-flight
 * check does not apply), each as an MCP task of its own. Each call polls and ends its own task — found by
 * node, call, server and fingerprint, ended by its task id — so the first to end never drops the other's
 * record while that task still works.
 */
function callOf(run: RunState, nodeId: string, callId: string): ReadyCall {
  const node = newNodeState(nodeId);
  return {
    descriptor: { server: 'srv' },
    fingerprint: 'fp-search-1',
    run,
    node,
    nodeId,
    call: { callId, tool: 'search', rawArgs: '{"q":"x"}' },
    services: { now: () => new Date(0), checkpoint: () => Promise.resolve() },
    changes: new ChangeLog({ run, node }),
  } as unknown as ReadyCall;
}

describe('taskEnded removes tasks by server and fingerprint', () => {
  it("one call's end keeps the task another call of the run still waits for", async () => {
    const run = newRunState('run-1', {});
    const left = callTask(callOf(run, 'left', 'c1'));
    const right = callTask(callOf(run, 'right', 'c1'));
    await left.bridge.started({ taskId: 'task-left', status: 'working' });
    await right.bridge.started({ taskId: 'task-right', status: 'working' });
    left.bridge.ended();
    // right's task is still working: its call must still find it to poll (not send again).
    expect(run.tasks?.map((t) => t.taskId)).toEqual(['task-right']);
    expect(right.bridge.resume()).toBe('task-right');
  });
});
