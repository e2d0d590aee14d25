import { RunError, runNotFound } from '../domain/run-error.js';
import type { ModelClient } from '../model/model.js';
import { isModelClient, type ModelSpec } from '../model/resolve.js';
import type { RunSummary } from '../records/summary.js';
import type { NewRun } from '../store/store.js';
import type { RunEngine } from './engine.js';
import { forkPoints, forkState } from './fork-state.js';
import type { FlowRef } from './toolbox.js';
import { isParallelFlow } from '../graph/parallel.js';
import type { Flow } from '../domain/flow.js';

/** What a fork continues with besides the source run and the event. */
export interface ForkSpec {
  at: number;
  /** The flow to continue with (another version of the run's flow); default: the run's own. */
  ref?: FlowRef;
  /** The model as given (default: the source run's model). */
  spec?: ModelSpec;
  /** Called once the new run is persisted, before driving starts. */
  onAccepted?: (summary: RunSummary) => void;
}

/**
 * Forks a run (docs/evals.md, "Fork"): a new run whose state is the source's right after event `at` —
 * its trace up to there, evidence, approvals, outputs, conversation — created leased by this engine and
 * driven from there with the given model and flow. Nothing before `at` runs again: the calls up to the
 * fork point are in the new run's trace and evidence, never re-sent. Throws RunError RUN_NOT_FOUND for an
 * unknown run, REQUEST_INVALID for a point that is not a fork point (naming the nearest ones), a flow
 * without the fork's node, or no model.
 */
export async function forkRun(engine: RunEngine, sourceId: string, fork: ForkSpec): Promise<RunSummary> {
  const store = await engine.db();
  const record = await store.getRun(sourceId);
  if (!record) throw runNotFound(sourceId);
  notParallel(record.flow);
  const events = await store.events(sourceId);
  const points = forkPoints(events);
  if (!points.includes(fork.at)) throw notAPoint(sourceId, fork.at, points);
  // A fork stays with the run's tenant, whatever flow it continues with.
  const ref: FlowRef = { ...(fork.ref ?? { flow: record.flow, dir: record.flowDir }), tenant: record.tenant };
  notParallel(ref.flow);
  const spec = fork.spec ?? record.model;
  if (spec === null)
    throw new RunError(
      'REQUEST_INVALID',
      `run ${sourceId} was started with a model object: give the fork a model`,
    );
  const model: ModelClient = engine.models.resolve(spec, ref.flow);
  const runId = engine.ids.runId();
  const state = await forkState(
    {
      record,
      events,
      evidence: await store.evidence(sourceId),
      messages: async (nodeRun) => store.messages(sourceId, nodeRun),
    },
    fork.at,
    runId,
    ref.flow,
  );
  if (!ref.flow.nodes.some((n) => n.id === state.nodeId))
    throw new RunError(
      'REQUEST_INVALID',
      `flow ${ref.flow.id} has no node ${state.nodeId}, where the fork continues`,
    );
  const run: NewRun = {
    runId,
    parentRunId: null,
    rootRunId: runId,
    tenant: record.tenant,
    flowId: ref.flow.id,
    flowVersion: String(ref.flow.version),
    flow: ref.flow,
    flowDir: ref.dir,
    model: typeof spec === 'string' ? spec : null,
    input: record.input,
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    outputs: state.outputs,
    state: state.doc,
    leaseOwner: engine.owner,
    leaseExpiresAt: engine.clock() + engine.leaseMs,
  };
  const created = await store.createRun(run, state.events);
  const filled = await store.commit({
    runId,
    expectedVersion: created.version,
    patch: {},
    messages: state.messages,
    evidence: state.evidence,
  });
  if (isModelClient(spec)) engine.models.remember(runId, model);
  engine.announce(filled, state.events);
  const session = await engine.openSession(filled, 'start');
  return engine.proceed(session, ref, model, { commit: false, onAccepted: fork.onAccepted });
}

function notAPoint(runId: string, at: number, points: readonly number[]): RunError {
  if (points.length === 0)
    return new RunError('REQUEST_INVALID', `run ${runId} has no event a fork can continue from`);
  const before = points.filter((p) => p < at).at(-1);
  const after = points.find((p) => p > at);
  const nearest = [before, after].filter((p): p is number => p !== undefined).join(' or ');
  return new RunError(
    'REQUEST_INVALID',
    `run ${runId} cannot be forked at event ${at}: a fork continues after a tool call that ended its round; nearest: ${nearest} (all: ${points.join(', ')})`,
  );
}

/** RunError REQUEST_INVALID for a flow with parallel branches or a map: forks of those are not supported yet. */
function notParallel(flow: Flow): void {
  if (isParallelFlow(flow))
    throw new RunError(
      'REQUEST_INVALID',
      `flow ${flow.id} has parallel branches or a map, which fork does not support yet: start a new run`,
    );
}
