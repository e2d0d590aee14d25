import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { call, flow, makeRuntime, script, toolKit, turn } from './helpers.js';

/** The approval's pending item says where each checked argument came from: evidence, or the user's words. */
describe('approval provenance', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it('names the evidence of `source: evidence` values and the user words of `source: user` values', async () => {
    const runtime = makeRuntime(toolKit());
    runtimes.push(runtime);
    const loaded = await flow({
      tools: {
        save: {
          write: true,
          params: { name: { source: 'evidence', from: ['lookup'] }, note: { source: 'user' } },
        },
      },
      nodes: [{ id: 'work', tools: ['lookup', 'save'] }],
    });
    const args = { name: 'item-7', note: 'urgent' };
    const summary = await runtime.start(loaded, {
      input: { text: 'save item 7, it is urgent' },
      model: script(
        turn([call.tool('lookup', { id: 7 })]),
        turn([call.tool('save', args)]),
        turn([call.approval('save', 'save item-7')]),
      ),
    });
    expect(summary.suspension?.pending).toEqual({
      tool: 'save',
      args,
      summary: 'save item-7',
      provenance: { name: 'ev_1' },
      userProvenance: { note: 'save item 7, it is urgent' },
      matches: {
        name: [{ at: [], source: 'evidence', evidenceId: 'ev_1', path: ['name'] }],
        note: [{ at: [], source: 'user' }],
      },
      id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/),
    });
  });

  it('leaves userProvenance out when no argument has a `source: user` contract', async () => {
    const runtime = makeRuntime(toolKit());
    runtimes.push(runtime);
    const loaded = await flow({ tools: { save: { write: true } }, nodes: [{ id: 'work', tools: ['save'] }] });
    const summary = await runtime.start(loaded, {
      input: { text: 'x' },
      model: script(turn([call.tool('save', { name: 'a' })]), turn([call.approval('save', 's')])),
    });
    expect(summary.suspension?.pending).toEqual({
      tool: 'save',
      args: { name: 'a' },
      summary: 's',
      provenance: {},
      id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/),
    });
  });
});
