/**
 * The Store contract (after Hono's src/router/common.case.test.ts): the same cases run on
 * every implementation. The cases ship with the package (`g2rain-agent-runtime/testing`); this wrapper
 * hands them vitest. Call `storeContract` from an implementation's test file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeContract as contract, type OpenStore } from '../../src/testing/store-contract/index.js';

export {
  event,
  evidence,
  message,
  newRun,
  runState,
  type OpenStore,
} from '../../src/testing/store-contract/index.js';

/** Registers the contract cases for one Store implementation. */
export function storeContract(name: string, open: OpenStore): void {
  contract(name, open, { describe, it, expect, beforeEach, afterEach });
}
