import type { FlowNode, Limits } from '../domain/flow.js';
import { ChangeLog } from '../records/changes.js';
import type { CallInput, CallInputInit } from './call.js';

/** What one call starts with; `tools` defaults to the real tools among `visible`, `locale` to the flow's. */
export function createCallInput(init: CallInputInit): CallInput {
  const tools = init.tools ?? new Map([...init.visible].filter(([, d]) => d.kind !== 'builtin'));
  return {
    call: init.call,
    flow: init.flow,
    nodeId: init.nodeId,
    locale: init.locale ?? init.flow.locale,
    run: init.run,
    node: init.node,
    changes: init.changes ?? new ChangeLog({ run: init.run, node: init.node }),
    ...(init.input !== undefined ? { input: init.input } : {}),
    visible: init.visible,
    tools,
    services: init.services,
  };
}

/** The flow node of the call; throws when the flow has no such node (a runtime bug). */
export function flowNodeOf(ctx: Pick<CallInput, 'flow' | 'nodeId'>): FlowNode {
  const node = ctx.flow.nodes.find((n) => n.id === ctx.nodeId);
  if (!node) throw new Error(`flow ${ctx.flow.id} has no node ${ctx.nodeId}`);
  return node;
}

/** Each node's effective limits, computed once per flow node (flows are not changed once loaded). */
const nodeLimits = new WeakMap<object, Limits>();

/** The limits in force for the context's node: the flow's, with the node's own on top. */
export function limitsOf(ctx: Pick<CallInput, 'flow' | 'nodeId'>): Limits {
  const node = ctx.flow.nodes.find((n) => n.id === ctx.nodeId);
  if (!node) return { ...ctx.flow.limits };
  let limits = nodeLimits.get(node);
  if (!limits) {
    limits = { ...ctx.flow.limits, ...(node.limits ?? {}) };
    nodeLimits.set(node, limits);
  }
  return limits;
}
