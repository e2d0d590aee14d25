import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { GatedCall } from '../../records/run-state.js';
import { isWriteTool } from '../../domain/tool.js';
import type { CallInput } from '../call.js';
import type { ProducedCase } from '../produces.js';
import type { WithEffect } from '../builtin/builtin-tool.js';
import { standardBuiltin } from '../builtin/define.js';
import type { ApprovalPending } from '../../records/pending.js';
import { applyRule, decideByRule, policyFields } from './rules.js';

/** What builtin_node_approval produces (for docs/observations.md). */
const APPROVAL_TOOL_PRODUCES: readonly ProducedCase[] = [
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
    case: "the tool's approval policy `auto` rule holds: approved at once, no suspension (docs/approvals.md)",
    code: null,
  },
  {
    producer: 'builtin_node_approval',
    case: "the tool's approval policy `reject` rule holds: declined at once, no suspension",
    code: 'APPROVAL_DENIED',
    next: 'NEXT_APPROVAL_DENIED',
  },
  {
    producer: 'builtin_node_approval',
    case: 'the person declined (with their comment)',
    code: 'APPROVAL_DENIED',
    next: 'NEXT_APPROVAL_DENIED',
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
 * Visible only in a node that can call a write tool.
 */
export const approvalTool = standardBuiltin({
  name: 'builtin_node_approval',
  description: {
    'zh-CN': '为刚因须经确认而被拦下的写操作申请用户确认；tool 填该写工具名。',
    en: 'Asks the user to approve the write call just stopped for approval; `tool` is that write tool.',
  },
  input: {
    properties: {
      tool: {
        type: 'string',
        description: { 'zh-CN': '被拦下的写工具名', en: 'The name of the stopped write tool' },
      },
      summary: {
        type: 'string',
        description: { 'zh-CN': '向用户说明这次写操作要做什么', en: 'What the write will do, for the user' },
      },
    },
    required: ['tool', 'summary'],
  },
  produces: APPROVAL_TOOL_PRODUCES,
  // Only a write can be stopped for approval: a node without one never needs this tool.
  visible: (_node, tools) => tools.writes,
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
    const pending: ApprovalPending = {
      tool,
      args: gated.args,
      summary: str(args, 'summary'),
      provenance: { ...gated.provenance },
      ...(gated.userProvenance ? { userProvenance: { ...gated.userProvenance } } : {}),
      ...(gated.matches ? { matches: { ...gated.matches } } : {}),
      // The MCP server marks the tool destructive: the approval card says so (docs/mcp.md).
      ...(known?.destructiveHint === true ? { destructive: true } : {}),
    };
    return decide(ctx, gated, pending);
  },
});

/** The policy's rules decide the call at once, or the run suspends for people (docs/approvals.md). */
async function decide(
  ctx: CallInput,
  gated: GatedCall,
  base: ApprovalPending,
): Promise<Observation | WithEffect> {
  const policy = ctx.flow.tools[gated.tool]?.approval;
  const rule = policy ? await decideByRule(ctx, policy, base) : null;
  if (rule) return applyRule(ctx, gated, rule);
  const pending = { ...base, ...policyFields(policy, ctx.services.now()) };
  const observation = Observation.success(
    hint(ctx.locale, 'SUSPENDED_APPROVAL', { tool: gated.tool }),
    pending,
  );
  const suspension = { kind: 'APPROVAL', pending, fingerprint: gated.fingerprint } as const;
  return { observation, effect: { kind: 'suspend', suspension } };
}
