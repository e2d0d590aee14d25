import { describe, expect, it } from 'vitest';
import { STORES, continued, invocations, traceOf } from './corpus.js';

/**
 * Frozen run documents of runs whose driver died in the middle of a step (test/fixtures/run-documents,
 * its README): loaded into a fresh store, `resume` takes them over (their dead driver's lease long
 * expired) and finishes them without repeating what was committed.
 */
describe.each(STORES)('frozen mid-step run documents continue to completion (%s)', (_kind, open) => {
  it('mid-wave: the wave goes on from its first uncommitted call; committed calls are not repeated', async () => {
    const { runtime, model, runId, file, world } = await continued('mid-wave', open);
    const frozenState = file.runs[0]!.record.state;
    expect(frozenState.loop.wave).toMatchObject({ round: 3, next: 2 });
    expect(await runtime.status(runId)).toMatchObject({ status: 'running' });

    const done = await runtime.resume(runId, { model });
    expect(done).toMatchObject({ status: 'completed', outputs: { work: { item: 'item-2' } } });
    // Only the wave's third call ran: the approved write and the first read were committed before.
    expect(world.looked).toEqual([2]);
    expect(world.saved).toEqual([]);
    const trace = await traceOf(runtime, runId);
    expect(trace.filter((e) => e.type === 'run.resumed').at(-1)).toMatchObject({ kind: 'RECOVERY' });
    for (const callId of ['call_3_1', 'call_3_2', 'call_3_3']) {
      expect(invocations(trace, callId), callId).toEqual([
        expect.objectContaining({ outcome: 'SUCCESS', executed: true }),
      ]);
    }
    // Evidence numbering goes on from the frozen records: the resumed read is ev_3, cited by the output.
    expect((await runtime.evidence(runId)).map((e) => [e.id, e.tool])).toEqual([
      ['ev_1', 'save'],
      ['ev_2', 'lookup'],
      ['ev_3', 'lookup'],
    ]);
    await runtime.close();
  });

  it('a write in flight that had landed: the look-back finds it, it is not sent again', async () => {
    // The world as the crash left it: the server had executed the write, its result never came back.
    const { runtime, model, runId, file, world } = await continued('write-in-flight', open, {
      saved: ['Gamma'],
      looked: [],
    });
    expect(file.runs[0]!.record.state.run.inFlight).toMatchObject([{ tool: 'save', callId: 'call_3_1' }]);

    const done = await runtime.resume(runId, { model });
    expect(done.status).toBe('completed');
    expect(done.outputs).toEqual({ work: {} });
    expect(world.saved).toEqual(['Gamma']);
    const trace = await traceOf(runtime, runId);
    expect(trace.filter((e) => e.type === 'run.resumed').at(-1)).toMatchObject({ kind: 'RECOVERY' });
    expect(invocations(trace, 'call_3_1#lookback')).toEqual([
      expect.objectContaining({ tool: 'saved_names', lookBack: true, result: { names: ['Gamma'] } }),
    ]);
    // The interrupted call is settled from the look-back: it did run, once, before the crash.
    expect(invocations(trace, 'call_3_1')).toEqual([
      expect.objectContaining({ tool: 'save', outcome: 'SUCCESS', executed: true, evidenceId: 'ev_1' }),
    ]);
    // The model's identical call afterwards is answered from the recovered result.
    expect(invocations(trace, 'call_4_1')).toEqual([
      expect.objectContaining({ tool: 'save', outcome: 'SUCCESS', executed: false }),
    ]);
    await runtime.close();
  });

  it('a write in flight that had not landed: the look-back misses it, the model’s call runs it once', async () => {
    const { runtime, model, runId, world } = await continued('write-in-flight', open);

    const done = await runtime.resume(runId, { model });
    expect(done.status).toBe('completed');
    expect(done.outputs).toEqual({ work: {} });
    expect(world.saved).toEqual(['Gamma']);
    const trace = await traceOf(runtime, runId);
    expect(invocations(trace, 'call_3_1#lookback')).toEqual([
      expect.objectContaining({ tool: 'saved_names', lookBack: true, result: { names: [] } }),
    ]);
    expect(invocations(trace, 'call_3_1')).toEqual([
      expect.objectContaining({
        tool: 'save',
        outcome: 'DEFERRED',
        errorCode: 'WRITE_NOT_EXECUTED',
        executed: false,
      }),
    ]);
    // The approval was not used up by the write that never ran: the same call runs without asking again.
    expect(invocations(trace, 'call_4_1')).toEqual([
      expect.objectContaining({ tool: 'save', outcome: 'SUCCESS', executed: true }),
    ]);
    expect(trace.filter((e) => e.type === 'run.suspended')).toHaveLength(1);
    await runtime.close();
  });
});
