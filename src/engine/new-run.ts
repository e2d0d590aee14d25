import type { Flow } from '../domain/flow.js';
import { newRunState } from '../records/run-state.js';
import { startNode } from '../graph/flow-runner.js';
import type { RunStateDoc } from '../records/state-doc.js';
import { newLoopState } from '../records/loop-state.js';
import type { ModelClient } from '../model/model.js';
import { isModelClient, type ModelSpec } from '../model/resolve.js';
import type { NewRun, Store, StoredEvent } from '../store/store.js';
import { threadStore, type ThreadStartSpec } from './thread-start.js';
import type { RunSummary } from '../records/summary.js';
import type { RunEngine } from './engine.js';
import type { FlowRef } from './toolbox.js';
import type { EventPayload } from '../trace/events.js';
import { RunError } from '../domain/run-error.js';
import { isoAt, systemClock, type Clock } from './seams.js';

/** What a new run is made of besides its flow. */
export interface NewRunInput {
  flow: Flow;
  flowDir: string | null;
  input: unknown;
  model: string | null;
  parentRunId: string | null;
  rootRunId: string | null;
  parentCallId?: string;
  tenant: string | null;
  lease: { owner: string; expiresAt: number };
  /** A run in a thread: the thread and what the run starts with (docs/threads.md). */
  thread?: ThreadStartSpec;
  /** Who started the run (docs/approvals.md: not one of several approvers). */
  startedBy?: string;
}

/** A run to start, its flow, model and input checked by the facade. */
export interface StartSpec {
  ref: FlowRef;
  /** The model as given (a name is persisted with the run; an object is kept in this process). */
  spec: ModelSpec;
  model: ModelClient;
  input: unknown;
  tenant?: string | null;
  parentRunId?: string;
  parentCallId?: string;
  onAccepted?: (summary: RunSummary) => void;
  /** A run in a thread (docs/threads.md), planned by `planThread`. */
  thread?: ThreadStartSpec;
  /** Who started the run (a child run: its parent's starter). */
  startedBy?: string;
}

/**
 * Creates a run in one commit, already started and leased by this engine, then drives it (or hands it
 * to the queue) until it completes, fails or suspends.
 */
export async function startRun(engine: RunEngine, start: StartSpec): Promise<RunSummary> {
  const { ref, spec, model } = start;
  const store = await engine.db();
  const parent = start.parentRunId ? await store.getRun(start.parentRunId) : null;
  const runId = engine.ids.runId();
  if (start.thread) await appendToThread(store, start.tenant ?? null, start.thread, runId);
  const { run, events } = newRun(
    runId,
    {
      flow: ref.flow,
      flowDir: ref.dir,
      input: start.input,
      model: typeof spec === 'string' ? spec : null,
      parentRunId: start.parentRunId ?? null,
      rootRunId: parent ? parent.rootRunId : (start.parentRunId ?? null),
      ...(start.parentCallId ? { parentCallId: start.parentCallId } : {}),
      tenant: start.tenant ?? null,
      lease: { owner: engine.owner, expiresAt: engine.clock() + engine.leaseMs },
      ...(start.thread ? { thread: start.thread } : {}),
      ...((start.startedBy ?? parent?.state.run.startedBy)
        ? { startedBy: start.startedBy ?? parent?.state.run.startedBy }
        : {}),
    },
    engine.clock,
  );
  const record = await store.createRun(run, events);
  if (isModelClient(spec)) engine.models.remember(runId, model);
  engine.announce(record, events);
  const session = await engine.openSession(record, 'start');
  // The thread's evidence so far is the run's first: citable by its ids, and the run's own go on after it.
  const inherited = start.thread?.evidence ?? [];
  session.run.evidence.push(...inherited);
  return engine.proceed(session, ref, model, { commit: inherited.length > 0, onAccepted: start.onAccepted });
}

/** Appends the new run to its thread, or throws RunError THREAD_BUSY when another came first. */
async function appendToThread(
  store: Store,
  tenant: string | null,
  thread: ThreadStartSpec,
  runId: string,
): Promise<void> {
  const appended = await threadStore(store).appendThreadRun(tenant, thread.id, runId, thread.after);
  if (!appended)
    throw new RunError('THREAD_BUSY', `thread ${thread.id} got another message meanwhile`, {
      threadId: thread.id,
    });
}

/**
 * The row and first events of a run that is created already started — `run.started`, its first
 * node started — so that one commit creates it and a crash right after leaves a run `resume` can
 * continue (docs/durability.md).
 */
export function newRun(
  runId: string,
  spec: NewRunInput,
  clock: Clock = systemClock,
): { run: NewRun; events: StoredEvent[] } {
  const { flow, input } = spec;
  const first = flow.nodes[0];
  if (!first) throw new RunError('REQUEST_INVALID', `flow ${flow.id} has no nodes`);
  const { evidence: _evidence, ...runState } = newRunState(runId, input);
  const doc: RunStateDoc = {
    schema: 1,
    run: runState,
    nodeId: null,
    nodeRuns: 0,
    node: null,
    loop: newLoopState(),
    modelCalls: 0,
    ...(spec.parentCallId ? { parentCallId: spec.parentCallId } : {}),
    ...(spec.thread ? { thread: { id: spec.thread.id, history: spec.thread.history } } : {}),
  };
  // What the user said earlier in the thread counts for `source: user` like the run's own input.
  if (spec.thread) doc.run.inputTexts = [...spec.thread.userTexts, ...doc.run.inputTexts];
  if (spec.startedBy) doc.run.startedBy = spec.startedBy;
  const threadStarter = spec.thread?.startedBy ?? (spec.thread ? spec.startedBy : undefined);
  if (threadStarter) doc.run.threadStartedBy = threadStarter;
  const payloads: EventPayload[] = [
    {
      type: 'run.started',
      flowId: flow.id,
      flowVersion: flow.version,
      input,
      ...(spec.parentRunId ? { parentRunId: spec.parentRunId } : {}),
    },
  ];
  startNode({ doc, emit: (e) => void payloads.push(e), resetConversation: () => undefined }, first.id, flow);
  const ts = isoAt(clock());
  const events = payloads.map((p, i) => ({ ...p, seq: i + 1, ts, runId }) satisfies StoredEvent);
  const run: NewRun = {
    runId,
    parentRunId: spec.parentRunId,
    rootRunId: spec.rootRunId ?? runId,
    tenant: spec.tenant,
    flowId: flow.id,
    flowVersion: String(flow.version),
    flow,
    flowDir: spec.flowDir,
    model: spec.model,
    input,
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    outputs: {},
    state: doc,
    leaseOwner: spec.lease.owner,
    leaseExpiresAt: spec.lease.expiresAt,
  };
  return { run, events };
}
