import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { flowNodeOf } from '../context.js';
import { argText } from './args.js';
import { standardBuiltin } from './define.js';
import { OutputContractValidator } from './output-contract.js';

/** builtin_output_set (visible only in a node with `outputs`): stores one output after the OutputContractValidator accepted it. */
export const outputSetTool = standardBuiltin({
  name: 'builtin_output_set',
  description: {
    'zh-CN':
      '写入本节点的一项产出，并注明来源：evidence（sourceRef 填证据编号，如 ev_1）、user（用户说过的值）、node（sourceRef 填 <节点id>.<键>）、model（自由文本，仅在契约接受时）。',
    en: 'Writes one output of this node with its source: evidence (sourceRef = an evidence id such as ev_1), user (a value the user said), node (sourceRef = <node id>.<key>), model (free text, only where the contract accepts it).',
  },
  input: {
    properties: {
      key: { type: 'string', description: { 'zh-CN': '产出键', en: 'The output key' } },
      value: { type: 'json', description: { 'zh-CN': '产出的值（任意 JSON）', en: 'The value (any JSON)' } },
      // No schema enum: an unknown type is the validator's OUTPUT_SOURCE_INVALID (docs/observations.md), with the accepted ones.
      sourceType: {
        type: 'string',
        description: {
          'zh-CN': '来源类型：evidence、user、node 或 model',
          en: 'The source type: evidence, user, node or model',
        },
      },
      sourceRef: {
        type: 'string',
        description: {
          'zh-CN': '来源引用：证据编号或 <节点id>.<键>',
          en: 'The source reference: an evidence id or <node id>.<key>',
        },
      },
    },
    required: ['key', 'value', 'sourceType'],
  },
  visible: (node) => Object.keys(node.outputs).length > 0,
  produces: [
    {
      producer: 'builtin_output_set',
      case: 'the value passed its contract and is stored as given',
      code: null,
    },
    {
      producer: 'builtin_output_set',
      case: 'the key is not declared by the node (next lists the declared keys)',
      code: 'OUTPUT_KEY_UNDECLARED',
      next: 'NEXT_OUTPUT_KEYS',
    },
    {
      producer: 'builtin_output_set',
      case: 'the source type is unknown, or not accepted for the key',
      code: 'OUTPUT_SOURCE_INVALID',
      next: 'NEXT_OUTPUT_SOURCE_TYPES',
    },
    {
      producer: 'builtin_output_set',
      case: 'the cited evidence is unknown, did not succeed, or comes from a tool outside the key’s `from`',
      code: 'OUTPUT_SOURCE_INVALID',
      next: 'NEXT_OUTPUT_TOOLS',
    },
    {
      producer: 'builtin_output_set',
      case: 'the cited node output (`<nodeId>.<key>`) does not exist',
      code: 'OUTPUT_SOURCE_INVALID',
      next: 'NEXT_OUTPUT_SOURCE_REF',
    },
    {
      producer: 'builtin_output_set',
      case: 'sourceType evidence or node without sourceRef',
      code: 'OUTPUT_SOURCE_REF_MISSING',
      next: 'NEXT_OUTPUT_SOURCE_REF',
    },
    {
      producer: 'builtin_output_set',
      case: 'the value is not in the cited evidence’s payload',
      code: 'OUTPUT_VALUE_MISMATCH',
      next: 'NEXT_OUTPUT_VALUE',
    },
    {
      producer: 'builtin_output_set',
      case: 'sourceType user: the user never said the value',
      code: 'OUTPUT_VALUE_MISMATCH',
      next: 'NEXT_OUTPUT_USER_VALUE',
    },
    {
      producer: 'builtin_output_set',
      case: 'sourceType node: the value is not in the cited node output',
      code: 'OUTPUT_VALUE_MISMATCH',
      next: 'NEXT_OUTPUT_NODE_VALUE',
    },
    {
      producer: 'builtin_output_set',
      case: 'the value breaks the key’s `schema` (the reason names at most three failing rules, with their paths)',
      code: 'OUTPUT_SCHEMA_MISMATCH',
      next: 'NEXT_OUTPUT_SCHEMA',
    },
  ],
  execute(args, ctx) {
    const validator = new OutputContractValidator(
      flowNodeOf(ctx).outputs,
      ctx.run,
      ctx.locale,
      ctx.services.logger,
    );
    const key = argText(args, 'key');
    const sourceRef = typeof args.sourceRef === 'string' ? args.sourceRef : null;
    const checked = validator.validate({
      key,
      value: args.value,
      sourceType: argText(args, 'sourceType'),
      sourceRef,
    });
    if (!checked.ok) return Promise.resolve(checked.rejection);
    const stored = checked.stored;
    ctx.changes.record({ kind: 'output', key, value: stored });
    return Promise.resolve(
      Observation.success(hint(ctx.locale, 'OUTPUT_WRITTEN', { key }), {
        key,
        value: stored.value,
        ...(stored.match ? { match: stored.match } : {}),
      }),
    );
  },
});
