import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { flowNodeOf } from '../context.js';
import { argText } from './args.js';
import { standardBuiltin } from './define.js';

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
    const observation = Observation.success(hint(ctx.locale, 'NODE_FINISHED'), { summary });
    return Promise.resolve({ observation, effect: { kind: 'finish', summary } });
  },
});
