import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import type { Locale } from '../../domain/locale.js';
import { Observation } from '../../domain/observation.js';
import type { DelegateResult } from '../call.js';
import type { ProducedCase } from '../produces.js';
import { standardBuiltin } from './define.js';

/** What builtin_node_delegate produces (for docs/observations.md). */
const DELEGATE_PRODUCES: readonly ProducedCase[] = [
  { producer: 'builtin_node_delegate', case: 'the child run completed: its outputs', code: null },
  {
    producer: 'builtin_node_delegate',
    case: 'the flow is not among the node’s `delegates`',
    code: 'DELEGATION_OUT_OF_BOUNDS',
    next: 'NEXT_DELEGATION',
  },
  {
    producer: 'builtin_node_delegate',
    case: 'the child run failed',
    code: 'DELEGATE_FAILED',
    next: 'NEXT_DELEGATE_FAILED',
  },
];

/**
 * The observation of a child run that ended (the runtime also uses it when a suspended child ends
 * later): completed → SUCCESS with its outputs; failed → FAILED DELEGATE_FAILED.
 */
export function delegateObservation(
  result: Exclude<DelegateResult, { status: 'suspended' }>,
  flow: string,
  locale: Locale,
): Observation {
  if (result.status === 'completed') {
    return Observation.success(hint(locale, 'DELEGATE_COMPLETED', { flow }), {
      runId: result.childRunId,
      outputs: result.outputs,
    });
  }
  return Observation.failed(
    code('DELEGATE_FAILED'),
    code('DELEGATE_FAILED').reason(locale, { flow, detail: result.message || result.reason }),
    hint(locale, 'NEXT_DELEGATE_FAILED'),
    { runId: result.childRunId, reason: result.reason, message: result.message },
  );
}

/**
 * builtin_node_delegate (visible only where the node has `delegates`): a flow outside the node's
 * delegates → DELEGATION_OUT_OF_BOUNDS; else `services.delegate.run` drives the child run. A child
 * suspension suspends the parent with the same pending item (`effect.childRunId` names the child).
 */
export const delegateTool = standardBuiltin({
  name: 'builtin_node_delegate',
  description: {
    'zh-CN': '把一项子任务委派给本节点允许的另一个流程执行，返回其产出。',
    en: 'Delegates a sub-task to another flow this node may delegate to, and returns its outputs.',
  },
  input: {
    properties: {
      flow: {
        type: 'string',
        description: { 'zh-CN': '被委派流程的 id', en: 'The id of the flow to delegate to' },
      },
      task: {
        type: 'string',
        description: { 'zh-CN': '交给该流程的任务说明', en: 'The task for that flow' },
      },
    },
    required: ['flow', 'task'],
  },
  produces: DELEGATE_PRODUCES,
  visible: (node) => node.delegates.length > 0,
  // The wave holding this call is committed before the child run exists, so that after a crash the
  // repeated call finds that child instead of starting another.
  writeAhead: true,
  async execute(args, ctx) {
    const flow = typeof args.flow === 'string' ? args.flow : '';
    const task = typeof args.task === 'string' ? args.task : '';
    const service = ctx.services.delegate;
    if (!service) throw new Error('delegation is not available in this runtime (no delegate service)');
    const flows = await service.flows(ctx);
    if (!flows.includes(flow)) {
      return Observation.rejected(
        code('DELEGATION_OUT_OF_BOUNDS'),
        code('DELEGATION_OUT_OF_BOUNDS').reason(ctx.locale, { flow }),
        hint(ctx.locale, 'NEXT_DELEGATION', {
          flows: flows.length > 0 ? list(ctx.locale, flows) : hint(ctx.locale, 'NONE'),
        }),
      );
    }
    const result = await service.run(flow, task, ctx);
    if (result.status === 'suspended') {
      const key = result.suspension.kind === 'APPROVAL' ? 'SUSPENDED_APPROVAL' : 'SUSPENDED_FOLLOW_UP';
      const tool = result.suspension.kind === 'APPROVAL' ? result.suspension.pending.tool : '';
      const observation = Observation.success(hint(ctx.locale, key, { tool }), result.suspension.pending);
      const effect = {
        kind: 'suspend',
        suspension: result.suspension,
        childRunId: result.childRunId,
      } as const;
      return { observation, effect };
    }
    return delegateObservation(result, flow, ctx.locale);
  },
});
