import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { userTexts, type GatedCall } from '../../domain/run-state.js';
import { isWriteTool } from '../../domain/tool.js';
import { echoes, normalise } from '../matching.js';
import type { CallInput } from '../call.js';
import { flowNodeOf } from '../context.js';
import type { ProducedCase } from '../produces.js';
import { asksConfirmation, type FollowUpRules } from './follow-up-rules.js';
import type { BuiltinTool } from './builtin-tool.js';

/** What the control tools produce (for docs/observations.md). */
export const CONTROL_TOOLS_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'builtin_node_approval',
    case: 'no gated call waiting in this node, or `tool` is a known tool that is not a write',
    code: 'APPROVAL_NOT_GATED',
    next: 'NEXT_APPROVAL_NOT_GATED',
  },
  {
    producer: 'builtin_node_approval',
    case: '`tool` differs from the gated call’s tool (next names the gated tool)',
    code: 'APPROVAL_TOOL_MISMATCH',
    next: 'NEXT_APPROVAL_TOOL_MISMATCH',
  },
  {
    producer: 'builtin_node_approval',
    case: 'the run suspends APPROVAL; on approval: "用户已批准…"',
    code: null,
  },
  {
    producer: 'builtin_node_approval',
    case: 'the person declined (with their comment)',
    code: 'APPROVAL_DENIED',
    next: 'NEXT_APPROVAL_DENIED',
  },
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
];

/** The gated call of the node that still waits for a decision: recorded, not approved, declined or cleared. */
export function waitingGatedCall(ctx: CallInput): GatedCall | null {
  const gated = ctx.node.gatedCall;
  if (!gated || gated.declined === true) return null;
  // Only a still-open approval settles it: a consumed one belonged to an earlier attempt of the same call.
  if (ctx.run.approvals.some((a) => a.fingerprint === gated.fingerprint && !a.consumed)) return null;
  return gated;
}

function str(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string' ? value : '';
}

/**
 * builtin_node_approval: suspends APPROVAL for the node's waiting gated call, with pending
 * `{tool, args, summary, provenance}`. No waiting gated call, or `tool` is a known non-write tool →
 * APPROVAL_NOT_GATED; another tool than the gated one (including an unknown name) → APPROVAL_TOOL_MISMATCH.
 */
export const approvalTool: BuiltinTool = {
  name: 'builtin_node_approval',
  visible: () => true,
  execute(args, ctx) {
    const tool = str(args, 'tool');
    const gated = waitingGatedCall(ctx);
    const known = ctx.tools.get(tool);
    const knownRead = known !== undefined && !isWriteTool(known, ctx.flow.tools[tool]);
    if (!gated || knownRead) {
      return Promise.resolve(
        Observation.rejected(
          code('APPROVAL_NOT_GATED'),
          code('APPROVAL_NOT_GATED').reason(ctx.locale, { tool }),
          hint(ctx.locale, 'NEXT_APPROVAL_NOT_GATED'),
        ),
      );
    }
    if (tool !== gated.tool) {
      return Promise.resolve(
        Observation.rejected(
          code('APPROVAL_TOOL_MISMATCH'),
          code('APPROVAL_TOOL_MISMATCH').reason(ctx.locale, { tool, gated: gated.tool }),
          hint(ctx.locale, 'NEXT_APPROVAL_TOOL_MISMATCH', { gated: gated.tool }),
        ),
      );
    }
    const pending = {
      tool,
      args: gated.args,
      summary: str(args, 'summary'),
      provenance: { ...gated.provenance },
      ...(gated.userProvenance ? { userProvenance: { ...gated.userProvenance } } : {}),
      ...(gated.matches ? { matches: { ...gated.matches } } : {}),
      // The MCP server marks the tool destructive: the approval card says so (docs/mcp.md).
      ...(known?.destructiveHint === true ? { destructive: true } : {}),
    };
    const observation = Observation.success(hint(ctx.locale, 'SUSPENDED_APPROVAL', { tool }), pending);
    const suspension = { kind: 'APPROVAL', pending, fingerprint: gated.fingerprint } as const;
    return Promise.resolve({ observation, effect: { kind: 'suspend', suspension } });
  },
};

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
export function followUpTool(rules: FollowUpRules): BuiltinTool {
  return {
    name: 'builtin_node_follow_up',
    visible: () => true,
    execute(args, ctx) {
      const question = str(args, 'question');
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
  };
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
