/**
 * builtin_evidence_read (issue 20): offered to the model only once its node run compacted; reads an
 * evidence record of the run (whole, or the part a JSONata path selects) and cites its evidence id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  recordingModel,
  toolKit,
  turn,
} from '../runtime/helpers.js';

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

const read = (args: Record<string, unknown>) => ({ tool: 'builtin_evidence_read', args });

describe('builtin_evidence_read', () => {
  it('is denied before the node run compacted, offered after, and reads the ledger', async () => {
    const kit = toolKit();
    const runtime = makeRuntime(kit);
    runtimes.push(runtime);
    // A budget so small that the third request already compacts (it keeps only the newest round whole).
    const loaded = await flow({
      id: 'reader',
      limits: { contextTokens: 100 },
      nodes: [{ id: 'only', tools: ['lookup'] }],
    });
    const model = recordingModel(
      turn([read({ id: 'ev_1' })]),
      turn([call.tool('lookup', { id: 1 })]),
      turn([call.tool('lookup', { id: 2 })]),
      turn([call.tool('lookup', { id: 3 })]),
      turn([read({ id: 'ev_9' })]),
      turn([read({ id: 'ev_1', path: 'name(' })]),
      turn([read({ id: 'ev_2' })]),
      turn([read({ id: 'ev_1', path: 'name' })]),
      turn([call.finish()]),
    );
    const run = await runtime.start(loaded, { input: { text: 'x' }, model });
    expect(run.status).toBe('completed');
    const offered = model.requests.map((r) => r.tools.some((t) => t.name === 'builtin_evidence_read'));
    expect(offered).toEqual([false, false, true, true, true, true, true, true, true]);
    const events = await eventsOf(runtime, run.runId);
    expect(ofType(events, 'context.compacted')[0]).toMatchObject({ nodeId: 'only', round: 3, budget: 100 });
    const reads = ofType(events, 'tool.invoked').filter((e) => e.tool === 'builtin_evidence_read');
    expect(reads.map((e) => [e.outcome, e.errorCode, e.evidenceId, e.executed])).toEqual([
      ['REJECTED', 'CATALOG_DENIED', null, false],
      ['REJECTED', 'EVIDENCE_NOT_FOUND', null, false],
      ['REJECTED', 'ARG_REJECTED', null, false],
      ['SUCCESS', null, 'ev_2', false],
      ['SUCCESS', null, 'ev_1', false],
    ]);
    expect(reads[1]?.message).toBe(
      'There is no evidence ev_9. Next: use an evidence id of this run (ev_1, ev_2, ev_3).',
    );
    // Each read's answer, as the next request shows it (the newest round stays whole).
    const answers = [7, 8].map((i) => model.requests[i]?.messages.at(-1) ?? { role: 'user', content: '' });
    expect(answers.map((m) => (m.role === 'tool' ? m.content : ''))).toEqual([
      '[SUCCESS] ev_2 is the result of lookup (SUCCESS, arguments {"id":2}) (evidence: ev_2)\n{"id":2,"name":"item-2"}',
      '[SUCCESS] ev_1 is the result of lookup (SUCCESS, arguments {"id":1}); this is the part name selects (evidence: ev_1)\nitem-1',
    ]);
    // It reads the ledger; it never calls a tool.
    expect(kit.count('lookup')).toBe(3);
  });
});
