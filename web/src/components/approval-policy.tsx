import { useState, type ReactNode } from 'react';
import type { ApprovalPending } from '../api.js';
import { formatTime, useI18n } from '../i18n.js';

/**
 * What the tool's approval policy asks of the people deciding (docs/approvals.md): how many must
 * approve, who has so far, which roles count, and when the item expires. Nothing without a policy.
 */
export function ApproverProgress({ pending }: { pending: ApprovalPending }) {
  const { t, locale } = useI18n();
  const needed = pending.approvers;
  const votes = pending.approvedBy ?? [];
  if (!needed && !pending.expiresAt) return null;
  return (
    <div className="approvers" data-testid="approvers">
      {needed && needed.count > 1 && (
        <p>
          {votes.length > 0
            ? t('approvedBySoFar', {
                done: votes.length,
                count: needed.count,
                who: votes.map((v) => v.who).join(', '),
              })
            : t('approvedByNone', { count: needed.count })}
        </p>
      )}
      {needed?.roles && <p>{t('approverRoles', { roles: needed.roles.join(', ') })}</p>}
      {pending.expiresAt && !pending.escalatedAt && !pending.expiredAt && (
        <p>{t('expiresAt', { when: formatTime(locale, pending.expiresAt) })}</p>
      )}
      {pending.escalatedAt && (
        <p data-testid="escalated">
          {t('escalatedSince', { when: formatTime(locale, pending.escalatedAt) })}
        </p>
      )}
      {pending.expiredAt && <p>{t('expiredAt', { when: formatTime(locale, pending.expiredAt) })}</p>}
    </div>
  );
}

/** The editable arguments of an approval card: undefined while not edited, else the parsed object or the parse error. */
export interface ArgsEditor {
  editing: boolean;
  /** The arguments to approve: undefined when not edited, or a message when the text is no JSON object. */
  read(): { args?: Record<string, unknown> } | { error: string };
  view: ReactNode;
}

/**
 * A toggle and a JSON text area prefilled with the pending arguments: an approval with edited
 * arguments is checked by the guards again on the server (400 ARGS_REFUSED names the check). Not
 * offered where several people approve (the server refuses edits there).
 */
export function useArgsEditor(pending: ApprovalPending): ArgsEditor {
  const { t } = useI18n();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(() => JSON.stringify(pending.args, null, 2));
  const offered = (pending.approvers?.count ?? 1) < 2;
  const read = (): { args?: Record<string, unknown> } | { error: string } => {
    if (!editing) return {};
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { error: t('editArgsInvalid', { message: 'not an object' }) };
      return { args: value as Record<string, unknown> };
    } catch (error) {
      return {
        error: t('editArgsInvalid', { message: error instanceof Error ? error.message : String(error) }),
      };
    }
  };
  const view = offered ? (
    <div className="edit-args">
      <label>
        <input type="checkbox" checked={editing} onChange={(e) => setEditing(e.target.checked)} />{' '}
        {t('editArgs')}
      </label>
      {editing && (
        <>
          <label htmlFor="approval-args">{t('editArgsLabel')}</label>
          <textarea
            id="approval-args"
            data-testid="approval-args-edit"
            rows={6}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </>
      )}
    </div>
  ) : null;
  return { editing: offered && editing, read, view };
}
