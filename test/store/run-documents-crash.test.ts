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
});
