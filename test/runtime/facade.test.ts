import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { StoredEvent } from '../../src/store/store.js';
import {
  call,
  eventsOf,
  flow,
  gatedModel,
  makeRuntime,
  ofType,
  script,
  sqliteUrl,
  tempDir,
  toolKit,
  turn,
  typesOf,
  type ToolKit,
} from './helpers.js';

/** The embedded runtime's public methods. */
describe('Runtime facade', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  function rt(
    kit: ToolKit = toolKit(),
    store?: string,
    extra: Parameters<typeof makeRuntime>[1] = {},
  ): Runtime {
    const runtime = makeRuntime(kit, { ...(store ? { store } : {}), ...extra });
    runtimes.push(runtime);
    return runtime;
  }

  const approvalTurns = () => [
    turn([call.tool('save', { name: 'a' })]),
    turn([call.approval('save', 'save a')]),
    turn([call.tool('save', { name: 'a' })]),
    turn([call.finish()]),
  ];
  const saveFlow = () => flow({ nodes: [{ id: 'work', tools: ['save', 'lookup'] }] });

  it('start → suspended summary; approve → completed; usage is summed from the turns', async () => {
    const kit = toolKit();
    const runtime = rt(kit);
    const turns = approvalTurns().map((t, i) => ({
      ...t,
      usage: { inputTokens: 100 * (i + 1), outputTokens: i + 1 },
    }));
    const first = await runtime.start(await saveFlow(), {
      input: { text: 'save a' },
      model: script(...turns),
    });
    expect(first).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'APPROVAL', pending: { tool: 'save', args: { name: 'a' }, summary: 'save a' } },
      outputs: {},
      usage: { inputTokens: 300, outputTokens: 3, totalTokens: 303 },
      flowId: 'test-flow',
    });
    expect(first.runId).toMatch(/^run_/);
    expect(first.reason).toBeUndefined();
    const done = await runtime.approve(first.runId, { comment: 'fine' });
    expect(done).toMatchObject({
      status: 'completed',
      outputs: { work: {} },
      usage: { inputTokens: 1000, outputTokens: 10, totalTokens: 1010 },
    });
    expect(done.suspension).toBeUndefined();
    expect(kit.count('save')).toBe(1);
    expect(await runtime.status(first.runId)).toEqual(done);
  });

  it('list: newest first, filtered by status', async () => {
    const runtime = rt();
    const loaded = await saveFlow();
    const a = await runtime.start(loaded, { input: { text: 'a' }, model: script(turn([call.finish()])) });
    const b = await runtime.start(loaded, { input: { text: 'b' }, model: script(...approvalTurns()) });
    const c = await runtime.start(loaded, { input: { text: 'c' }, model: script(turn([call.fail('no')])) });
    expect((await runtime.list()).map((s) => s.runId)).toEqual([c.runId, b.runId, a.runId]);
    expect((await runtime.list({ status: 'suspended' })).map((s) => s.runId)).toEqual([b.runId]);
    expect((await runtime.list({ status: 'failed' }))[0]).toMatchObject({
      runId: c.runId,
      reason: 'FAILED_BY_MODEL',
      failedNode: 'work',
      message: 'no',
    });
  });

  it('cancel: a suspended run is cancelled once; later responses and cancels conflict', async () => {
    const events: StoredEvent[] = [];
    const runtime = rt(toolKit(), undefined, { onEvent: (e) => events.push(e) });
    const first = await runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model: script(...approvalTurns()),
    });
    const cancelled = await runtime.cancel(first.runId);
    expect(cancelled).toMatchObject({ runId: first.runId, status: 'cancelled', reason: 'CANCELLED' });
    expect(cancelled.suspension).toBeUndefined();
    const stored = await eventsOf(runtime, first.runId);
    expect(stored.at(-1)).toMatchObject({ type: 'run.cancelled', reason: 'CANCELLED' });
    expect(events.at(-1)).toEqual(stored.at(-1));
    await expect(runtime.cancel(first.runId)).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
    await expect(runtime.approve(first.runId)).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
    const completed = await runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model: script(turn([call.finish()])),
    });
    await expect(runtime.cancel(completed.runId)).rejects.toThrow(/already ended \(completed\)/);
  });

  it('cancel while the run is being driven: the driver stops at its next step and nothing follows run.cancelled', async () => {
    const kit = toolKit();
    const runtime = rt(kit);
    const model = gatedModel(
      1,
      turn([call.tool('lookup', { id: 1 })]),
      turn([call.tool('lookup', { id: 2 })]),
      turn([call.finish()]),
    );
    let runId = '';
    const started = runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model,
      onAccepted: (s) => (runId = s.runId),
    });
    await model.reached;
    const follower = (async () => {
      const seen: StoredEvent[] = [];
      for await (const event of runtime.events(runId)) seen.push(event);
      return seen;
    })();
    expect(await runtime.cancel(runId)).toMatchObject({ status: 'cancelled' });
    model.release();
    expect(await started).toMatchObject({ status: 'cancelled' });
    expect(kit.calls.lookup).toEqual([{ id: 1 }]);
    const events = await eventsOf(runtime, runId);
    expect(events.at(-1)).toMatchObject({ type: 'run.cancelled' });
    expect((await follower).at(-1)).toMatchObject({ type: 'run.cancelled' });
    expect(await runtime.status(runId)).toMatchObject({ status: 'cancelled', reason: 'CANCELLED' });
  });

  it('unknown run ids throw RunNotFoundError', async () => {
    const runtime = rt();
    await expect(runtime.status('run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    await expect(runtime.approve('run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    await expect(runtime.answer('run_nope', 'x')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    await expect(runtime.cancel('run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    await expect(runtime.resume('run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
  });

  it('bad models are input errors before a run exists', async () => {
    const runtime = rt();
    const loaded = await saveFlow();
    await expect(runtime.start(loaded, { input: { text: 'x' } })).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
    });
    await expect(runtime.start(loaded, { input: { text: 'x' }, model: 'no-colon' })).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
    });
    await expect(
      runtime.start(loaded, { input: { text: 'x' }, model: 'scripted:/nonexistent/turns.yaml' }),
    ).rejects.toThrow(/cannot read scripted model file/);
    expect(await runtime.list()).toEqual([]);
  });

  it('answer to a run waiting for approval: RunConflictError and the store is unchanged', async () => {
    const db = sqliteUrl();
    const runtime = rt(toolKit(), db);
    const first = await runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model: script(...approvalTurns()),
    });
    const store = await runtime.db();
    const before = { row: await store.getRun(first.runId), events: await store.events(first.runId) };
    await expect(runtime.answer(first.runId, 'yes')).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
    await expect(runtime.answer(first.runId, 'yes')).rejects.toThrow(
      /waits for an approval, not for an answer/,
    );
    await expect(runtime.resume(first.runId)).rejects.toThrow(/is suspended, not running/);
    expect({ row: await store.getRun(first.runId), events: await store.events(first.runId) }).toEqual(before);
  });

  it('approve to a run waiting for an answer conflicts and changes nothing', async () => {
    const runtime = rt();
    const first = await runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model: script(turn([call.ask('Which?')])),
    });
    const store = await runtime.db();
    const before = { row: await store.getRun(first.runId), events: await store.events(first.runId) };
    await expect(runtime.approve(first.runId)).rejects.toThrow(/waits for an answer, not for an approval/);
    await expect(runtime.reject(first.runId)).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
    expect({ row: await store.getRun(first.runId), events: await store.events(first.runId) }).toEqual(before);
  });

  it('reject: the approval call is REJECTED APPROVAL_DENIED with the comment; the write never runs', async () => {
    const kit = toolKit();
    const runtime = rt(kit);
    const turns = [
      turn([call.tool('save', { name: 'a' })]),
      turn([call.approval('save')]),
      turn([call.fail('declined')]),
    ];
    const first = await runtime.start(await saveFlow(), { input: { text: 'x' }, model: script(...turns) });
    const end = await runtime.reject(first.runId, { comment: 'not today', who: 'cy' });
    expect(end).toMatchObject({ status: 'failed', reason: 'FAILED_BY_MODEL' });
    const events = await eventsOf(runtime, first.runId);
    expect(ofType(events, 'run.resumed')[0]).toMatchObject({
      kind: 'APPROVAL',
      decision: 'rejected',
      comment: 'not today',
      who: 'cy',
    });
    const approval = ofType(events, 'tool.invoked').find((e) => e.tool === 'builtin_node_approval');
    expect(approval).toMatchObject({ outcome: 'REJECTED', errorCode: 'APPROVAL_DENIED' });
    expect(String(approval?.message)).toContain('not today');
    expect(kit.count('save')).toBe(0);
  });

  it('a run started with a model object cannot be continued elsewhere without a model', async () => {
    const db = sqliteUrl();
    const first = await rt(toolKit(), db).start(await saveFlow(), {
      input: { text: 'x' },
      model: script(...approvalTurns()),
    });
    await expect(rt(toolKit(), db).approve(first.runId)).rejects.toThrow(/pass the model to continue it/);
  });

  it('a model given to a continuing call becomes the run model from then on', async () => {
    const dir = tempDir();
    const file = join(dir, 'later.yaml');
    writeFileSync(
      file,
      [
        'turns:',
        '  - { text: unused }',
        '  - { text: unused }',
        '  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which? } }] }',
        '  - { calls: [{ tool: builtin_node_finish, args: { summary: ok } }] }',
      ].join('\n'),
    );
    const db = sqliteUrl();
    const kit = toolKit();
    const first = await rt(kit, db).start(await saveFlow(), {
      input: { text: 'x' },
      model: script(turn([call.tool('save', { name: 'a' })]), turn([call.approval('save')])),
    });
    const second = rt(kit, db);
    const asked = await second.approve(first.runId, { model: `scripted:${file}` });
    expect(asked.status).toBe('suspended');
    expect((await (await second.db()).getRun(first.runId))?.model).toBe(`scripted:${file}`);
    const done = await rt(kit, db).answer(first.runId, 'that');
    expect(done.status).toBe('completed');
  });

  it('a bad model on a continuing call is refused before anything changes; another process then continues', async () => {
    const db = sqliteUrl();
    const turns = [turn([call.ask('Which?')]), turn([call.finish()])];
    const runtime = rt(toolKit(), db);
    const first = await runtime.start(await saveFlow(), { input: { text: 'x' }, model: script(...turns) });
    const store = await runtime.db();
    const before = { row: await store.getRun(first.runId), events: await store.events(first.runId) };
    const bad = 'scripted:/nonexistent/turns.yaml';
    await expect(runtime.answer(first.runId, 'a', { model: bad })).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
    });
    expect({ row: await store.getRun(first.runId), events: await store.events(first.runId) }).toEqual(before);
    const done = await rt(toolKit(), db).answer(first.runId, 'a', { model: script(...turns) });
    expect(done.status).toBe('completed');
  });

  it('events: replay, then live until the run ends (same runtime)', async () => {
    const runtime = rt();
    const model = gatedModel(1, turn([call.tool('lookup', { id: 1 })]), turn([call.finish()]));
    let runId = '';
    const started = runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model,
      onAccepted: (s) => (runId = s.runId),
    });
    await model.reached;
    const seen: StoredEvent[] = [];
    for await (const event of runtime.events(runId)) {
      seen.push(event);
      if (seen.length === 1) model.release();
    }
    expect((await started).status).toBe('completed');
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.at(-1)?.type).toBe('run.completed');
    expect(seen).toEqual(await eventsOf(runtime, runId));
    const after = [];
    for await (const event of runtime.events(runId, { after: seen.length - 2 })) after.push(event.seq);
    expect(after).toEqual([seen.length - 1, seen.length]);
  });

  it('events of a run driven by another Runtime on the same SQLite file, until the end', async () => {
    const db = sqliteUrl();
    const driver = rt(toolKit(), db);
    const watcher = rt(toolKit(), db);
    const model = gatedModel(1, turn([call.tool('lookup', { id: 1 })]), turn([call.finish()]));
    let runId = '';
    const started = driver.start(await saveFlow(), {
      input: { text: 'x' },
      model,
      onAccepted: (s) => (runId = s.runId),
    });
    await model.reached;
    const seen: StoredEvent[] = [];
    for await (const event of watcher.events(runId)) {
      seen.push(event);
      if (seen.length === 1) model.release();
    }
    await started;
    expect(typesOf(seen).slice(0, 2)).toEqual(['run.started', 'node.started']);
    expect(seen.at(-1)?.type).toBe('run.completed');
    expect(seen).toEqual(await eventsOf(driver, runId));
  });
});
