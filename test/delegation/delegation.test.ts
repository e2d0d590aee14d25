import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { scriptedModel } from '../../src/model/scripted.js';
import type { ModelClient } from '../../src/model/model.js';
import { createRuntime } from '../../src/runtime/create.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Commit, NewRun, RunRecord, StoredEvent } from '../../src/store/store.js';
import { defineTool } from '../../src/tools/tool.js';

let dir: string;
let writes: unknown[];

const createOrder = () =>
  defineTool<{ item: string }>({
    name: 'order_create',
    description: 'Create an order',
    write: true,
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    execute: (args) => {
      writes.push(args);
      return { orderId: `o${writes.length}` };
    },
  });

const CHILD = `
id: ordering
locale: en
model: scripted:./child-turns.yaml
nodes:
  - id: order
    instructions: Place the order.
    tools: [order_create]
    outputs:
      orderId: { required: true, sources: [evidence], from: [order_create] }
`;

const CHILD_TURNS = `
turns:
  - calls: [{ tool: order_create, args: { item: tea } }]
  - calls: [{ tool: builtin_node_approval, args: { tool: order_create, summary: order tea } }]
  - calls: [{ tool: order_create, args: { item: tea } }]
  - calls: [{ tool: builtin_output_set, args: { key: orderId, value: o1, sourceType: evidence, sourceRef: ev_1 } }]
  - calls: [{ tool: builtin_node_finish, args: { summary: ordered } }]
`;

function parentFlow() {
  return {
    id: 'assistant',
    locale: 'en',
    nodes: [{ id: 'main', instructions: 'Delegate ordering.', delegates: ['./child.yaml'] }],
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'delegation-'));
  writes = [];
  writeFileSync(join(dir, 'child.yaml'), CHILD);
  writeFileSync(join(dir, 'child-turns.yaml'), CHILD_TURNS);
});

afterEach(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

describe('builtin_node_delegate runs a child run', () => {
  it('suspends the parent with the child pending item, routes the approval to the child, and returns its outputs', async () => {
    const runtime = createRuntime({
      store: `sqlite:${join(dir, 'rt.db')}`,
      tools: [createOrder()],
      logger: false,
    });
    const flow = await loadFlow(parentFlow(), { baseDir: dir });
    const model = scriptedModel({
      turns: [
        { calls: [{ tool: 'builtin_node_delegate', args: { flow: 'ordering', task: 'order tea' } }] },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
      ],
    });
    const first = await runtime.start(flow, { input: { text: 'please order tea' }, model });
    expect(first.status).toBe('suspended');
    expect(first.suspension).toMatchObject({
      kind: 'APPROVAL',
      pending: { tool: 'order_create', args: { item: 'tea' } },
    });
    const children = await runtime.list({ parentRunId: first.runId });
    expect(children).toHaveLength(1);
    const child = children[0]!;
    expect(child.status).toBe('suspended');

    const done = await runtime.approve(first.runId, { comment: 'fine', who: 'ana' });
    expect(done.status).toBe('completed');
    expect(writes).toEqual([{ item: 'tea' }]);
    expect((await runtime.status(child.runId)).status).toBe('completed');

    const parentEvents = [];
    for await (const e of runtime.events(first.runId, { follow: false })) parentEvents.push(e);
    const delegateCall = parentEvents.find(
      (e) => e.type === 'tool.invoked' && e.tool === 'builtin_node_delegate',
    );
    expect(delegateCall).toMatchObject({ outcome: 'SUCCESS', executed: false });
    expect(parentEvents.some((e) => e.type === 'tool.invoked' && e.tool === 'order_create')).toBe(false);
    const childEvents = [];
    for await (const e of runtime.events(child.runId, { follow: false })) childEvents.push(e);
    expect(childEvents[0]).toMatchObject({ type: 'run.started', parentRunId: first.runId });
    expect(childEvents.filter((e) => e.type === 'run.resumed')).toEqual([
      expect.objectContaining({ decision: 'approved', who: 'ana', comment: 'fine' }),
    ]);
    await runtime.close();
  });

  it('a flow outside the node delegates is REJECTED DELEGATION_OUT_OF_BOUNDS', async () => {
    const runtime = createRuntime({ store: 'memory', tools: [createOrder()], logger: false });
    const flow = await loadFlow(parentFlow(), { baseDir: dir });
    const model = scriptedModel({
      turns: [
        { calls: [{ tool: 'builtin_node_delegate', args: { flow: 'elsewhere', task: 'x' } }] },
        { calls: [{ tool: 'builtin_node_fail', args: { reason: 'cannot' } }] },
      ],
    });
    const run = await runtime.start(flow, { input: { text: 'x' }, model });
    expect(run.status).toBe('failed');
    const events = [];
    for await (const e of runtime.events(run.runId, { follow: false })) events.push(e);
    expect(events.find((e) => e.type === 'tool.invoked')).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'DELEGATION_OUT_OF_BOUNDS',
    });
    expect(writes).toEqual([]);
    await runtime.close();
  });

  it('commits the turn that delegates before the child run exists', async () => {
    const seenAtChildStart: string[][] = [];
    class Watching extends MemoryStore {
      override async createRun(run: NewRun, events: StoredEvent[]): Promise<RunRecord> {
        if (run.parentRunId) seenAtChildStart.push((await this.events(run.parentRunId)).map((e) => e.type));
        return super.createRun(run, events);
      }
    }
    const runtime = createRuntime({ store: new Watching(), tools: [createOrder()], logger: false });
    const flow = await loadFlow(parentFlow(), { baseDir: dir });
    const model = scriptedModel({
      turns: [{ calls: [{ tool: 'builtin_node_delegate', args: { flow: 'ordering', task: 'order tea' } }] }],
    });
    expect((await runtime.start(flow, { input: { text: 'x' }, model })).status).toBe('suspended');
    expect(seenAtChildStart).toHaveLength(1);
    expect(seenAtChildStart[0]?.slice(-2)).toEqual(['react.round', 'model.response']);
    await runtime.close();
  });

  it('a run cancelled before its delegate commits starts no child, and the delegate is not a tool failure', async () => {
    const store = new MemoryStore();
    const canceller = createRuntime({ store, tools: [createOrder()], logger: false });
    const runtime = createRuntime({ store, tools: [createOrder()], logger: false });
    const flow = await loadFlow(parentFlow(), { baseDir: dir });
    const inner = scriptedModel({
      turns: [{ calls: [{ tool: 'builtin_node_delegate', args: { flow: 'ordering', task: 'order tea' } }] }],
    });
    let runId = '';
    const model: ModelClient = {
      id: 'cancelling',
      async call(request, context) {
        // Another process cancels the run while the model answers.
        await canceller.cancel(runId);
        return inner.call(request, context);
      },
    };
    const run = await runtime.start(flow, {
      input: { text: 'x' },
      model,
      onAccepted: (s) => (runId = s.runId),
    });
    expect(run.status).toBe('cancelled');
    expect(await runtime.list({ parentRunId: runId })).toEqual([]);
    const events = [];
    for await (const e of runtime.events(runId, { follow: false })) events.push(e);
    expect(events.map((e) => e.type)).not.toContain('tool.invoked');
    expect(events.at(-1)).toMatchObject({ type: 'run.cancelled' });
    await runtime.close();
    await canceller.close();
  });

  it("a store failure at the delegate's commit is that failure, not a failed delegation", async () => {
    class FailingOnce extends MemoryStore {
      failed = false;
      override commit(commit: Commit): Promise<RunRecord> {
        if (!this.failed && (commit.events ?? []).some((e) => e.type === 'model.response')) {
          this.failed = true;
          return Promise.reject(new Error('database is locked'));
        }
        return super.commit(commit);
      }
    }
    const store = new FailingOnce();
    const runtime = createRuntime({ store, tools: [createOrder()], logger: false });
    const flow = await loadFlow(parentFlow(), { baseDir: dir });
    const model = scriptedModel({
      turns: [{ calls: [{ tool: 'builtin_node_delegate', args: { flow: 'ordering', task: 'order tea' } }] }],
    });
    let runId = '';
    await expect(
      runtime.start(flow, { input: { text: 'x' }, model, onAccepted: (s) => (runId = s.runId) }),
    ).rejects.toThrow('database is locked');
    expect(store.failed).toBe(true);
    expect(await runtime.list({ parentRunId: runId })).toEqual([]);
    const events = [];
    for await (const e of runtime.events(runId, { follow: false })) events.push(e);
    expect(events.map((e) => e.type)).not.toContain('tool.invoked');
    await runtime.close();
  });

  it("a child run started with the parent's model object is continued with the model the parent is resumed with", async () => {
    writeFileSync(join(dir, 'plain.yaml'), 'id: plain\nlocale: en\nnodes: [{ id: step }]\n');
    const store = `sqlite:${join(dir, 'rt.db')}`;
    const first = createRuntime({ store, logger: false });
    const flow = await loadFlow(
      { id: 'assistant', locale: 'en', nodes: [{ id: 'main', delegates: ['./plain.yaml'] }] },
      { baseDir: dir },
    );
    const delegate = { tool: 'builtin_node_delegate', args: { flow: 'plain', task: 'do it' } };
    let childAsked!: () => void;
    const childStarted = new Promise<void>((resolve) => (childAsked = resolve));
    // The first process: the parent delegates; the child's model call hangs until the process stops.
    const hanging: ModelClient = {
      id: 'object-a',
      call(request, context) {
        if (context.nodeId === 'main')
          return scriptedModel({ turns: [{ calls: [delegate] }] }).call(request, context);
        childAsked();
        return new Promise((resolve) =>
          request.signal?.addEventListener('abort', () => resolve({ ok: false, message: 'stopped' })),
        );
      },
    };
    let runId = '';
    const running = first.start(flow, {
      input: { text: 'x' },
      model: hanging,
      onAccepted: (s) => (runId = s.runId),
    });
    await childStarted;
    await first.close();
    await running.catch(() => undefined);
    // A fresh process, once the dead driver's leases have expired, resumes the parent with another
    // model object; the child has no model of its own.
    const second = createRuntime({ store, logger: false, clock: () => Date.now() + 3_600_000 });
    const [child] = await (await second.db()).listRuns({ parentRunId: runId });
    expect(child).toMatchObject({ status: 'running', model: null });
    const finishing: ModelClient = {
      id: 'object-b',
      call: (request, context) =>
        scriptedModel({
          turns:
            context.nodeId === 'main'
              ? [
                  { calls: [delegate] },
                  { calls: [{ tool: 'builtin_node_finish', args: { summary: 'parent done' } }] },
                ]
              : [{ calls: [{ tool: 'builtin_node_finish', args: { summary: 'child done' } }] }],
        }).call(request, { ...context, callIndex: context.nodeId === 'main' ? context.callIndex : 0 }),
    };
    const done = await second.resume(runId, { model: finishing });
    expect(done.status).toBe('completed');
    expect(await second.status(child!.runId)).toMatchObject({ status: 'completed' });
    await second.close();
  });
});
