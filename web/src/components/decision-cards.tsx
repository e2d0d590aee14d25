import { useState, type FormEvent } from 'react';
import {
  ApiError,
  isApproval,
  isTask,
  type ApprovalPending,
  type FollowUpPending,
  type Pending,
  type RunSummary,
  type SuspensionKind,
  type TaskPending,
} from '../api.js';
import { taskText } from './task-text.js';
import { formatTime, useI18n, type Translate } from '../i18n.js';
import { useSession } from '../session.js';
import type { Resolution, SuspensionView } from '../trace-model.js';
import { JsonBlock } from './badges.js';
import { ConnectCard } from './connect-button.js';
import { ElicitationForm } from './elicitation-form.js';
import { ArgumentSource, useEvidence } from './evidence.js';
import { ApproverProgress, useArgsEditor } from './approval-policy.js';

/** The card of the decision the run waits for: an approval or a question. */
export function ActiveCard(props: {
  runId: string;
  kind: SuspensionKind;
  pending: Pending;
  onAnswered: (s: RunSummary) => void;
}) {
  const { pending } = props;
  if (props.kind === 'APPROVAL' && isApproval(pending)) return <ApprovalCard {...props} pending={pending} />;
  if (isTask(pending)) return <TaskCard pending={pending} />;
  if (!isApproval(pending) && pending.authorization)
    return <ConnectCard {...props} pending={{ ...pending, authorization: pending.authorization }} />;
  if (!isApproval(pending)) return <FollowUpCard {...props} pending={pending} />;
  return null;
}

/** A run waiting for an MCP task: nothing to decide, the task's status (the run goes on when it ends). */
function TaskCard({ pending }: { pending: TaskPending }) {
  const { t } = useI18n();
  return (
    <div className="card" data-testid="task-card">
      <h3>{t('kind_TASK')}</h3>
      <p>{taskText(pending, t)}</p>
    </div>
  );
}

/** Sends a decision or answer and reports what went wrong in the person's words. */
function useSend(onAnswered: (s: RunSummary) => void): {
  busy: boolean;
  error: string | null;
  send: (call: () => Promise<RunSummary>) => void;
} {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = (call: () => Promise<RunSummary>): void => {
    setBusy(true);
    setError(null);
    call().then(
      (summary) => {
        setBusy(false);
        onAnswered(summary);
      },
      (failure: unknown) => {
        setBusy(false);
        if (failure instanceof ApiError && failure.status === 409) setError(t('conflict'));
        else
          setError(
            t('actionFailed', { message: failure instanceof Error ? failure.message : String(failure) }),
          );
      },
    );
  };
  return { busy, error, send };
}

function ApprovalCard({
  runId,
  pending,
  onAnswered,
}: {
  runId: string;
  pending: ApprovalPending;
  onAnswered: (s: RunSummary) => void;
}) {
  const { t } = useI18n();
  const { api, canAct, me, roleKnown } = useSession();
  const [comment, setComment] = useState('');
  const { busy, error, send } = useSend(onAnswered);
  const editor = useArgsEditor(pending);
  const [argsError, setArgsError] = useState<string | null>(null);
  const approve = (): void => {
    const read = editor.read();
    if ('error' in read) return setArgsError(read.error);
    setArgsError(null);
    send(() => api.decide(runId, 'approve', comment, pending.id, read.args));
  };
  return (
    <section className="card decision approval" aria-labelledby="approval-title" data-testid="approval-card">
      <h2 id="approval-title">{t('approvalTitle', { tool: pending.tool })}</h2>
      <p>{t('approvalIntro')}</p>
      <PendingApproval runId={runId} pending={pending} />
      <ApproverProgress pending={pending} />
      {canAct ? (
        <form className="decide" onSubmit={(e) => e.preventDefault()}>
          {editor.view}
          <label htmlFor="approval-comment">{t('commentLabel')}</label>
          <textarea
            id="approval-comment"
            rows={2}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
          />
          <div className="buttons">
            <button type="button" className="approve" disabled={busy} onClick={approve}>
              {busy ? t('sending') : editor.editing ? t('approveEdited') : t('approve')}
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => send(() => api.decide(runId, 'reject', comment, pending.id))}
            >
              {t('reject')}
            </button>
          </div>
        </form>
      ) : (
        <p className="note">{roleKnown ? t('viewerCannotDecide', { role: me.role }) : t('roleUnknown')}</p>
      )}
      {(argsError ?? error) && (
        <p role="alert" className="error">
          {argsError ?? error}
        </p>
      )}
    </section>
  );
}

/**
 * The exact call waiting for approval: the model's summary, each argument with where its value came
 * from (an evidence record with the value highlighted in its payload, the user's words, or not
 * checked), and the JSON.
 */
export function PendingApproval({ runId, pending }: { runId: string; pending: ApprovalPending }) {
  const { t } = useI18n();
  const cited = [
    ...Object.values(pending.provenance ?? {}),
    ...Object.values(pending.matches ?? {}).flatMap((list) => list.flatMap((m) => m.evidenceId ?? [])),
  ];
  const { records, error } = useEvidence(runId, [...new Set(cited)]);
  return (
    <>
      <h3>{t('modelSummary')}</h3>
      <p className="summary-text">{pending.summary}</p>
      <table className="args" data-testid="approval-args">
        <caption>
          {t('toolLabel')}: <code>{pending.tool}</code>
        </caption>
        <thead>
          <tr>
            <th scope="col">{t('argName')}</th>
            <th scope="col">{t('argValue')}</th>
            <th scope="col">{t('argSource')}</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(pending.args).map(([name, value]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>
                <code>{JSON.stringify(value)}</code>
              </td>
              <td>
                <ArgumentSource runId={runId} name={name} value={value} pending={pending} records={records} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {error && (
        <p role="alert" className="error">
          {t('evidenceLoadFailed', { message: error })}
        </p>
      )}
      <details open>
        <summary>{t('allArgs')}</summary>
        <JsonBlock value={pending.args} label={t('allArgs')} />
      </details>
    </>
  );
}

function FollowUpCard({
  runId,
  pending,
  onAnswered,
}: {
  runId: string;
  pending: FollowUpPending;
  onAnswered: (s: RunSummary) => void;
}) {
  const { t } = useI18n();
  const { api, canAct, me, roleKnown } = useSession();
  const [text, setText] = useState('');
  const { busy, error, send } = useSend(onAnswered);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (text.trim()) send(() => api.answer(runId, text.trim(), pending.id));
  };
  return (
    <section
      className="card decision follow-up"
      aria-labelledby="follow-up-title"
      data-testid="follow-up-card"
    >
      <h2 id="follow-up-title">{t('followUpTitle')}</h2>
      <p className="question">{pending.question}</p>
      {canAct && pending.elicitation ? (
        <ElicitationForm
          elicitation={pending.elicitation}
          busy={busy}
          onSend={(action, answer) => send(() => api.answer(runId, answer, pending.id, action))}
        />
      ) : canAct ? (
        <>
          {pending.options && pending.options.length > 0 && (
            <div role="group" aria-label={t('optionsLabel')} className="buttons options">
              {pending.options.map((option) => (
                <button
                  key={option}
                  type="button"
                  disabled={busy}
                  onClick={() => send(() => api.answer(runId, option, pending.id))}
                >
                  {option}
                </button>
              ))}
            </div>
          )}
          <form onSubmit={submit} className="answer-form">
            <label htmlFor="follow-up-answer">{t('answerLabel')}</label>
            <input id="follow-up-answer" type="text" value={text} onChange={(e) => setText(e.target.value)} />
            <button type="submit" disabled={busy || !text.trim()}>
              {busy ? t('sending') : t('sendAnswer')}
            </button>
          </form>
        </>
      ) : (
        <>
          {pending.options && <p>{pending.options.join(' / ')}</p>}
          <p className="note">{roleKnown ? t('viewerCannotDecide', { role: me.role }) : t('roleUnknown')}</p>
        </>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}

/** An approval's heading: "Approval needed" while it waits, then the decision ("Approved: tool" / "Rejected: tool"). */
export function approvalHeading(t: Translate, tool: string, resolution: Resolution | null): string {
  if (resolution?.decision === 'approved') return t('approvedTitle', { tool });
  if (resolution?.decision === 'rejected') return t('rejectedTitle', { tool });
  return t('approvalTitle', { tool });
}

/** The last decision made: what was asked, and who answered what, when (from `run.resumed`). */
export function DecidedCard({ runId, item }: { runId: string; item: SuspensionView }) {
  const { t } = useI18n();
  const resolution = item.resolution as Resolution;
  const approval = isApproval(item.pending) ? item.pending : null;
  return (
    <section className="card decision decided" aria-labelledby="decided-title" data-testid="decided-card">
      <h2 id="decided-title">
        {approval ? approvalHeading(t, approval.tool, resolution) : t('followUpTitle')}
      </h2>
      <ResolutionLine resolution={resolution} />
      {approval ? (
        <PendingApproval runId={runId} pending={approval} />
      ) : (
        <p className="question">{(item.pending as FollowUpPending).question}</p>
      )}
    </section>
  );
}

/** "Approved by olivia at …" with the comment or the answer. */
export function ResolutionLine({ resolution }: { resolution: Resolution }) {
  const { t, locale } = useI18n();
  const params = { who: resolution.who ?? t('someone'), when: formatTime(locale, resolution.ts) };
  return (
    <div className={`resolution resolution-${resolution.decision ?? 'answer'}`} data-testid="resolution">
      <p className="resolution-who">
        <strong>{resolutionText(t, resolution, params)}</strong>
      </p>
      {resolution.comment && <p>{t('commentWas', { comment: resolution.comment })}</p>}
      {resolution.answer !== null && <p>{t('answerWas', { answer: resolution.answer })}</p>}
      {resolution.edit && <EditedArgs edit={resolution.edit} />}
    </div>
  );
}

/** The arguments a person changed on approval, one line each: `amount: 500 → 50`. */
function EditedArgs({ edit }: { edit: NonNullable<Resolution['edit']> }) {
  const { t } = useI18n();
  const keys = [...new Set([...Object.keys(edit.from), ...Object.keys(edit.to)])];
  const shown = (v: unknown): string => (v === undefined ? '—' : JSON.stringify(v));
  const changed = keys.filter((k) => shown(edit.from[k]) !== shown(edit.to[k]));
  return (
    <div data-testid="edited-args">
      <p>{t('editedArgs')}</p>
      <ul>
        {changed.map((k) => (
          <li key={k}>
            <code>
              {k}: {shown(edit.from[k])} → {shown(edit.to[k])}
            </code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Who decided: the person, every approver where several were needed, or the expiry. */
function resolutionText(t: Translate, resolution: Resolution, params: { who: string; when: string }): string {
  if (resolution.decision === 'rejected' && resolution.who === 'expiry') return t('decidedExpired', params);
  if (resolution.decision === 'approved' && resolution.approvers && resolution.approvers.length > 1)
    return t('decidedApproved', { ...params, who: resolution.approvers.join(', ') });
  if (resolution.decision === 'approved') return t('decidedApproved', params);
  if (resolution.decision === 'rejected') return t('decidedRejected', params);
  return t('answeredBy', params);
}
