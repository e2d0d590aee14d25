import { useEffect, useState } from 'react';
import type { EvidenceRecord } from '../api.js';
import { formatTime, useI18n } from '../i18n.js';
import { hrefOf } from '../router.js';
import { useSession } from '../session.js';
import { JsonBlock, OutcomeBadge } from './badges.js';
import type { PayloadMark } from '../highlight.js';
import { PayloadBlock } from './evidence.js';
import { Link } from './link.js';
import { LoadState } from './runs-page.js';

/** Parses the `?value=` of an evidence link (JSON; plain text when it is not JSON). */
function highlighted(value: string | null): unknown {
  if (value === null) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    // A hand-written link: highlight the text as it is.
    return value;
  }
}

/** Parses the `?marks=` of an evidence link: the recorded places `[{path, span?}]`; anything else is ignored. */
function recordedMarks(text: string | null): PayloadMark[] {
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (m): m is PayloadMark =>
        typeof m === 'object' &&
        m !== null &&
        Array.isArray((m as PayloadMark).path) &&
        ((m as PayloadMark).span === undefined || Array.isArray((m as PayloadMark).span)),
    );
  } catch {
    // A hand-edited link: no recorded places, the value is still highlighted where it occurs.
    return [];
  }
}

/** One evidence record: tool, outcome, node, call, time, arguments and the full payload (value highlighted). */
export function EvidencePage({
  route,
}: {
  route: { runId: string; evidenceId: string; value: string | null; marks?: string | null };
}) {
  const { t, locale } = useI18n();
  const { api } = useSession();
  const { runId, evidenceId } = route;
  const [record, setRecord] = useState<EvidenceRecord | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api.evidenceRecord(runId, evidenceId).then(
      (r) => live && setRecord(r),
      (failure: unknown) => live && setError(failure instanceof Error ? failure : new Error(String(failure))),
    );
    return () => {
      live = false;
    };
  }, [api, runId, evidenceId, tick]);
  const value = highlighted(route.value);
  const marks = recordedMarks(route.marks ?? null);
  return (
    <>
      <p>
        <Link href={hrefOf({ page: 'run', runId })}>{t('backToRun', { id: runId })}</Link>
      </p>
      <section className="card evidence-view" aria-labelledby="evidence-title" data-testid="evidence-view">
        <h1 id="evidence-title">{t('evidenceTitle', { id: evidenceId })}</h1>
        <LoadState
          error={error}
          loading={record === null && error === null}
          onRetry={() => setTick((n) => n + 1)}
        />
        {record && (
          <>
            <dl className="meta">
              <dt>{t('toolLabel')}</dt>
              <dd>
                <code>{record.tool}</code> {record.lookBack && <span className="tag">{t('lookBack')}</span>}
              </dd>
              <dt>{t('outcomeLabel')}</dt>
              <dd>
                <OutcomeBadge outcome={record.outcome} />{' '}
                {record.errorCode && <code>{record.errorCode}</code>}
              </dd>
              <dt>{t('timeLabel')}</dt>
              <dd>{formatTime(locale, record.ts)}</dd>
              <dt>{t('nodeLabel')}</dt>
              <dd>
                {record.nodeId} <span className="muted">({record.callId})</span>
              </dd>
            </dl>
            <h2>{t('argsLabel')}</h2>
            <JsonBlock value={record.args} label={`${t('argsLabel')}: ${record.tool}`} />
            <h2>{t('payloadTitle')}</h2>
            {value !== undefined && (
              <p className="note">{t('valueHighlighted', { value: JSON.stringify(value) })}</p>
            )}
            <PayloadBlock
              payload={record.payload}
              value={value}
              marks={marks}
              label={t('payloadOf', { id: evidenceId })}
            />
          </>
        )}
      </section>
    </>
  );
}
