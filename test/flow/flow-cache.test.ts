import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadFlowOnce } from '../../src/flow/flow-cache.js';
import { FlowError } from '../../src/flow/problems.js';
import { createRuntime } from '../../src/runtime/create.js';
import { scriptedModel } from '../../src/model/scripted.js';

const flow = (instructions: string) => ({
  id: 'cached',
  locale: 'en' as const,
  nodes: [{ id: 'only', instructions }],
});

describe('flows loaded once per content', () => {
  it('gives the same loaded flow, frozen, for the same content and a new one for other content', async () => {
    const first = await loadFlowOnce(flow('Say hello.'));
    expect(await loadFlowOnce(flow('Say hello.'))).toBe(first);
    expect(Object.isFrozen(first.flow.nodes[0])).toBe(true);
    const other = await loadFlowOnce(flow('Say goodbye.'));
    expect(other).not.toBe(first);
    expect(other.flow.nodes[0]?.instructions).toBe('Say goodbye.');
  });

  it('loads afresh a flow with delegates or with zod schemas, and still refuses a bad flow each time', async () => {
    const coded = {
      ...flow('Find it.'),
      nodes: [
        { id: 'only', instructions: 'Find it.', outputs: { n: { sources: ['model'], schema: z.number() } } },
      ],
    };
    expect(await loadFlowOnce(coded)).not.toBe(await loadFlowOnce(coded));
    const bad = { id: 'bad', nodes: [{ id: 'only', instructoins: 'typo' }] };
    await expect(loadFlowOnce(bad)).rejects.toBeInstanceOf(FlowError);
    await expect(loadFlowOnce(bad)).rejects.toBeInstanceOf(FlowError);
  });

  it('runs of the same flow object content through start share it and each completes', async () => {
    const runtime = createRuntime({ store: 'memory', logger: false });
    try {
      for (let i = 0; i < 3; i += 1) {
        const run = await runtime.start(flow('Finish.'), {
          input: { text: 'go' },
          model: scriptedModel({
            turns: [{ calls: [{ tool: 'builtin_node_finish', args: { summary: `run ${i}` } }] }],
          }),
        });
        expect(run.status).toBe('completed');
        expect(run.reply).toBe(`run ${i}`);
      }
    } finally {
      await runtime.close();
    }
  });
});
