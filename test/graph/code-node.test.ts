import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeStep, CodeStepContext } from '../../src/domain/code-step.js';
import { loadFlow, loadFlowText } from '../../src/flow/load.js';
import { FlowError } from '../../src/flow/problems.js';
import type { CodeFlowInput } from '../../src/flow/typed-outputs.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  makeRuntime,
  ofType,
  script,
  sqliteUrl,
  tempDir,
  toolKit,
  turn,
} from '../runtime/helpers.js';

const KNOWN = { knownTools: ['lookup', 'noop', 'broken', 'save'] };

describe('code nodes', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  const runtime = (kit = toolKit(), options: Parameters<typeof makeRuntime>[1] = {}) => {
    const r = makeRuntime(kit, options);
    runtimes.push(r);
    return r;
  };

  it('runs a function with the input and earlier outputs, between model nodes, and returns its outputs', async () => {
    const seen: CodeStepContext[] = [];
    const flow: CodeFlowInput = {
      id: 'plan-and-sum',
      locale: 'en',
      input: { type: 'object', properties: { items: { type: 'array', items: { type: 'number' } } } },
      nodes: [
        {
          id: 'plan',
          outputs: { count: { required: true, schema: { type: 'integer' } } },
          run: (ctx) => {
            seen.push(ctx);
            return { count: (ctx.input as { items: number[] }).items.length };
          },
        },
        { id: 'look', tools: ['lookup'], outputs: { name: { required: true, sources: ['evidence'] } } },
        {
          id: 'sum',
          outputs: { total: { required: true } },
          run: (ctx) => {
            ctx.reply(`${String(ctx.nodes.look?.name)}: ${String(ctx.nodes.plan?.count)} items`);
            return { total: (ctx.input as { items: number[] }).items.reduce((a, b) => a + b, 0) };
          },
        },
      ],
      edges: [
        { from: 'plan', to: 'look' },
        { from: 'look', to: 'sum' },
      ],
    };
    const summary = await runtime().start(await loadFlow(flow, KNOWN), {
      input: { items: [2, 3, 5] },
      model: script(
        turn([call.tool('lookup', { id: 7 })]),
        turn([call.output('name', 'item-7', 'evidence', 'ev_1'), call.finish('found it')]),
      ),
    });
    expect(summary.status).toBe('completed');
    expect(summary.outputs).toEqual({ plan: { count: 3 }, look: { name: 'item-7' }, sum: { total: 10 } });
    expect(summary.reply).toBe('item-7: 3 items');
    expect(seen[0]?.nodes).toEqual({});
  });

  /** A code node that looks an item up and saves its name (a write, so it needs an approval). */
  const saver = (log: string[] = []): CodeFlowInput => ({
    id: 'saver',
    locale: 'en',
    tools: { save: { write: true } },
    nodes: [
      {
        id: 'file',
        tools: ['lookup', 'save'],
        outputs: { saved: { required: true }, outcome: {} },
        run: async (ctx) => {
          log.push('run');
          const found = await ctx.tools.call('lookup', { id: 7 });
          const name = (found.data as { name: string }).name;
          const saved = await ctx.tools.call('save', { name });
          return { saved: saved.ok ? name : null, outcome: saved.outcome };
        },
      },
    ],
  });

  it('sends its calls through the guard chain: a write suspends for approval, and runs once after it', async () => {
    const kit = toolKit();
    const log: string[] = [];
    const rt = runtime(kit);
    const started = await rt.start(await loadFlow(saver(log), KNOWN), {
      input: { text: 'x' },
      model: script(),
    });
    expect(started.status).toBe('suspended');
    expect(started.suspension?.kind).toBe('APPROVAL');
    expect(started.suspension?.pending).toMatchObject({ tool: 'save', args: { name: 'item-7' } });
    expect(kit.count('save')).toBe(0);
    const done = await rt.approve(started.runId, { who: 'ops' });
    expect(done.status).toBe('completed');
    expect(done.outputs).toEqual({ file: { saved: 'item-7', outcome: 'SUCCESS' } });
    // The function ran twice; the lookup it made before the approval was not made again.
    expect(log).toEqual(['run', 'run']);
    expect(kit.count('lookup')).toBe(1);
    expect(kit.count('save')).toBe(1);
    const invoked = ofType(await eventsOf(rt, started.runId), 'tool.invoked').map((e) => {
      const p = e as unknown as { tool: string; outcome: string; executed: boolean };
      return `${p.tool} ${p.outcome}${p.executed ? ' executed' : ''}`;
    });
    expect(invoked).toEqual([
      'lookup SUCCESS executed',
      'save DEFERRED',
      'builtin_node_approval SUCCESS',
      'save SUCCESS executed',
    ]);
    const evidence = await rt.evidence(started.runId);
    expect(evidence.map((e) => `${e.id} ${e.tool}`)).toEqual(['ev_1 lookup', 'ev_2 save']);
  });

  it('gives the function the rejection when the person declines the write', async () => {
    const kit = toolKit();
    const rt = runtime(kit);
    const started = await rt.start(await loadFlow(saver(), KNOWN), { input: { text: 'x' }, model: script() });
    const done = await rt.reject(started.runId, { comment: 'not now' });
    expect(done.status).toBe('completed');
    expect(done.outputs).toEqual({ file: { saved: null, outcome: 'REJECTED' } });
    expect(kit.count('save')).toBe(0);
  });

  it('is continued by a fresh runtime on the same SQLite file when the flow is given to it', async () => {
    const store = sqliteUrl();
    const kit = toolKit();
    const first = runtime(kit, { store });
    const started = await first.start(await loadFlow(saver(), KNOWN), {
      input: { text: 'x' },
      model: script(),
    });
    await first.close();
    runtimes.splice(runtimes.indexOf(first), 1);
    // A runtime that was not given the flow cannot run its function: the run fails, and can be retried.
    const blind = runtime(kit, { store });
    const failed = await blind.approve(started.runId, { model: script() });
    expect(failed.status).toBe('failed');
    expect(failed.reason).toBe('CODE_NODE_UNAVAILABLE');
    expect(failed.message).toContain('createRuntime({ flows })');
    await blind.close();
    runtimes.splice(runtimes.indexOf(blind), 1);
    const knowing = runtime(kit, { store, flows: [saver()] });
    const done = await knowing.retry(started.runId, { model: script() });
    expect(done.status).toBe('completed');
    expect(kit.count('lookup')).toBe(1);
    expect(kit.count('save')).toBe(1);
  });

  it('fails the node, naming what is wrong, when the function throws or returns outputs it does not declare', async () => {
    const cases: [CodeStep, string, string][] = [
      [
        () => {
          throw new RangeError('no ledger for 2020');
        },
        'CODE_NODE_ERROR',
        'RangeError: no ledger for 2020',
      ],
      [
        () => ({ total: 1, extra: 2 }),
        'CODE_NODE_OUTPUTS',
        'returned an undeclared output extra; its outputs: total',
      ],
      [() => ({}), 'CODE_NODE_OUTPUTS', 'did not return its required outputs: total'],
      [() => ({ total: 'x' }), 'CODE_NODE_OUTPUTS', 'output total does not match its schema'],
      [() => [1], 'CODE_NODE_OUTPUTS', 'returned an array; expected an object of its outputs'],
      [
        async (ctx) => {
          await ctx.tools.call('broken');
          return { total: 1 };
        },
        'CODE_NODE_ERROR',
        'may call only its tools (lookup); got broken',
      ],
    ];
    for (const [run, reason, message] of cases) {
      const flow: CodeFlowInput = {
        id: 'bad',
        locale: 'en',
        nodes: [
          {
            id: 'sum',
            tools: ['lookup'],
            outputs: { total: { required: true, schema: { type: 'number' } } },
            run,
          },
        ],
      };
      const summary = await runtime().start(await loadFlow(flow, KNOWN), {
        input: { text: 'x' },
        model: script(),
      });
      expect(summary.status, message).toBe('failed');
      expect(summary.reason).toBe(reason);
      expect(summary.message).toContain(message);
    }
  });

  it("reads a YAML flow's module: ./file.mjs#name from the flow's folder", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'steps.mjs'),
      'export async function total(ctx) { const r = await ctx.tools.call("lookup", { id: ctx.input.id }); return { total: r.data.id * 2 }; }\n',
    );
    const path = join(dir, 'flow.yaml');
    writeFileSync(
      path,
      [
        'id: yaml-code',
        'locale: en',
        'input: { type: object, properties: { id: { type: integer } } }',
        'nodes:',
        '  - id: sum',
        '    tools: [lookup]',
        '    module: ./steps.mjs#total',
        '    outputs: { total: { required: true } }',
        '',
      ].join('\n'),
    );
    const kit = toolKit();
    const summary = await runtime(kit).start(await loadFlow(path, KNOWN), {
      input: { id: 21 },
      model: script(),
    });
    expect(summary.status).toBe('completed');
    expect(summary.outputs).toEqual({ sum: { total: 42 } });
    expect(kit.count('lookup')).toBe(1);
  });
});

describe('code nodes in the flow format', () => {
  const problemsOf = async (load: () => Promise<unknown>): Promise<string[]> => {
    try {
      await load();
    } catch (error) {
      if (error instanceof FlowError) return error.problems.map((p) => `${p.path}: ${p.message}`);
      throw error;
    }
    return [];
  };

  it('refuses module in a flow sent over HTTP (a request flow), before anything is imported', async () => {
    const text = 'id: f\nnodes:\n  - id: a\n    module: ./steps.mjs#run\n';
    expect(await problemsOf(() => loadFlowText(text, { confineTo: null }))).toEqual([
      "nodes[0].module: code nodes are not accepted in flows sent over HTTP; put the flow in the server's flows folder (serve --flows)",
    ]);
  });

  it('names a missing module, a missing export, a path out of the folder and keys a code node cannot have', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'steps.mjs'), 'export function one() { return {}; }\nexport const two = 2;\n');
    let files = 0;
    const write = (node: string) => {
      const path = join(dir, `flow-${(files += 1)}.yaml`);
      writeFileSync(path, `id: f\nnodes:\n  - id: a\n${node}`);
      return path;
    };
    expect(await problemsOf(() => loadFlow(write('    module: ./nope.mjs#one\n')))).toEqual([
      "nodes[0].module: module ./nope.mjs not found in the flow's folder",
    ]);
    expect(await problemsOf(() => loadFlow(write('    module: ./steps.mjs#three\n')))).toEqual([
      'nodes[0].module: ./steps.mjs has no export three; its functions: one',
    ]);
    expect(await problemsOf(() => loadFlow(write('    module: ./steps.mjs#two\n')))).toEqual([
      "nodes[0].module: ./steps.mjs's export two is not a function; its functions: one",
    ]);
    expect(await problemsOf(() => loadFlow(write('    module: ./sub/../../x.mjs#one\n')))).toEqual([
      "nodes[0].module: ./sub/../../x.mjs leaves the flow's folder; expected a module inside it (./file.mjs#name)",
    ]);
    expect(await problemsOf(() => loadFlow(write('    module: steps.mjs\n')))).toEqual([
      expect.stringContaining('nodes[0].module: expected <relative path of an ES module>#<export name>'),
    ]);
    expect(
      await problemsOf(() => loadFlow(write('    module: ./steps.mjs#one\n    instructions: think\n'))),
    ).toEqual([
      'nodes[0].instructions: a code node runs its function, not a model: remove instructions (or run and module)',
    ]);
    expect(await problemsOf(() => loadFlow(write('    run: inline\n')))).toEqual([
      expect.stringContaining('nodes[0].run: run: inline is set by flows written in code'),
    ]);
  });

  it('keeps sources required for model nodes and fills in code for code nodes', async () => {
    const loaded = await loadFlow({
      id: 'f',
      nodes: [{ id: 'a', outputs: { n: {} }, run: () => ({ n: 1 }) }],
    } satisfies CodeFlowInput);
    expect(loaded.flow.nodes[0]?.outputs.n?.sources).toEqual(['code']);
    expect(loaded.flow.nodes[0]?.run).toBe('inline');
    expect(
      await problemsOf(() => loadFlow({ id: 'f', nodes: [{ id: 'a', outputs: { n: {} } }] } as never)),
    ).toEqual(['nodes[0].outputs.n.sources: required; expected a list']);
  });
});
