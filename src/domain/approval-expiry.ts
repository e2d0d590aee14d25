import type { ApprovalPolicy } from './flow-approval.js';

/**
 * The expiry part of a write tool's `approval` policy (docs/notifications.md, "Expiry"):
 * `expiresAfter` (a duration, src/domain/flow-approval.ts), `onExpiry` (`reject`, the default, or
 * `escalate`) and `escalateTo` (the roles an escalation is addressed to).
 */
export type ApprovalExpiry = Pick<ApprovalPolicy, 'expiresAfter' | 'onExpiry' | 'escalateTo'>;

/** The expiry keys of a tool policy's `approval` value, or null when it sets no `expiresAfter`. */
export function approvalExpiryOf(policy: { approval?: ApprovalExpiry } | undefined): ApprovalExpiry | null {
  const approval = policy?.approval;
  return approval?.expiresAfter !== undefined ? approval : null;
}
