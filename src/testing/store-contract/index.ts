import type { NewRun, RunRecord, Store } from '../../store/store.js';
import { event, newRun, steppingClock, type Harness } from './helpers.js';
import { documentCases } from './documents.cases.js';
import { messageCases } from './messages.cases.js';
import { rowCases } from './rows.cases.js';
import { runCases } from './runs.cases.js';
import { threadCases } from './threads.cases.js';
import { outboxCases } from './outbox.cases.js';
import type { TestApi } from './test-api.js';

export {
  event,
  evidence,
  message,
  newRun,
  runState,
  steppingClock,
  expectStoreError,
  type Harness,
} from './helpers.js';
export type { TestApi, Assertion, TestBody } from './test-api.js';

/** Opens a fresh, empty store that uses `now` for its record timestamps. */
export type OpenStore = (now: () => Date) => Promise<Store>;

/**
 * Registers the Store contract cases for one implementation — the same cases this package runs on its
 * memory, SQLite and PostgreSQL stores — with the test framework's functions passed in `t` (e.g.
 * `storeContract('MyStore', open, { describe, it, expect, beforeEach, afterEach })` from vitest). Each
 * case gets a fresh store from `open` and closes it afterwards.
 */
export function storeContract(name: string, open: OpenStore, t: TestApi): void {
  t.describe(`Store contract: ${name}`, () => {
    const h: Harness = {
      store: undefined as unknown as Store,
      seed: (runId = 'r1', fields: Partial<NewRun> = {}): Promise<RunRecord> =>
        h.store.createRun(newRun(runId, fields), [
          event(runId, 1, 'run.started'),
          event(runId, 2, 'node.started'),
        ]),
    };
    t.beforeEach(async () => {
      h.store = await open(steppingClock());
    });
    t.afterEach(async () => {
      await h.store.close();
    });
    runCases(h, t);
    rowCases(h, t);
    documentCases(h, t);
    threadCases(h, t);
    messageCases(h, t);
    outboxCases(h, t);
  });
}
