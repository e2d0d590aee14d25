import { afterEach, describe, expect, it } from 'vitest';
import { ProgressWriter } from '../../src/cli/progress.js';
import { TraceRenderer } from '../../src/cli/render.js';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import { eventsOf, recordingModel } from '../runtime/helpers.js';
import { mapFlow, mapTurns, slowTool, type SlowCall } from '../graph/parallel-fixture.js';

/**
 * A map over three items, two at a time, through the real runtime: every event of an item's node run
 * names the item, and the CLI's progress lines of the run each start with their node id and item index.
 */
describe('labelled progress of parallel branches and map items', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it('each line of a map item says [node item N]; the map node’s lines name it', async () => {
    const calls: SlowCall[] = [];
    const runtime = createRuntime({ store: 'memory', tools: [slowTool(calls, 50)], logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(mapFlow(2), { knownTools: ['slow'] });
    const summary = await runtime.start(flow, {
      input: { lines: [10, 20, 30] },
      model: recordingModel(...mapTurns([10, 20, 30])),
    });
    expect(summary.status).toBe('completed');
    const events = await eventsOf(runtime, summary.runId);
    const inItems = events.filter((e) => e.nodeId === 'price');
    expect(inItems.length).toBeGreaterThan(6);
    for (const e of inItems) expect(e.item, JSON.stringify(e)).toMatchObject({ index: expect.any(Number) });
    expect(events.filter((e) => e.nodeId !== 'price' && e.item !== undefined)).toEqual([]);

    let out = '';
    const renderer = new TraceRenderer(new ProgressWriter((t) => void (out += t)), false, false);
    for (const e of events) renderer.onEvent(e);
    const lines = out.split('\n').filter((l) => l !== '');
    const priced = lines.filter((l) => l.startsWith('[price item '));
    expect(new Set(priced.map((l) => /^\[price item (\d)\]/.exec(l)?.[1]))).toEqual(new Set(['0', '1', '2']));
    expect(priced.some((l) => l.includes('SUCCESS slow'))).toBe(true);
    expect(lines.filter((l) => l.includes('SUCCESS slow')).every((l) => l.startsWith('[price item '))).toBe(
      true,
    );
    // From the map on, every node's lines are labelled (the map node's own too).
    expect(lines).toContain('[each] ● node each');
    expect(lines[0]).toMatch(/^▶ run /);
  });
});
