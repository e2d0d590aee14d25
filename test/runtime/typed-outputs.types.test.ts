import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineFlow,
  loadFlow,
  scriptedModel,
  type FlowOutputs,
  type RunOutputs,
  type RunSummary,
} from '../../src/index.js';

/** Type-level checks (run by `tsc --noEmit -p .`), with one real run so the types describe real values. */
const counter = defineFlow({
  id: 'typed-counter',
  locale: 'en',
  nodes: [
    {
      id: 'count',
      outputs: {
        count: { required: true, sources: ['model'], schema: z.int().min(0) },
        detail: { sources: ['model'], schema: z.object({ total: z.number(), names: z.array(z.string()) }) },
        note: { sources: ['model'] },
      },
    },
    { id: 'report', outputs: { text: { required: true, sources: ['model'], schema: z.string() } } },
  ],
  edges: [{ from: 'count', to: 'report' }],
});

type Expected = {
  count?: { count: number; detail?: { total: number; names: string[] }; note?: unknown };
  report?: { text: string };
};

describe('typed run summaries from zod output schemas', () => {
  it('infers FlowOutputs from a code flow (node entries optional, required keys present)', () => {
    expectTypeOf<FlowOutputs<typeof counter>>().toEqualTypeOf<Expected>();
    // A flow without literal ids (e.g. loaded from YAML) has the untyped outputs.
    expectTypeOf<FlowOutputs<{ id: string; nodes: { id: string }[] }>>().toEqualTypeOf<RunOutputs>();
  });

  it('loadFlow and runtime.start carry the type to the summary; a YAML flow stays RunOutputs', async () => {
    const runtime = createRuntime({ store: 'memory', logger: false });
    try {
      const loaded = await loadFlow(counter);
      const model = scriptedModel({
        turns: [
          {
            calls: [
              { tool: 'builtin_output_set', args: { key: 'count', value: 2, sourceType: 'model' } },
              { tool: 'builtin_node_finish', args: { summary: 'ok' } },
            ],
          },
          {
            calls: [
              { tool: 'builtin_output_set', args: { key: 'text', value: 'two', sourceType: 'model' } },
              { tool: 'builtin_node_finish', args: { summary: 'ok' } },
            ],
          },
        ],
      });
      const run = await runtime.start(loaded, { input: { text: 'go' }, model });
      expectTypeOf(run).toEqualTypeOf<RunSummary<Expected>>();
      expectTypeOf(run.outputs.count?.count).toEqualTypeOf<number | undefined>();
      if (run.outputs.count) expectTypeOf(run.outputs.count.count).toBeNumber();
      // The values are what the types say.
      if (run.outputs.count?.count !== 2 || run.outputs.report?.text !== 'two')
        throw new Error(`unexpected outputs ${JSON.stringify(run.outputs)}`);

      // A flow object given to start directly is typed the same way.
      const direct = () => runtime.start(counter, { input: { text: 'go' } });
      expectTypeOf(direct).returns.resolves.toEqualTypeOf<RunSummary<Expected>>();
      // Without literal types (a file), the outputs are plain records.
      const fromFile = () => loadFlow('flow.yaml');
      expectTypeOf(fromFile).returns.resolves.toHaveProperty('flow');
      const startFile = async () => runtime.start(await loadFlow('flow.yaml'));
      expectTypeOf(startFile).returns.resolves.toEqualTypeOf<RunSummary<RunOutputs>>();
    } finally {
      await runtime.close();
    }
  });
});
