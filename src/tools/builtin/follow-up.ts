import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { userTexts } from '../../records/run-state.js';
import { isWriteTool } from '../../domain/tool.js';
import { echoes, normalise } from '../matching.js';
import type { CallInput } from '../call.js';
import { flowNodeOf } from '../context.js';
import { asksConfirmation, type FollowUpRules } from './follow-up-rules.js';
import { waitingGatedCall } from '../approval/builtin.js';
import { argString } from './args.js';
import { standardBuiltin, type BuiltinDefinition } from './define.js';

/** The write tool a confirmation question is about: one it names, else the waiting gated call's; null if none. */
function confirmedWrite(ctx: CallInput, question: string): string | null {
  const q = normalise(question);
  const writes = flowNodeOf(ctx).tools.filter((name) => {
    const descriptor = ctx.tools.get(name);
    return descriptor !== undefined && isWriteTool(descriptor, ctx.flow.tools[name]);
  });
  const named = writes.find((name) => q.includes(normalise(name)));
  return named ?? waitingGatedCall(ctx)?.tool ?? null;
}

/**
 * builtin_node_follow_up: suspends FOLLOW_UP with `{question, options}`. Rejects FOLLOW_UP_ANSWERED
 * when the same question (normalised, punctuation removed) was answered in this run, and
 * FOLLOW_UP_UNGROUNDED when it verbally confirms a write or only echoes the user — except for the
 * first follow-up after an approved write failed, which is never UNGROUNDED.
 */
export function followUpTool(rules: FollowUpRules): BuiltinDefinition {
  return standardBuiltin({
    name: 'builtin_node_follow_up',
    description: {
      'zh-CN': '向用户询问缺少的信息或请其选择，并等待回答。',
      en: 'Asks the user for missing information or a choice, and waits for the answer.',
    },
    input: {
      properties: {
        // The names say it: no descriptions.
        question: { type: 'string' },
        options: { type: 'array' },
      },
      required: ['question'],
    },
    visible: () => true,
    produces: [
      {
        producer: 'builtin_node_follow_up',
        case: 'the run suspends FOLLOW_UP; on answer: the answer',
        code: null,
      },
      {
        producer: 'builtin_node_follow_up',
        case: 'the same question (normalised) was already answered; the reason carries the answer',
        code: 'FOLLOW_UP_ANSWERED',
        next: 'NEXT_FOLLOW_UP_ANSWERED',
      },
      {
        producer: 'builtin_node_follow_up',
        case: 'it asks for confirmation (word lists below, or yes/no options) and names a write tool of the node or a gated call waits — except the first follow-up after an approved write failed',
        code: 'FOLLOW_UP_UNGROUNDED',
        next: 'NEXT_FOLLOW_UP_WRITE',
      },
      {
        producer: 'builtin_node_follow_up',
        case: 'the question (normalised, without punctuation) is contained in the run input or a follow-up answer',
        code: 'FOLLOW_UP_UNGROUNDED',
        next: 'NEXT_FOLLOW_UP_WRITE',
      },
    ],
    execute(args, ctx) {
      const question = argString(args, 'question');
      const options = Array.isArray(args.options) ? args.options.map(String) : null;
      const key = normalise(question);
      const earlier = ctx.run.followUps.find((f) => normalise(f.question) === key);
      if (earlier) {
        return Promise.resolve(
          Observation.rejected(
            code('FOLLOW_UP_ANSWERED'),
            code('FOLLOW_UP_ANSWERED').reason(ctx.locale, { answer: earlier.answer }),
            hint(ctx.locale, 'NEXT_FOLLOW_UP_ANSWERED'),
          ),
        );
      }
      const ungrounded = ctx.node.approvedWriteFailed ? null : checkGrounded(ctx, rules, question, options);
      if (ungrounded) return Promise.resolve(ungrounded);
      const pending = { question, options };
      const observation = Observation.success(hint(ctx.locale, 'SUSPENDED_FOLLOW_UP'), pending);
      return Promise.resolve({
        observation,
        effect: { kind: 'suspend', suspension: { kind: 'FOLLOW_UP', pending } },
      });
    },
  });
}

function checkGrounded(
  ctx: CallInput,
  rules: FollowUpRules,
  question: string,
  options: string[] | null,
): Observation | null {
  const unGrounded = (what: string, next: string) =>
    Observation.rejected(
      code('FOLLOW_UP_UNGROUNDED'),
      code('FOLLOW_UP_UNGROUNDED').reason(ctx.locale, { what }),
      next,
    );
  if (asksConfirmation(rules, question, options)) {
    const tool = confirmedWrite(ctx, question);
    if (tool) {
      return unGrounded(
        hint(ctx.locale, 'UNGROUNDED_CONFIRMS_WRITE', { tool }),
        hint(ctx.locale, 'NEXT_FOLLOW_UP_WRITE'),
      );
    }
  }
  if (echoes(question, userTexts(ctx.run))) {
    return unGrounded(hint(ctx.locale, 'UNGROUNDED_ECHO'), hint(ctx.locale, 'NEXT_FOLLOW_UP_WRITE'));
  }
  return null;
}
