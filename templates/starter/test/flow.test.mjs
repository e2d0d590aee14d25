// The flow, run with the scripted model and the real MCP server: `npm test` (node --test).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runFlow, eventsOf } from 'g2rain-agent-runtime/testing';

const FLOW = fileURLToPath(new URL('../flow.yaml', import.meta.url));

test('asks before adding the task, then adds it once approved', async () => {
  const run = await runFlow(FLOW, { input: 'Add a task: water the plants' });
  try {
    assert.equal(run.summary.status, 'suspended');
    assert.equal(run.summary.suspension?.kind, 'APPROVAL');

    const done = await run.approve({ comment: 'fine' });
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.outputs.add, { taskId: 'water-the-plants' });

    const calls = eventsOf(await run.trace(), 'tool.invoked').map((e) => `${e.tool}:${e.outcome}`);
    assert.deepEqual(calls, [
      'task_list:SUCCESS',
      'task_add:DEFERRED', // a write without approval is not sent: the model is told to ask first
      'builtin_node_approval:SUCCESS',
      'task_add:SUCCESS',
      'builtin_output_set:SUCCESS',
      'builtin_node_finish:SUCCESS',
    ]);
  } finally {
    await run.close();
  }
});

// turns.yaml plays the approving path, so after a rejection the scripted run soon fails (its next turns
// no longer fit); a real model would stop or ask. What matters here: the write is never sent.
test('a rejected write is never sent', async () => {
  const run = await runFlow(FLOW, { input: 'Add a task: water the plants' });
  try {
    await run.reject({ comment: 'not now' });
    const adds = eventsOf(await run.trace(), 'tool.invoked').filter((e) => e.tool === 'task_add');
    assert.ok(
      adds.every((e) => e.outcome !== 'SUCCESS'),
      'task_add must not succeed after a rejection',
    );
  } finally {
    await run.close();
  }
});
