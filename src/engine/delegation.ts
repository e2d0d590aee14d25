import { resolve } from 'node:path';
import type { FlowNode } from '../domain/flow.js';
import { loadFlow, type LoadedFlow } from '../flow/load.js';
import { flowModel } from '../flow/paths.js';
import type { ModelSpec } from '../model/resolve.js';
import type { CallInput, DelegateResult, DelegateService, SuspensionRequest } from '../tools/call.js';
import { summarize, type RunSummary } from '../records/summary.js';
import type { Store } from '../store/store.js';
import { RunError } from '../domain/run-error.js';
import { pause } from './seams.js';
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
  /** The folder delegates resolve against when the parent flow has none (the runtime's `cwd`). */
  cwd: string;
  /** The size cap of delegate flow files (the runtime's AGENT_RUNTIME_MAX_FILE_BYTES). */
  maxFileBytes: number;
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
      const dir = parent.ref.dir ?? parent.cwd;
      const options = { maxFileBytes: parent.maxFileBytes };
      found = Promise.all(node.delegates.map((file) => loadFlow(resolve(dir, file), options)));
      cache.set(node.id, found);
    }
    return found;
  };
  const nodeOf = (ctx: CallInput): FlowNode => {
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

/** See `ExistingChild`: the child of this delegate call, continued once its dead driver's lease expired. */
export async function existingChild(
  store: Store,
  parentRunId: string,
  parentCallId: string,
  ops: { resume(runId: string): Promise<RunSummary>; waitMs: number },
): Promise<RunSummary | null> {
  const child = (await store.listRuns({ parentRunId })).find((r) => r.state.parentCallId === parentCallId);
  if (!child) return null;
  if (child.status !== 'running') return summarize(child);
  for (;;) {
    try {
      return await ops.resume(child.runId);
    } catch (error) {
      if (!(error instanceof RunError && error.code === 'RUN_CONFLICT')) throw error;
      // Its lease (held by the same dead driver) has not expired yet.
      await pause(ops.waitMs);
      const now = await store.getRun(child.runId);
      if (!now || now.status !== 'running') return now ? summarize(now) : null;
    }
  }
}
