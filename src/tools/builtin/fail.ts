import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { argText } from './args.js';
import { standardBuiltin } from './define.js';

/** builtin_node_fail: ends the node as failed with the model's reason. */
export const failTool = standardBuiltin({
  name: 'builtin_node_fail',
  description: {
    'zh-CN': '任务无法完成时调用，以失败结束本节点。',
    en: 'Ends this node as failed when the task cannot be done.',
  },
  input: { properties: { reason: { type: 'string' } }, required: ['reason'] },
  visible: () => true,
  produces: [{ producer: 'builtin_node_fail', case: 'the node fails with the model’s reason', code: null }],
  execute(args, ctx) {
    const reason = argText(args, 'reason');
    const observation = Observation.success(hint(ctx.locale, 'NODE_FAILED', { reason }));
    return Promise.resolve({ observation, effect: { kind: 'fail', reason } });
  },
});
