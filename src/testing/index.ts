/**
 * `g2rain-agent-runtime/testing`: what a user's tests need — the scripted model, helpers that run a flow
 * to its end or suspension and read its trace, a logger that keeps records, and the Store contract suite
 * for a store of one's own. Nothing here imports a test framework: the contract suite takes `describe`,
 * `it`, `expect`, `beforeEach` and `afterEach` as a parameter. Every export here is public API.
 */
import '../node-guard.js';
export { scriptedModel, loadScriptedModel, type Script, type ScriptedTurn } from '../model/scripted.js';
export { runFlow, readTrace, eventsOf, type RunFlowOptions, type TestRun } from './run-flow.js';
export { MemoryLogger, type LogRecord } from '../log/logger.js';
export {
  storeContract,
  event,
  evidence,
  message,
  newRun,
  steppingClock,
  expectStoreError,
  type OpenStore,
  type Harness,
  type TestApi,
  type Assertion,
  type TestBody,
} from './store-contract/index.js';
export {
  startFakeModel,
  playScript,
  FakeModelScriptError,
  type FakeModel,
  type FakeModelKind,
  type FakeModelOptions,
} from './fake-model/index.js';
