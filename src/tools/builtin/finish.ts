import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { flowNodeOf } from '../context.js';
import { argText } from './args.js';
import { standardBuiltin } from './define.js';
import type { WithEffect } from './builtin-tool.js';
import type { CallInput } from '../call.js';
import { replyRefusal } from '../reply-rule.js';

/** builtin_node_finish: completes the node when every required output is written, else FINISH_OUTPUTS_MISSING. */
export const finishTool = standardBuiltin({
  name: 'builtin_node_finish',
  description: {
    'zh-CN': '结束本节点（任务完成后调用）。',
    en: 'Ends this node once the task is done.',
  },
  input: { properties: { summary: { type: 'string' } }, required: ['summary'] },
  visible: () => true,
  produces: [
    {
      producer: 'builtin_node_finish',
      case: 'every required output is written: the node completes',
      code: null,
    },
    {
      producer: 'builtin_node_finish',
      case: 'required outputs are missing (named)',
      code: 'FINISH_OUTPUTS_MISSING',
      next: 'NEXT_FINISH_MISSING',
    },
    {
      producer: 'builtin_node_finish',
      case: 'the node has `reply: { untrusted: refuse }` and the summary repeats a name (two or more capitalised words) that stands only in untrusted text',
      code: 'REPLY_UNTRUSTED_PHRASE',
      next: 'NEXT_REPLY_UNTRUSTED',
    },
  ],
  execute(args, ctx) {
    const missing = Object.entries(flowNodeOf(ctx).outputs)
      .filter(([key, contract]) => contract.required && !Object.hasOwn(ctx.node.outputs, key))
      .map(([key]) => key);
    if (missing.length > 0) {
      const keys = list(ctx.locale, missing);
      return Promise.resolve(
        Observation.rejected(
          code('FINISH_OUTPUTS_MISSING'),
          code('FINISH_OUTPUTS_MISSING').reason(ctx.locale, { keys }),
          hint(ctx.locale, 'NEXT_FINISH_MISSING', { keys }),
        ),
      );
    }
    const summary = argText(args, 'summary');
    if (flowNodeOf(ctx).reply?.untrusted === 'refuse') return finishChecked(summary, ctx);
    const observation = Observation.success(hint(ctx.locale, 'NODE_FINISHED'), { summary });
    return Promise.resolve({ observation, effect: { kind: 'finish', summary } });
  },
});

/** builtin_node_finish of a node with `reply: { untrusted: refuse }`: the summary is checked first. */
async function finishChecked(summary: string, ctx: CallInput): Promise<Observation | WithEffect> {
  const refusal = await replyRefusal(summary, ctx);
  if (refusal) return refusal;
  const observation = Observation.success(hint(ctx.locale, 'NODE_FINISHED'), { summary });
  return { observation, effect: { kind: 'finish', summary } };
}
