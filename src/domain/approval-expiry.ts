import { z } from 'zod';

/**
 * The expiry part of a write tool's `approval` policy (docs/notifications.md, "Expiry"):
 * `expiresAfter` (a duration), `onExpiry` (`reject`, the default, or `escalate`) and `escalateTo`
 * (the roles an escalation is addressed to). Kept apart so it can be merged with the rest of the
 * `approval` policy (auto / reject rules, approvers).
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SHORT = /^([1-9]\d{0,8})(ms|s|m|h|d)$/;
const ISO = /^P(?:(\d{1,6})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,6})M)?(?:(\d{1,8})S)?)?$/;

/**
 * Milliseconds of a duration: `90s`, `15m`, `2h`, `1d`, `500ms`, or ISO 8601 (`PT15M`, `P1DT2H`);
 * null when the text is neither, or is zero.
 */
export function durationMs(text: string): number | null {
  const short = SHORT.exec(text);
  if (short) return Number(short[1]) * (UNIT_MS[short[2] ?? ''] ?? 0);
  const iso = ISO.exec(text);
  if (!iso || text === 'P' || text.endsWith('T')) return null;
  const [d, h, m, s] = [iso[1], iso[2], iso[3], iso[4]].map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  const ms = ((d * 24 + h) * 60 + m) * 60_000 + s * 1000;
  return ms > 0 ? ms : null;
}

/** A duration as the flow file spells it. */
export const DurationSchema = z
  .string()
  .refine((text) => durationMs(text) !== null, {
    message: 'a duration like 90s, 15m, 2h, 1d or PT15M (greater than zero)',
  })
  .describe('A duration: 90s, 15m, 2h, 1d, 500ms, or ISO 8601 such as PT15M.');

/** What happens to an approval not decided within `expiresAfter`. */
export const OnExpirySchema = z
  .enum(['reject', 'escalate'])
  .describe(
    '`reject` (default): the call is rejected and the model told why; `escalate`: notify `escalateTo`.',
  );

/** The expiry keys of a write tool's `approval` policy. */
export const ApprovalExpiryShape = {
  expiresAfter: DurationSchema.optional().describe(
    'How long the approval may wait for a person; then `onExpiry` applies.',
  ),
  onExpiry: OnExpirySchema.optional(),
  escalateTo: z
    .array(z.string().min(1))
    .optional()
    .describe('Roles an escalation is addressed to (sent in the `approval.escalated` notification).'),
};

/** A write tool's `approval` policy (optional): its expiry keys. */
export const ApprovalPolicySchema = z
  .strictObject({ ...ApprovalExpiryShape })
  .optional()
  .describe('How a person approves this write: expiry (docs/notifications.md).');

/** The expiry keys of an approval policy, parsed. */
export interface ApprovalExpiry {
  expiresAfter?: string;
  onExpiry?: 'reject' | 'escalate';
  escalateTo?: string[];
}

/** The expiry keys of a tool policy's `approval` value, or null when it sets no `expiresAfter`. */
export function approvalExpiryOf(policy: { approval?: ApprovalExpiry } | undefined): ApprovalExpiry | null {
  const approval = policy?.approval;
  return approval?.expiresAfter !== undefined ? approval : null;
}
