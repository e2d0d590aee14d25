import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { flowNodeOf } from '../context.js';
import type { ProducedCase } from '../produces.js';
import { OutputContractValidator } from './output-contract.js';
import type { BuiltinTool, WithEffect } from './builtin-tool.js';
import type { CallInput } from '../call.js';
import { replySources, untrustedPhrases, type ReplyContext } from '../reply-rule.js';

/** What the node tools produce (for docs/observations.md). */
export const NODE_TOOLS_PRODUCES: readonly ProducedCase[] = [
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
  { producer: 'builtin_node_fail', case: 'the node fails with the model’s reason', code: null },
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
];

function text(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? ''
      : JSON.stringify(value);
}

/** builtin_node_finish: completes the node when every required output is written, else FINISH_OUTPUTS_MISSING. */
export const finishTool: BuiltinTool = {
  name: 'builtin_node_finish',
  visible: () => true,
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
    const summary = text(args, 'summary');
    if (flowNodeOf(ctx).reply?.untrusted === 'refuse') return finishChecked(summary, ctx);
    const observation = Observation.success(hint(ctx.locale, 'NODE_FINISHED'), { summary });
    return Promise.resolve({ observation, effect: { kind: 'finish', summary } });
  },
};

/** builtin_node_finish of a node with `reply: { untrusted: refuse }`: the summary is checked first. */
async function finishChecked(summary: string, ctx: CallInput): Promise<Observation | WithEffect> {
  const refusal = await replyRefusal(summary, ctx);
  if (refusal) return refusal;
  const observation = Observation.success(hint(ctx.locale, 'NODE_FINISHED'), { summary });
  return { observation, effect: { kind: 'finish', summary } };
}

/**
 * The REJECTED observation of a reply that repeats names standing only in untrusted text (reply
 * rule, src/tools/reply-rule.ts), or null when it repeats none.
 */
export async function replyRefusal(reply: string, ctx: ReplyContext): Promise<Observation | null> {
  const found = untrustedPhrases(reply, await replySources(ctx));
  if (found.length === 0) return null;
  const phrases = list(
    ctx.locale,
    found.map((f) => `"${f.phrase}"`),
  );
  const tools = list(ctx.locale, [...new Set(found.flatMap((f) => f.tools))]);
  return Observation.rejected(
    code('REPLY_UNTRUSTED_PHRASE'),
    code('REPLY_UNTRUSTED_PHRASE').reason(ctx.locale, { phrases, tools }),
    hint(ctx.locale, 'NEXT_REPLY_UNTRUSTED', { phrases }),
  );
}

/** builtin_node_fail: ends the node as failed with the model's reason. */
export const failTool: BuiltinTool = {
  name: 'builtin_node_fail',
  visible: () => true,
  execute(args, ctx) {
    const reason = text(args, 'reason');
    const observation = Observation.success(hint(ctx.locale, 'NODE_FAILED', { reason }));
    return Promise.resolve({ observation, effect: { kind: 'fail', reason } });
  },
};

/** builtin_output_set (visible only in a node with `outputs`): stores one output after the OutputContractValidator accepted it. */
export const outputSetTool: BuiltinTool = {
  name: 'builtin_output_set',
  visible: (node) => Object.keys(node.outputs).length > 0,
  execute(args, ctx) {
    const validator = new OutputContractValidator(
      flowNodeOf(ctx).outputs,
      ctx.run,
      ctx.locale,
      ctx.services.logger,
    );
    const key = text(args, 'key');
    const sourceRef = typeof args.sourceRef === 'string' ? args.sourceRef : null;
    const checked = validator.validate({
      key,
      value: args.value,
      sourceType: text(args, 'sourceType'),
      sourceRef,
    });
    if (!checked.ok) return Promise.resolve(checked.rejection);
    const stored = checked.stored;
    ctx.node.outputs[key] = stored;
    return Promise.resolve(
      Observation.success(hint(ctx.locale, 'OUTPUT_WRITTEN', { key }), {
        key,
        value: stored.value,
        ...(stored.match ? { match: stored.match } : {}),
      }),
    );
  },
};
