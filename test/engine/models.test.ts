import { describe, expect, it } from 'vitest';
import type { RunEngine } from '../../src/engine/engine.js';
import { RunModels } from '../../src/engine/models.js';
import { scriptedModel } from '../../src/model/scripted.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { RunRecord } from '../../src/store/store.js';
import { call, flow, makeRuntime, script, toolKit, turn } from '../runtime/helpers.js';

const finishing = () => script(turn([call.finish()]));
const asking = () => script(turn([call.tool('save', { name: 'x' })]), turn([call.approval('save')]));

function modelsOf(runtime: Runtime): RunModels {
  return (runtime as unknown as { engine: RunEngine }).engine.models;
}

describe('the model objects runs were started with', () => {
  it('continue a run in this order: override, object kept here, persisted name, inherited', async () => {
    const models = new RunModels(undefined);
    const record = {
      runId: 'r1',
      model: null,
      flow: (await flow({ nodes: [{ id: 'n' }] })).flow,
    } as unknown as RunRecord;
    const kept = scriptedModel({ turns: [] }, 'kept');
    const inherited = scriptedModel({ turns: [] }, 'inherited');
    expect(() => models.forRun(record, undefined)).toThrow(/started with a model object/);
    expect(models.forRun(record, undefined, inherited).id).toBe('inherited');
    models.remember('r1', kept);
    expect(models.forRun(record, undefined, inherited).id).toBe('kept');
    expect(models.forRun(record, finishing()).id).not.toBe('kept');
    models.forget('r1');
    // A persisted name wins over the inherited model (here it names a missing file, so it is refused).
    expect(() => models.forRun({ ...record, model: 'scripted:/no/such.yaml' }, undefined, inherited)).toThrow(
      /cannot read scripted model file/,
    );
  });

  it('are dropped when their run completes, kept while it waits for a person', async () => {
    const runtime = makeRuntime(toolKit());
    const done = await flow({ nodes: [{ id: 'work' }] });
    for (let i = 0; i < 20; i++) {
      const run = await runtime.start(done, { input: { text: `x${i}` }, model: finishing() });
      expect(run.status).toBe('completed');
    }
    expect(modelsOf(runtime).kept).toBe(0);
    const waiting = await runtime.start(await flow({ nodes: [{ id: 'work', tools: ['save'] }] }), {
      input: { text: 'y' },
      model: asking(),
    });
    expect(waiting.status).toBe('suspended');
    expect(modelsOf(runtime).kept).toBe(1);
    await runtime.close();
  });
});
