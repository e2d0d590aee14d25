import { z } from 'zod';
import { MAX_EXPRESSION_LENGTH } from './flow-graph.js';

/**
 * The `approval` key of a write tool's policy (docs/approvals.md): rules that decide a call without a
 * person, how many people must approve it and with which roles, and how long it may wait. Part of the
 * flow format (src/domain/flow.ts), kept here so each file stays readable.
 */

/** `30s`, `15m`, `2h`, `1d` (or `500ms`): a whole number and a unit. */
const SHORT_DURATION = /^([1-9][0-9]{0,8})(ms|s|m|h|d)$/;
/** ISO 8601 durations of days, hours, minutes and seconds: `PT15M`, `P1DT2H`. */
const ISO_DURATION = /^P(?:(\d{1,6})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,6})M)?(?:(\d{1,8})S)?)?$/;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Milliseconds of a duration: `90s`, `15m`, `2h`, `1d`, `500ms`, or ISO 8601 (`PT15M`, `P1DT2H`); null
 * when the text is neither, or is zero.
 */
export function parseDuration(text: string): number | null {
  const short = SHORT_DURATION.exec(text);
  if (short) return Number(short[1]) * (UNIT_MS[short[2] ?? ''] ?? 0);
  const iso = ISO_DURATION.exec(text);
  if (!iso || text === 'P' || text.endsWith('T')) return null;
  const [d, h, m, s] = [iso[1], iso[2], iso[3], iso[4]].map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  const ms = ((d * 24 + h) * 60 + m) * 60_000 + s * 1_000;
  return ms > 0 ? ms : null;
}

/** Milliseconds of a duration the flow schema accepted; throws (a bug) for any other text. */
export function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === null) throw new Error(`not a duration: ${text}`);
  return ms;
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
      .refine((text) => parseDuration(text) !== null, {
        error: 'expected a duration such as 30s, 15m, 2h, 1d or PT15M (greater than zero)',
      })
      .optional()
      .describe('How long a pending approval may wait (`30s`, `15m`, `2h`, `1d`); recorded as `expiresAt`.'),
    onExpiry: z
      .enum(['reject', 'escalate'])
      .optional()
      .describe('What happens once `expiresAfter` has passed: reject (default) or escalate to `escalateTo`.'),
    escalateTo: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'With onExpiry escalate: the roles notified (the `roles` of `serve --webhooks` entries; docs/notifications.md).',
      ),
  })
  .describe('Approval policy of a write tool (docs/approvals.md).');

export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/**
 * The expiry part of a write tool's `approval` policy (docs/notifications.md, "Approval expiry"):
 * `expiresAfter`, `onExpiry` (`reject`, the default, or `escalate`) and `escalateTo` (the roles an
 * escalation is addressed to).
 */
export type ApprovalExpiry = Pick<ApprovalPolicy, 'expiresAfter' | 'onExpiry' | 'escalateTo'>;

/** The expiry keys of a tool policy's `approval` value, or null when it sets no `expiresAfter`. */
export function approvalExpiryOf(policy: { approval?: ApprovalExpiry } | undefined): ApprovalExpiry | null {
  const approval = policy?.approval;
  return approval?.expiresAfter !== undefined ? approval : null;
}
