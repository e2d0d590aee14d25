import { afterEach, describe, expect, it } from 'vitest';
import type { FlowInput } from '../../src/domain/flow.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  recordingModel,
  script,
  toolKit,
  turn,
} from '../runtime/helpers.js';

type Edges = NonNullable<FlowInput['edges']>;

/**
 * Nodes run one at a time along edges; `when` is JSONata over {status, outputs, input}. Through a
 * whole runtime; the edge choice and the run's ends behind a fake host are in graph-runner.test.ts.
 */
describe('graph execution', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  function rt(): Runtime {
    const runtime = makeRuntime(toolKit());
    runtimes.push(runtime);
    return runtime;
  }

  /** A flow: `start` (optional output `kind` from the model), then the leaf nodes the edges name. */
  function branching(edges: Edges) {
    const leaves = [...new Set(edges.flatMap((e) => e.to))];
    return flow({
      nodes: [{ id: 'start', outputs: { kind: { sources: ['model'] } } }, ...leaves.map((id) => ({ id }))],
      edges,
    });
  }

  /** Turns: start writes kind (unless null) and finishes, then each visited leaf finishes. */
  function visit(kind: string | null, ...leaves: string[]) {
    return script(
      ...(kind === null ? [] : [turn([call.output('kind', kind, 'model')], 'start')]),
      turn([call.finish()], 'start'),
      ...leaves.map((leaf) => turn([call.finish()], leaf)),
    );
  }

  async function nodesVisited(runtime: Runtime, runId: string): Promise<string[]> {
    return ofType(await eventsOf(runtime, runId), 'node.started').map((e) => String(e.nodeId));
  }

  it('takes the first edge whose `when` holds over the outputs, in file order', async () => {
    const edges: Edges = [
      { from: 'start', to: 'a', when: "outputs.kind = 'a'" },
      { from: 'start', to: 'b', when: "status = 'completed' and outputs.kind = 'b'" },
      { from: 'start', to: 'c', when: '$exists(outputs.kind)' },
      { from: 'start', to: 'a' },
    ];
    const loaded = await branching(edges);
    const runtime = rt();
    const b = await runtime.start(loaded, { input: { text: 'go' }, model: visit('b', 'b') });
    expect(b.status).toBe('completed');
    expect(await nodesVisited(runtime, b.runId)).toEqual(['start', 'b']);
    const c = await runtime.start(loaded, { input: { text: 'go' }, model: visit('zzz', 'c') });
    expect(await nodesVisited(runtime, c.runId)).toEqual(['start', 'c']);
    const plain = await runtime.start(loaded, { input: { text: 'go' }, model: visit(null, 'a') });
    expect(await nodesVisited(runtime, plain.runId)).toEqual(['start', 'a']);
    expect(plain.outputs).toEqual({ start: {}, a: {} });
  });

  it('templated instructions reach the system prompt; outputs are keyed by node id; run.completed carries them', async () => {
    const loaded = await flow({
      nodes: [
        {
          id: 'query',
          instructions: 'Look up items for: {{input.text}}',
          tools: ['lookup'],
          outputs: {
            sites: { required: true, sources: ['evidence'], from: ['lookup'] },
            note: { sources: ['model'] },
          },
        },
        { id: 'check', instructions: 'Nothing to write here.' },
        {
          id: 'create',
          instructions: 'Create from {{nodes.query.outputs.sites}} ({{nodes.query.outputs.note}}).',
        },
      ],
      edges: [
        { from: 'query', to: 'check' },
        { from: 'check', to: 'create', when: "status = 'completed'" },
      ],
    });
    const model = recordingModel(
      turn([call.tool('lookup', { id: 7 })], 'query'),
      turn(
        [
          call.output('sites', { id: 7, name: 'item-7' }, 'evidence', 'ev_1'),
          call.output('note', 'two sites', 'model'),
        ],
        'query',
      ),
      turn([call.finish()], 'query'),
      turn([call.finish()], 'check'),
      turn([call.finish()], 'create'),
    );
    const runtime = rt();
    const run = await runtime.start(loaded, { input: { text: 'my shop' }, model });
    expect(run.status).toBe('completed');
    const expected = {
      query: { sites: { id: 7, name: 'item-7' }, note: 'two sites' },
      check: {},
      create: {},
    };
    expect(run.outputs).toEqual(expected);
    expect(model.requests[0]?.system).toContain('Look up items for: my shop');
    const createPrompt = model.requests[4]?.system ?? '';
    expect(createPrompt).toContain('Create from {"id":7,"name":"item-7"} (two sites).');
    const events = await eventsOf(runtime, run.runId);
    expect(ofType(events, 'run.completed')[0]?.outputs).toEqual(expected);
    expect(ofType(events, 'node.completed').map((e) => [e.nodeId, e.outputs])).toEqual([
      ['query', expected.query],
      ['check', {}],
      ['create', {}],
    ]);
    // Each node run has its own conversation: the create node starts from the user input alone.
    expect(model.requests[4]?.messages.filter((m) => m.role !== 'user')).toEqual([]);
    expect(model.contexts.map((c) => c.nodeId)).toEqual(['query', 'query', 'query', 'check', 'create']);
  });
});
