import { resolve } from 'node:path';
import type { FlowNode } from '../domain/flow.js';
import { loadFlow, type LoadedFlow } from '../flow/load.js';
import { flowModel } from '../flow/paths.js';
import type { ModelSpec } from '../model/resolve.js';
import type { CallContext, DelegateResult, DelegateService, SuspensionRequest } from '../tools/pipeline.js';
import { summarize, type RunSummary } from '../runtime/summary.js';
import type { RunStateDoc } from '../graph/state-doc.js';
import type { RunRecord, Store } from '../store/store.js';
import { delegateObservation } from '../tools/builtin/delegate.js';
import { RunConflictError } from '../runtime/errors.js';
import type { PersonResponse } from './respond.js';
import type { RunSession } from './session.js';
import type { FlowRef } from './toolbox.js';

/** Starts and drives a child run (the Runtime's `start` with a parent). */
export type StartChild = (
  ref: FlowRef,
  options: {
    input: unknown;
    model: ModelSpec;
    parentRunId: string;
    parentCallId: string;
    tenant: string | null;
  },
) => Promise<RunSummary>;

/**
 * The child run an earlier attempt of this delegate call started (the parent's driver died while
 * it ran), brought to where it stands now: ended, suspended, or continued after its lease expired.
 */
export type ExistingChild = (parentRunId: string, parentCallId: string) => Promise<RunSummary | null>;

/**
 * builtin_node_delegate's service (docs/observations.md): the flows a node may delegate to are its `delegates`
 * files (relative to the parent flow's folder), named by their `id`; a child run gets `task` as its
 * input text and the child flow's own model, else the parent's.
 */
export function delegateService(parent: {
  ref: FlowRef;
  runId: string;
  tenant: string | null;
  model: ModelSpec;
  startChild: StartChild;
  existingChild: ExistingChild;
}): DelegateService {
  const cache = new Map<string, Promise<LoadedFlow[]>>();
  const delegatesOf = (node: FlowNode): Promise<LoadedFlow[]> => {
    let found = cache.get(node.id);
    if (!found) {
      const dir = parent.ref.dir ?? process.cwd();
      found = Promise.all(node.delegates.map((file) => loadFlow(resolve(dir, file))));
      cache.set(node.id, found);
    }
    return found;
  };
  const nodeOf = (ctx: CallContext): FlowNode => {
    const node = ctx.flow.nodes.find((n) => n.id === ctx.nodeId);
    if (!node) throw new Error(`flow ${ctx.flow.id} has no node ${ctx.nodeId}`);
    return node;
  };
  return {
    async flows(ctx) {
      return (await delegatesOf(nodeOf(ctx))).map((l) => l.flow.id);
    },
    async run(flowId, task, ctx) {
      const child = (await delegatesOf(nodeOf(ctx))).find((l) => l.flow.id === flowId);
      if (!child) throw new Error(`flow ${flowId} is not a delegate of node ${ctx.nodeId}`);
      // After a crash the wave repeats this call: continue the child it started, never a second one.
      const existing = await parent.existingChild(parent.runId, ctx.call.callId);
      if (existing) return delegateResult(existing);
      const summary = await parent.startChild(child, {
        input: { text: task },
        model: flowModel(child) ?? parent.model,
        parentRunId: parent.runId,
        parentCallId: ctx.call.callId,
        tenant: parent.tenant,
      });
      return delegateResult(summary);
    },
  };
}

/** A child run's summary as the delegate builtin sees it. */
export function delegateResult(summary: RunSummary): DelegateResult {
  if (summary.status === 'completed') {
    return { status: 'completed', childRunId: summary.runId, outputs: summary.outputs };
  }
  if (summary.status === 'suspended' && summary.suspension) {
    return {
      status: 'suspended',
      childRunId: summary.runId,
      suspension: summary.suspension as SuspensionRequest,
    };
  }
  return {
    status: 'failed',
    childRunId: summary.runId,
    reason: summary.reason ?? summary.status.toUpperCase(),
    message: summary.message ?? `the child run is ${summary.status}`,
  };
}

/** What routing a response through a child needs from the runtime. */
export interface ChildRouting {
  respond(childRunId: string, response: PersonResponse): Promise<RunSummary>;
  release(record: RunRecord): Promise<void>;
}

/**
 * A parent suspended by a delegated child: the person's response goes to the child (docs/observations.md).
 * When the child waits again, the parent keeps waiting with the child's new pending item (that
 * summary is returned); when the child ends, its result becomes the delegate call's observation
 * (left for the loop to count) and null is returned.
 */
export async function respondThroughChild(
  session: RunSession,
  ref: FlowRef,
  childRunId: string,
  response: PersonResponse,
  routing: ChildRouting,
): Promise<RunSummary | null> {
  let child: RunSummary;
  try {
    child = await routing.respond(childRunId, response);
  } catch (error) {
    await routing.release(session.current);
    throw error;
  }
  const suspended = session.doc.loop.suspended;
  const nodeId = session.doc.nodeId;
  if (!suspended || !nodeId) throw new Error(`run ${session.runId} lost its suspended delegate call`);
  session.emit({
    type: 'run.resumed',
    nodeId,
    kind: response.kind,
    ...(response.kind === 'APPROVAL'
      ? { decision: response.decision, comment: response.comment, who: response.who }
      : { answer: response.answer, who: response.who }),
  });
  if (child.status === 'suspended' && child.suspension) {
    // The child waits again: so does the parent, with the child's new pending item.
    const { kind, pending } = child.suspension;
    session.emit({ type: 'node.suspended', nodeId, kind, pending });
    session.emit({ type: 'run.suspended', nodeId, kind, pending });
    session.update({ suspension: child.suspension, leaseOwner: null, leaseExpiresAt: null });
    await session.checkpoint();
    return summarize(session.current);
  }
  const result = delegateResult(child);
  if (result.status === 'suspended')
    throw new Error(`child run ${childRunId} is suspended without a pending item`);
  const flowId = typeof suspended.args.flow === 'string' ? suspended.args.flow : '';
  const observation = delegateObservation(result, flowId, ref.flow.locale);
  session.doc.loop.suspended = null;
  session.doc.loop.resolved = { call: suspended, observation: observation.toJSON() };
  return null;
}

/** See `ExistingChild`: the child of this delegate call, continued once its dead driver's lease expired. */
export async function existingChild(
  store: Store,
  parentRunId: string,
  parentCallId: string,
  ops: { resume(runId: string): Promise<RunSummary>; waitMs: number },
): Promise<RunSummary | null> {
  const child = (await store.listRuns({ parentRunId })).find(
    (r) => (r.state as RunStateDoc | null)?.parentCallId === parentCallId,
  );
  if (!child) return null;
  if (child.status !== 'running') return summarize(child);
  for (;;) {
    try {
      return await ops.resume(child.runId);
    } catch (error) {
      if (!(error instanceof RunConflictError)) throw error;
      // Its lease (held by the same dead driver) has not expired yet.
      await new Promise((resolve) => setTimeout(resolve, ops.waitMs));
      const now = await store.getRun(child.runId);
      if (!now || now.status !== 'running') return now ? summarize(now) : null;
    }
  }
}
