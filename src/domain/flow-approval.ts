import { z } from 'zod';
import { MAX_EXPRESSION_LENGTH } from './flow-graph.js';

/**
 * The `approval` key of a write tool's policy (docs/approvals.md): rules that decide a call without a
 * person, how many people must approve it and with which roles, and how long it may wait. Part of the
 * flow format (src/domain/flow.ts), kept here so each file stays readable.
 */

/** `30s`, `15m`, `2h`, `1d` (or `500ms`): a whole number and a unit. */
export const DURATION_PATTERN = /^([1-9][0-9]{0,8})(ms|s|m|h|d)$/;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration matching DURATION_PATTERN; throws (a bug) for any other text. */
export function durationMs(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  const unit = match?.[2];
  if (!match?.[1] || !unit) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * (UNIT_MS[unit] ?? 0);
}

/** Roles a token may have that can decide approvals (docs/api.md, "Tokens"). */
export const APPROVER_ROLES = ['operator', 'admin'] as const;

const rule = (what: string) =>
  z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH, {
      error: `expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
    })
    .describe(
      `JSONata expression over {tool, args, summary, matches, provenance, userProvenance}: when true, ${what} without waiting for a person.`,
    );

export const ApproversSchema = z
  .strictObject({
    count: z
      .int()
      .min(1)
      .max(10)
      .default(1)
      .describe(
        'How many different people (by token name) must approve; with 2 or more, the person who started the run cannot count.',
      ),
    roles: z
      .array(z.enum(APPROVER_ROLES))
      .min(1)
      .optional()
      .describe('The token roles whose approval counts (default: any role that may approve).'),
  })
  .describe('Who must approve a call the rules leave to people.');

export const ApprovalPolicySchema = z
  .strictObject({
    auto: rule('the call is approved').optional(),
    reject: rule('the call is rejected (checked before `auto`)').optional(),
    approvers: ApproversSchema.optional(),
    expiresAfter: z
      .string()
      .regex(DURATION_PATTERN, { error: 'expected a duration such as 30s, 15m, 2h or 1d' })
      .optional()
      .describe('How long a pending approval may wait (`30s`, `15m`, `2h`, `1d`); recorded as `expiresAt`.'),
    onExpiry: z
      .enum(['reject', 'escalate'])
      .optional()
      .describe('What happens once `expiresAfter` has passed: reject (default) or escalate to `escalateTo`.'),
    escalateTo: z
      .array(z.enum(APPROVER_ROLES))
      .min(1)
      .optional()
      .describe('With onExpiry escalate: the roles notified.'),
  })
  .describe('Approval policy of a write tool (docs/approvals.md).');

export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;
