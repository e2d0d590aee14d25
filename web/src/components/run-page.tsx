import { useState } from 'react';
import type { RunSummary } from '../api.js';
import { useLiveRun, type LiveRun } from '../hooks.js';
import { formatTime, useI18n } from '../i18n.js';
import { hrefOf } from '../router.js';
import { useSession } from '../session.js';
import { latestSuspension, type RunView } from '../trace-model.js';
import { JsonBlock, StatusBadge } from './badges.js';
import { ActiveCard, DecidedCard } from './decision-cards.js';
import { Link } from './link.js';
import { NodeGraph } from './node-graph.js';
import { LoadState } from './runs-page.js';
import { Timeline } from './timeline.js';
import { LiveTurn } from './live-turn.js';

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** One run: status, the decision waiting (or the last one made), nodes, outputs and the live timeline. */
export function RunPage({ runId }: { runId: string }) {
  const { t } = useI18n();
  const live = useLiveRun(runId);
  const { summary, view } = live;
  return (
    <>
      <p>
        <Link href={hrefOf({ page: 'runs', status: null })}>{t('backToRuns')}</Link>
      </p>
      <RunHeader runId={runId} live={live} />
      <LoadState
        error={live.summaryError}
        loading={summary === null && live.summaryError === null}
        onRetry={() => window.location.reload()}
      />
      {summary && <Decision summary={summary} view={view} onAnswered={live.setSummary} />}
      <NodeGraph view={view} />
      {summary?.reply && <Reply text={summary.reply} />}
      {summary && <Outputs outputs={summary.outputs} />}
      <Timeline view={view} runId={runId} />
      {live.delta && <LiveTurn delta={live.delta} />}
    </>
  );
}

function RunHeader({ runId, live }: { runId: string; live: LiveRun }) {
  const { t, locale } = useI18n();
  const { summary, view, stream } = live;
  return (
    <section className="card run-head" aria-labelledby="run-title">
      <div className="run-title-row">
        <h1 id="run-title">{t('runTitle', { id: runId })}</h1>
        {summary && <StatusBadge status={summary.status} />}
        <p role="status" className={`live live-${stream.state}`} data-testid="live">
          {stream.state === 'error'
            ? t('live_error', { message: stream.error?.message ?? '' })
            : t(`live_${stream.state}`)}
        </p>
      </div>
      <dl className="meta">
        <dt>{t('flowLabel')}</dt>
        <dd>
          {summary?.flowId ?? view.flowId ?? '—'}
          {view.flowVersion ? ` v${view.flowVersion}` : ''}
        </dd>
        {summary && (
          <>
            <dt>{t('createdLabel')}</dt>
            <dd>{formatTime(locale, summary.createdAt)}</dd>
            <dt>{t('updatedLabel')}</dt>
            <dd>{formatTime(locale, summary.updatedAt)}</dd>
            <dt>{t('usageLabel')}</dt>
            <dd data-testid="run-usage">
              {t('tokensOf', {
                total: summary.usage.totalTokens,
                input: summary.usage.inputTokens,
                output: summary.usage.outputTokens,
              })}
            </dd>
          </>
        )}
        {summary?.parentRunId && (
          <>
            <dt>{t('parentLabel')}</dt>
            <dd>
              <Link href={hrefOf({ page: 'run', runId: summary.parentRunId })}>{summary.parentRunId}</Link>
            </dd>
          </>
        )}
        {summary?.forkedFrom && (
          <>
            <dt>{t('forkedFromLabel')}</dt>
            <dd>
              <Link href={hrefOf({ page: 'run', runId: summary.forkedFrom.runId })}>
                {summary.forkedFrom.runId}
              </Link>{' '}
              #{summary.forkedFrom.seq}
            </dd>
          </>
        )}
        {view.input !== null && (
          <>
            <dt>{t('inputLabel')}</dt>
            <dd>{inputText(view.input)}</dd>
          </>
        )}
      </dl>
      {summary && <CancelButton summary={summary} onCancelled={live.setSummary} />}
      {summary && <RetryButton summary={summary} />}
    </section>
  );
}

function inputText(input: unknown): string {
  const text = (input as { text?: unknown } | null)?.text;
  if (typeof text === 'string' && Object.keys(input as object).length === 1) return text;
  return JSON.stringify(input);
}

function CancelButton({
  summary,
  onCancelled,
}: {
  summary: RunSummary;
  onCancelled: (s: RunSummary) => void;
}) {
  const { t } = useI18n();
  const { api, canAct } = useSession();
  const [error, setError] = useState<string | null>(null);
  if (!canAct || ENDED.has(summary.status)) return null;
  const cancel = (): void => {
    if (!window.confirm(t('confirmCancel'))) return;
    api
      .cancel(summary.runId)
      .then(onCancelled, (failure: unknown) =>
        setError(
          t('actionFailed', { message: failure instanceof Error ? failure.message : String(failure) }),
        ),
      );
  };
  return (
    <p>
      <button type="button" className="danger" onClick={cancel}>
        {t('cancelRun')}
      </button>
      {error && (
        <span role="alert" className="error">
          {' '}
          {error}
        </span>
      )}
    </p>
  );
}

/** For operators on a failed run: takes it up again (`POST /v1/runs/{id}/retry`) and follows it anew. */
function RetryButton({ summary }: { summary: RunSummary }) {
  const { t } = useI18n();
  const { api, canAct } = useSession();
  const [error, setError] = useState<string | null>(null);
  if (!canAct || summary.status !== 'failed') return null;
  const retry = (): void => {
    if (!window.confirm(t('confirmRetry'))) return;
    api.retry(summary.runId).then(
      // The page follows the run again from its start (its trace goes on after run.failed).
      () => window.location.reload(),
      (failure: unknown) =>
        setError(
          t('actionFailed', { message: failure instanceof Error ? failure.message : String(failure) }),
        ),
    );
  };
  return (
    <p>
      <button type="button" onClick={retry}>
        {t('retryRun')}
      </button>
      {summary.continueWith && (
        <>
          {' '}
          {t('retryWithModel')} <code>{summary.continueWith.command}</code>
        </>
      )}
      {error && (
        <span role="alert" className="error">
          {' '}
          {error}
        </span>
      )}
    </p>
  );
}

/** The card of the decision the run waits for, or the record of the last one made. */
function Decision({
  summary,
  view,
  onAnswered,
}: {
  summary: RunSummary;
  view: RunView;
  onAnswered: (s: RunSummary) => void;
}) {
  const latest = latestSuspension(view);
  // A summary older than the last response in the trace is stale (fetched before the decision).
  const fresh = !latest?.resolution || summary.updatedAt > latest.resolution.ts;
  if (summary.status === 'suspended' && summary.suspension && fresh) {
    // Parallel branches may wait at once: a card for each item, each answered by its own id.
    const items = summary.suspension.items ?? [summary.suspension];
    return (
      <>
        {items.map((item, i) => (
          <ActiveCard
            key={item.pending.id ?? i}
            runId={summary.runId}
            kind={item.kind}
            pending={item.pending}
            onAnswered={onAnswered}
          />
        ))}
      </>
    );
  }
  if (summary.status === 'running' && summary.held) {
    // An MCP server's question held open: answered like a suspended run's, naming the held question.
    const { id, question, elicitation } = summary.held;
    return (
      <ActiveCard
        key={id}
        runId={summary.runId}
        kind="FOLLOW_UP"
        pending={{ id, question, options: null, elicitation }}
        onAnswered={onAnswered}
      />
    );
  }
  if (latest?.resolution) return <DecidedCard runId={summary.runId} item={latest} />;
  return null;
}

function Reply({ text }: { text: string }) {
  const { t } = useI18n();
  return (
    <section className="card" aria-labelledby="reply-title">
      <h2 id="reply-title">{t('replyTitle')}</h2>
      <p className="reply" data-testid="reply">
        {text}
      </p>
    </section>
  );
}

function Outputs({ outputs }: { outputs: RunSummary['outputs'] }) {
  const { t } = useI18n();
  const entries = Object.entries(outputs);
  return (
    <section className="card" aria-labelledby="outputs-title">
      <h2 id="outputs-title">{t('outputsTitle')}</h2>
      {entries.length === 0 && <p>{t('noOutputs')}</p>}
      {entries.length > 0 && (
        <dl className="outputs" data-testid="outputs">
          {entries.map(([node, values]) => (
            <div key={node}>
              <dt>{node}</dt>
              <dd>
                {Object.keys(values).length === 0 ? (
                  '{}'
                ) : (
                  <JsonBlock value={values} label={`${t('outputsTitle')}: ${node}`} />
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
