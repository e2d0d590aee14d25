/**
 * `waitingTask` (src/engine/task-wait.ts): which MCP task item a suspended run waits for — the
 * single suspension's, or the first TASK item of a run with parallel branches — and when none.
 */
import { describe, expect, it } from 'vitest';
import { waitingTask } from '../../src/engine/task-wait.js';
import type { RunSuspension, TaskPending, WaitingItem } from '../../src/records/pending.js';
import type { RunRecord } from '../../src/store/store.js';

const task = (taskId: string): TaskPending =>
  ({
    id: `pnd_${taskId.padStart(16, '0')}`,
    task: {
      server: 'jobs',
      tool: 'export',
      fingerprint: `export:{"id":"${taskId}"}`,
      taskId,
      status: 'working',
      pollInterval: 1000,
      nextPollAt: '2026-01-01T00:00:01.000Z',
    },
  }) as TaskPending;

const approval = {
  id: 'pnd_aaaaaaaaaaaaaaaa',
  tool: 'save',
  args: {},
  summary: 's',
} as unknown as WaitingItem['pending'];
const question = { id: 'pnd_bbbbbbbbbbbbbbbb', question: 'which?', options: null } as WaitingItem['pending'];

const run = (status: RunRecord['status'], suspension: RunSuspension | null) => ({ status, suspension });

describe('waitingTask', () => {
  it('gives the task of a run suspended with kind TASK, without a node id', () => {
    const pending = task('t1');
    expect(waitingTask(run('suspended', { kind: 'TASK', pending }))).toEqual({ nodeId: null, pending });
  });

  it('is null for a run that is not suspended, even with a task suspension left on it', () => {
    const suspension: RunSuspension = { kind: 'TASK', pending: task('t1') };
    for (const status of ['running', 'completed', 'failed', 'cancelled'] as const)
      expect(waitingTask(run(status, suspension)), status).toBeNull();
    expect(waitingTask(run('suspended', null))).toBeNull();
  });

  it('is null for an approval or a question, and for a TASK kind whose item has no task', () => {
    expect(waitingTask(run('suspended', { kind: 'APPROVAL', pending: approval }))).toBeNull();
    expect(waitingTask(run('suspended', { kind: 'FOLLOW_UP', pending: question }))).toBeNull();
    expect(waitingTask(run('suspended', { kind: 'TASK', pending: question }))).toBeNull();
    // a task item under another kind is not waited for as a task
    expect(waitingTask(run('suspended', { kind: 'FOLLOW_UP', pending: task('t1') }))).toBeNull();
  });

  it("with parallel branches, gives the first TASK item's, with its branch's node", () => {
    const first = task('t1');
    const second = task('t2');
    const items: WaitingItem[] = [
      { kind: 'APPROVAL', nodeId: 'approve', pending: approval },
      { kind: 'TASK', nodeId: 'export-a', pending: first },
      { kind: 'TASK', nodeId: 'export-b', pending: second },
    ];
    expect(waitingTask(run('suspended', { kind: 'APPROVAL', pending: approval, items }))).toEqual({
      nodeId: 'export-a',
      pending: first,
    });
  });

  it('reads only the items when there are some: none of them a task is null, whatever the first pending is', () => {
    const items: WaitingItem[] = [
      { kind: 'APPROVAL', nodeId: 'a', pending: approval },
      { kind: 'FOLLOW_UP', nodeId: 'b', pending: question },
    ];
    expect(waitingTask(run('suspended', { kind: 'TASK', pending: task('t1'), items }))).toBeNull();
    expect(waitingTask(run('suspended', { kind: 'TASK', pending: task('t1'), items: [] }))).toBeNull();
  });

  it('gives a null node for an item whose node id is empty', () => {
    const pending = task('t3');
    const items: WaitingItem[] = [{ kind: 'TASK', nodeId: '', pending }];
    expect(waitingTask(run('suspended', { kind: 'TASK', pending, items }))).toEqual({
      nodeId: null,
      pending,
    });
  });
});
