import { describe, expect, it } from 'vitest';
import { ForgetfulStore } from '../../bench/forgetful-store.js';
import { createRuntime, defineTool, scriptedModel } from '../../src/index.js';

/** The store of `npm run bench`'s "runtime alone" column: runs complete on it, and it keeps no history. */

const lookup = defineTool<{ id: number }>({
  name: 'lookup',
  description: 'Find an item',
  write: false,
  inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
  execute: ({ id }) => ({ id }),
});

describe('ForgetfulStore', () => {
  it('runs a node to completion with the version and state kept, and keeps no event, message or evidence', async () => {
    const store = new ForgetfulStore();
    const runtime = createRuntime({ store, tools: [lookup], logger: false });
    const turns = [0, 1, 2].map((id) => ({ calls: [{ tool: 'lookup', args: { id } }] }));
    const run = await runtime.start(
      {
        id: 'f',
        version: 1,
        locale: 'en',
        nodes: [{ id: 'work', instructions: 'Look up.', tools: ['lookup'] }],
      },
      {
        input: { text: 'go' },
        model: scriptedModel({
          turns: [...turns, { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] }],
        }),
      },
    );
    expect(run.status).toBe('completed');
    const record = await store.getRun(run.runId);
    expect(record?.version).toBeGreaterThan(4);
    expect(record?.state.run.inputTexts).toEqual(['go']);
    // What the run created with it (its first events) and each commit's last event's seq, nothing else.
    const events = await store.events(run.runId);
    expect(events.length).toBeLessThan(record?.lastSeq ?? 0);
    expect(events.at(-1)?.seq).toBe(record?.lastSeq);
    expect(await store.evidence(run.runId)).toEqual([]);
    expect(await store.messages(run.runId, 'work#1')).toEqual([]);
    await runtime.close();
  });
});
