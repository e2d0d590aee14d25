// The flow, run with the scripted model and the real MCP server: `npm test` (node --test).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runFlow, eventsOf, startFakeModel } from 'g2rain-agent-runtime/testing';

const FLOW = fileURLToPath(new URL('../flow.yaml', import.meta.url));
const TURNS = fileURLToPath(new URL('../turns.yaml', import.meta.url));

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

// The same path through a model API over HTTP: a stand-in OpenAI server on loopback answers each
// request with the next turn of turns.yaml and refuses what OpenAI refuses (a malformed conversation,
// an unknown model, a wrong key) — so the requests the runtime sends a real provider are checked too.
test('talks to a model API: the stand-in OpenAI server plays the same turns', async () => {
  const fake = await startFakeModel({ kind: 'openai', script: TURNS, models: ['gpt-4.1'] });
  const env = { ...process.env, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.key };
  const run = await runFlow(FLOW, { input: 'Add a task: water the plants', model: 'openai:gpt-4.1', env });
  try {
    assert.equal(run.summary.suspension?.kind, 'APPROVAL');
    const done = await run.approve({ comment: 'fine' });
    assert.equal(done.status, 'completed');
    assert.equal(fake.refusals().length, 0);
    assert.ok(fake.requests.length >= 5, 'every model turn went over HTTP');
  } finally {
    await run.close();
    await fake.close();
  }
});
