/** Assertions shared by the worker tests. */
import { expect } from 'vitest';
import type { DriveLine } from '../../bench/scale-harness.js';
import type { Store } from '../../src/store/store.js';

/**
 * Every run's events 1…lastSeq are split exactly into the blocks committed by single drives (worker
 * log lines) and by the approver (its own commits): no seq twice, none missing, and no two blocks
 * interleaved — which is what two drivers at once would leave.
 */
export async function expectPartitioned(
  store: Store,
  runIds: readonly string[],
  drives: readonly DriveLine[],
  approverSeqs: ReadonlyMap<string, readonly number[]>,
): Promise<void> {
  const byRun = new Map<string, { from: number; to: number; who: string }[]>();
  for (const d of drives)
    byRun.set(d.runId, [...(byRun.get(d.runId) ?? []), { from: d.first, to: d.last, who: d.worker }]);
  for (const runId of runIds) {
    const blocks = [...(byRun.get(runId) ?? [])];
    for (const seq of approverSeqs.get(runId) ?? []) blocks.push({ from: seq, to: seq, who: 'approver' });
    blocks.sort((a, b) => a.from - b.from);
    const lastSeq = (await store.getRun(runId))!.lastSeq;
    let next = 1;
    for (const block of blocks) {
      expect({ runId, block, expectedFrom: next }).toEqual({
        runId,
        block: { ...block, from: next },
        expectedFrom: next,
      });
      next = block.to + 1;
    }
    expect({ runId, end: next - 1 }).toEqual({ runId, end: lastSeq });
  }
}
