/**
 * The thread view (docs/console.md): a conversation of runs — what the user and the assistant said,
 * oldest first, each message linking to its run — with the decision the thread waits for inline (the
 * console's own approval and question cards), and the list of threads.
 */
import { formatTime, useI18n } from '../i18n.js';
import { usePolling } from '../hooks.js';
import { hrefOf } from '../router.js';
import { useSession } from '../session.js';
import { fetchThread, fetchThreads, type ThreadMessage, type ThreadView } from '../threads-api.js';
import { useThreadTexts } from '../thread-texts.js';
import { StatusBadge } from './badges.js';
import { ActiveCard } from './decision-cards.js';
import { Link } from './link.js';
import { LoadState } from './runs-page.js';

const POLL_MS = 3000;

/** The href of a thread's page. */
export function threadHref(threadId: string): string {
  return `/threads/${encodeURIComponent(threadId)}`;
}

/** One thread: the conversation, the waiting decision inline, the runs. */
export function ThreadPage({ threadId }: { threadId: string }) {
  const tt = useThreadTexts();
  const { api } = useSession();
  const view = usePolling(() => fetchThread(api, threadId), POLL_MS, [api, threadId]);
  const thread = view.data;
  return (
    <>
      <section className="card thread" aria-labelledby="thread-title">
        <p>
          <Link href="/threads">{tt('allThreads')}</Link>
        </p>
        <h1 id="thread-title">{tt('threadTitle', { id: threadId })}</h1>
        <LoadState error={view.error} loading={thread === null} onRetry={view.reload} />
        {thread && (
          <>
            <p className="muted" data-testid="thread-state">
              {tt(
                thread.state === 'idle'
                  ? 'stateIdle'
                  : thread.state === 'waiting'
                    ? 'stateWaiting'
                    : 'stateBusy',
              )}
            </p>
            <ol className="conversation" data-testid="conversation">
              {thread.messages.map((m, i) => (
                <Message key={`${m.runId} ${i}`} message={m} thread={thread} onChanged={view.reload} />
              ))}
            </ol>
          </>
        )}
      </section>
      {thread && <ThreadRuns thread={thread} />}
    </>
  );
}

function Message({
  message,
  thread,
  onChanged,
}: {
  message: ThreadMessage;
  thread: ThreadView;
  onChanged: () => void;
}) {
  const tt = useThreadTexts();
  const { locale } = useI18n();
  const run = thread.runs.find((r) => r.runId === message.runId);
  // The decision this message asks for, when its run still waits for exactly it.
  const waiting =
    run?.status === 'suspended' &&
    run.suspension &&
    ((message.kind === 'approval' &&
      run.suspension.kind === 'APPROVAL' &&
      message.pending?.id === run.suspension.pending.id) ||
      (message.kind === 'question' && run.suspension.kind === 'FOLLOW_UP'))
      ? run.suspension
      : null;
  return (
    <li className={`message from-${message.role} kind-${message.kind}`} data-testid="message">
      <p className="message-head muted">
        <strong>{message.role === 'user' ? tt('you') : tt('assistant')}</strong> ·{' '}
        {tt(`kind_${message.kind}`)} ·{' '}
        <Link href={hrefOf({ page: 'run', runId: message.runId })}>
          {tt('openRun', { id: message.runId })}
        </Link>{' '}
        · {formatTime(locale, message.at)}
      </p>
      {waiting ? (
        <ActiveCard
          runId={message.runId}
          kind={waiting.kind}
          pending={waiting.pending}
          onAnswered={onChanged}
        />
      ) : (
        <p className="message-text">{message.text}</p>
      )}
    </li>
  );
}

function ThreadRuns({ thread }: { thread: ThreadView }) {
  const { t, locale } = useI18n();
  return (
    <section className="card" aria-labelledby="thread-runs-title">
      <h2 id="thread-runs-title">{t('runsTitle')}</h2>
      <ul data-testid="thread-runs">
        {thread.runs.map((run) => (
          <li key={run.runId}>
            <Link href={hrefOf({ page: 'run', runId: run.runId })}>
              <code>{run.runId}</code>
            </Link>{' '}
            <StatusBadge status={run.status} /> {run.flowId} · {formatTime(locale, run.createdAt)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Every thread of the tenant, most recently updated first. */
export function ThreadsPage() {
  const tt = useThreadTexts();
  const { t, locale } = useI18n();
  const { api } = useSession();
  const list = usePolling(() => fetchThreads(api), POLL_MS, [api]);
  return (
    <section className="card" aria-labelledby="threads-title">
      <h1 id="threads-title">{tt('threadsTitle')}</h1>
      <LoadState error={list.error} loading={list.data === null} onRetry={list.reload} />
      {list.data?.length === 0 && <p>{tt('noThreads')}</p>}
      {list.data && list.data.length > 0 && (
        <div className="table-wrap">
          <table data-testid="threads">
            <thead>
              <tr>
                <th scope="col">{tt('colThread')}</th>
                <th scope="col">{tt('colMessages')}</th>
                <th scope="col">{t('colUpdated')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((th) => (
                <tr key={th.threadId}>
                  <td>
                    <Link href={threadHref(th.threadId)}>
                      <code>{th.threadId}</code>
                    </Link>
                  </td>
                  <td>{th.runs}</td>
                  <td>{formatTime(locale, th.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
