import { randomUUID } from 'node:crypto';
import type { Flow } from '../domain/flow.js';
import { newRunState } from '../domain/run-state.js';
import { startNode } from '../graph/flow-runner.js';
import type { RunStateDoc } from '../graph/state-doc.js';
import { newLoopState } from '../loop/loop-state.js';
import type { NewRun, StoredEvent } from '../store/store.js';
import type { EventPayload } from '../trace/events.js';
import { RuntimeInputError } from '../runtime/errors.js';

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
}

/** A new run id: `run_` and 20 hex digits. */
export function newRunId(): string {
  return `run_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

/**
 * The row and first events of a run that is created already started — `run.started`, its first
 * node started — so that one commit creates it and a crash right after leaves a run `resume` can
 * continue (docs/durability.md).
 */
export function newRun(runId: string, spec: NewRunInput): { run: NewRun; events: StoredEvent[] } {
  const { flow, input } = spec;
  const first = flow.nodes[0];
  if (!first) throw new RuntimeInputError(`flow ${flow.id} has no nodes`);
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
  };
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
  const ts = new Date().toISOString();
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
