import type { RunStatus } from '../api.js';
import { useI18n } from '../i18n.js';
import type { NodeStatus, Outcome } from '../trace-model.js';

const OUTCOME_ICONS: Record<Outcome, string> = { SUCCESS: '✓', FAILED: '✕', REJECTED: '⊘', DEFERRED: '↷' };
const STATUS_ICONS: Record<RunStatus | NodeStatus, string> = {
  running: '▶',
  suspended: '‖',
  completed: '✓',
  failed: '✕',
  cancelled: '■',
};

/** An observation's outcome: a distinct colour AND the word (never colour alone). */
export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  const { t } = useI18n();
  return (
    <span className={`badge outcome-${outcome.toLowerCase()}`} data-outcome={outcome}>
      <span aria-hidden="true">{OUTCOME_ICONS[outcome]}</span> {t(`outcome_${outcome}`)}
    </span>
  );
}

/** A builtin tool call (node and control tools): its own badge, never an outcome of a real system. */
export function BuiltinBadge() {
  const { t } = useI18n();
  return (
    <span className="badge builtin" data-testid="builtin-badge">
      <span aria-hidden="true">◆</span> {t('builtinBadge')}
    </span>
  );
}

/** A run's status, in words with a colour. */
export function StatusBadge({ status }: { status: RunStatus }) {
  const { t } = useI18n();
  return (
    <span className={`badge status-${status}`} data-status={status}>
      <span aria-hidden="true">{STATUS_ICONS[status]}</span> {t(`status_${status}`)}
    </span>
  );
}

/** A node's status. */
export function NodeBadge({ status }: { status: NodeStatus }) {
  const { t } = useI18n();
  return (
    <span className={`badge status-${status}`} data-status={status}>
      <span aria-hidden="true">{STATUS_ICONS[status]}</span> {t(`node_${status}`)}
    </span>
  );
}

/** Pretty JSON of a value; a string (raw arguments that were not JSON) is shown as it was sent. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      <code>{text}</code>
    </pre>
  );
}
