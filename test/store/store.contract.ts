/**
 * The Store contract: the same cases run on every implementation (STYLE habit 5, after Hono's
 * src/router/common.case.test.ts). Call `storeContract` from an implementation's test file.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type { NewRun, RunRecord, Store } from '../../src/store/store.js';
import { event, newRun, steppingClock, type Harness } from './contract/helpers.js';
import { rowCases } from './contract/rows.cases.js';
import { runCases } from './contract/runs.cases.js';

export { event, evidence, message, newRun } from './contract/helpers.js';

/** Opens a fresh, empty store that uses `now` for its timestamps. */
export type OpenStore = (now: () => Date) => Promise<Store>;

/** Registers the contract cases for one Store implementation. */
export function storeContract(name: string, open: OpenStore): void {
  describe(`Store contract: ${name}`, () => {
    const h: Harness = {
      store: undefined as unknown as Store,
      seed: (runId = 'r1', fields: Partial<NewRun> = {}): Promise<RunRecord> =>
        h.store.createRun(newRun(runId, fields), [
          event(runId, 1, 'run.started'),
          event(runId, 2, 'node.started'),
        ]),
    };
    beforeEach(async () => {
      h.store = await open(steppingClock());
    });
    afterEach(async () => {
      await h.store.close();
    });

    runCases(h);
    rowCases(h);
  });
}
