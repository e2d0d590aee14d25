import { useState, type FormEvent } from 'react';
import { isApproval, isTask, RUN_STATUSES, type RunSummary } from '../api.js';
import { taskText } from './task-text.js';
import { usePolling } from '../hooks.js';
import { formatTime, useI18n } from '../i18n.js';
import { hrefOf, navigate } from '../router.js';
import { useSession } from '../session.js';
import { StatusBadge } from './badges.js';
import { Link } from './link.js';
import { ThreadLink, ThreadsLink } from './thread-links.js';

const POLL_MS = 3000;

/** The home page: what waits for a person first, then every run with a status filter. */
export function RunsPage({ status }: { status: string | null }) {
  const { canAct } = useSession();
  return (
    <>
      <Inbox />
      <ThreadsLink />
      {canAct && <StartRun />}
      <RunList status={(RUN_STATUSES as readonly string[]).includes(status ?? '') ? status : null} />
    </>
  );
}

/** Approvals first, then questions; within each, the one waiting longest first. */
export function inboxOrder(runs: RunSummary[]): RunSummary[] {
  const rank = (r: RunSummary): number => (r.suspension?.kind === 'APPROVAL' ? 0 : 1);
  return [...runs].sort((a, b) => rank(a) - rank(b) || a.updatedAt.localeCompare(b.updatedAt));
}

function Inbox() {
  const { t, locale } = useI18n();
  const { api, canAct } = useSession();
  const inbox = usePolling(() => api.runs('suspended'), POLL_MS, [api]);
  const runs = inbox.data ? inboxOrder(inbox.data) : null;
  return (
    <section aria-labelledby="inbox-title" className="card inbox">
      <h1 id="inbox-title">{canAct ? t('inboxTitle') : t('inboxTitleViewer')}</h1>
      <LoadState error={inbox.error} loading={runs === null} onRetry={inbox.reload} />
      {runs?.length === 0 && <p>{t('inboxEmpty')}</p>}
      {runs && runs.length > 0 && (
        <ul className="inbox-list" data-testid="inbox">
          {runs.map((run) => (
            <li key={run.runId} className={`inbox-item kind-${run.suspension?.kind ?? 'none'}`}>
              <Link href={hrefOf({ page: 'run', runId: run.runId })}>
                <span className="inbox-what">{waitingText(run, t)}</span>
              </Link>
              <span className="muted">
                {run.flowId} · <code>{run.runId}</code> · {formatTime(locale, run.updatedAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function waitingText(run: RunSummary, t: ReturnType<typeof useI18n>['t']): string {
  const pending = run.suspension?.pending;
  if (!pending) return run.runId;
  if (isTask(pending)) return taskText(pending, t);
  return isApproval(pending)
    ? `${t('inboxApproval', { tool: pending.tool })} — ${pending.summary}`
    : t('inboxFollowUp', { question: pending.question });
}

function RunList({ status }: { status: string | null }) {
  const { t } = useI18n();
  const { api } = useSession();
  const list = usePolling(
    () => api.runs((status ?? undefined) as RunSummary['status'] | undefined),
    POLL_MS,
    [api, status],
  );
  return (
    <section aria-labelledby="runs-title" className="card">
      <h2 id="runs-title">{t('runsTitle')}</h2>
      <div role="group" aria-label={t('filterLabel')} className="filters">
        {[null, ...RUN_STATUSES].map((s) => (
          <Link
            key={s ?? 'all'}
            href={hrefOf({ page: 'runs', status: s })}
            className="filter"
            aria-current={s === status ? 'page' : undefined}
          >
            {s === null ? t('filterAll') : t(`status_${s}`)}
          </Link>
        ))}
      </div>
      <LoadState error={list.error} loading={list.data === null} onRetry={list.reload} />
      {list.data?.length === 0 && <p>{t('noRuns')}</p>}
      {list.data && list.data.length > 0 && <RunTable runs={list.data} />}
    </section>
  );
}

function RunTable({ runs }: { runs: RunSummary[] }) {
  const { t, locale } = useI18n();
  return (
    <div className="table-wrap">
      <table data-testid="runs">
        <thead>
          <tr>
            <th scope="col">{t('colRun')}</th>
            <th scope="col">{t('colFlow')}</th>
            <th scope="col">{t('colStatus')}</th>
            <th scope="col">{t('colWaiting')}</th>
            <th scope="col">{t('colUpdated')}</th>
            <th scope="col">{t('colCreated')}</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId}>
              <td>
                <Link href={hrefOf({ page: 'run', runId: run.runId })}>
                  <code>{run.runId}</code>
                </Link>
              </td>
              <td>
                {run.flowId}
                <ThreadLink threadId={run.threadId} />
              </td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td>{run.suspension ? t(`kind_${run.suspension.kind}`) : ''}</td>
              <td>{formatTime(locale, run.updatedAt)}</td>
              <td>{formatTime(locale, run.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function StartRun() {
  const { t } = useI18n();
  const { api } = useSession();
  const flows = usePolling(() => api.flows(), 30_000, [api]);
  const [flowId, setFlowId] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!flows.data) return null;
  const chosen = flowId || flows.data[0]?.flowId || '';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    api.start(chosen, text).then(
      (run) => navigate(hrefOf({ page: 'run', runId: run.runId })),
      (failure: unknown) => {
        setBusy(false);
        setError(
          t('actionFailed', { message: failure instanceof Error ? failure.message : String(failure) }),
        );
      },
    );
  };
  return (
    <details className="card start">
      <summary>{t('newRun')}</summary>
      {flows.data.length === 0 ? (
        <p>{t('noFlows')}</p>
      ) : (
        <form onSubmit={submit} className="start-form">
          <label htmlFor="start-flow">{t('flowSelect')}</label>
          <select id="start-flow" value={chosen} onChange={(e) => setFlowId(e.target.value)}>
            {flows.data.map((f) => (
              <option key={f.flowId} value={f.flowId}>
                {f.flowId} (v{f.version}){f.description ? ` — ${f.description}` : ''}
              </option>
            ))}
          </select>
          <label htmlFor="start-input">{t('inputText')}</label>
          <textarea id="start-input" rows={2} value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit" disabled={busy || !chosen}>
            {t('start')}
          </button>
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
        </form>
      )}
    </details>
  );
}

/** A loading line, or an error with a retry button. */
export function LoadState({
  error,
  loading,
  onRetry,
}: {
  error: Error | null;
  loading: boolean;
  onRetry: () => void;
}) {
  const { t } = useI18n();
  if (error) {
    return (
      <p role="alert" className="error">
        {t('loadFailed', { message: error.message })}{' '}
        <button type="button" className="secondary" onClick={onRetry}>
          {t('retry')}
        </button>
      </p>
    );
  }
  return loading ? <p role="status">{t('loading')}</p> : null;
}
