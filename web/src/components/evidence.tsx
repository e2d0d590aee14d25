/**
 * Evidence in the console: links to the evidence view, a hook that loads a run's evidence records,
 * a payload with a value highlighted, and where an approval argument's value came from.
 */
import { useEffect, useState } from 'react';
import type { ApprovalPending, EvidenceRecord, ValueMatch } from '../api.js';
import { markPayload, markValue, payloadText, type PayloadMark, type Segment } from '../highlight.js';
import { formatTime, useI18n } from '../i18n.js';
import { hrefOf } from '../router.js';
import { useSession } from '../session.js';
import { Link } from './link.js';

/**
 * The href of an evidence record's view; `value` (any JSON value) is highlighted in its payload, at
 * the recorded `marks` when given (the leaf and span where the runtime found it).
 */
export function evidenceHref(
  runId: string,
  evidenceId: string,
  value?: unknown,
  marks?: readonly PayloadMark[],
): string {
  return hrefOf({
    page: 'evidence',
    runId,
    evidenceId,
    value: value === undefined ? null : JSON.stringify(value),
    marks: marks && marks.length > 0 ? JSON.stringify(marks) : null,
  });
}

/** An evidence id as a link to its view. */
export function EvidenceLink({
  runId,
  id,
  value,
  marks,
}: {
  runId: string;
  id: string;
  value?: unknown;
  marks?: readonly PayloadMark[];
}) {
  return (
    <Link href={evidenceHref(runId, id, value, marks)} className="evidence" data-testid="evidence-link">
      {id}
    </Link>
  );
}

/**
 * The run's evidence records by id, loaded once `ids` names one not loaded yet (a new evidence
 * appears as the run goes on). Errors are returned, not thrown.
 */
export function useEvidence(
  runId: string,
  ids: readonly string[],
): { records: Map<string, EvidenceRecord>; error: string | null } {
  const { api } = useSession();
  const [records, setRecords] = useState<Map<string, EvidenceRecord>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const missing = ids.filter((id) => !records.has(id)).join(',');
  useEffect(() => {
    if (missing === '') return;
    let live = true;
    api.evidence(runId).then(
      (list) => {
        if (live) setRecords(new Map(list.map((e) => [e.id, e])));
      },
      (failure: unknown) => {
        if (live) setError(failure instanceof Error ? failure.message : String(failure));
      },
    );
    return () => {
      live = false;
    };
  }, [api, runId, missing]);
  return { records, error };
}

/** Text with the marked segments in `<mark>`. */
export function Marked({ segments }: { segments: Segment[] }) {
  return (
    <>{segments.map((s, i) => (s.mark ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}</>
  );
}

/**
 * An evidence payload as pretty JSON (or text): the recorded `marks` highlighted (the span of a value
 * found inside a text, or the whole leaf), else `value` wherever it occurs.
 */
export function PayloadBlock({
  payload,
  value,
  marks,
  label,
}: {
  payload: unknown;
  value?: unknown;
  marks?: readonly PayloadMark[];
  label: string;
}) {
  const text = payloadText(payload);
  const segments =
    marks && marks.length > 0
      ? markPayload(payload, marks)
      : value === undefined
        ? [{ text, mark: false }]
        : markValue(text, value, 'json');
  return (
    <pre className="json payload" aria-label={label} tabIndex={0} data-testid="payload">
      <code>
        <Marked segments={segments} />
      </code>
    </pre>
  );
}

/**
 * Where an approval argument's value came from: the evidence record it was found in (tool and time,
 * a link to the record, and its payload with the value highlighted, folded), the user's words (with
 * the value highlighted), or "not checked" when no source contract covers it.
 */
export function ArgumentSource(props: {
  runId: string;
  name: string;
  value: unknown;
  pending: ApprovalPending;
  records: Map<string, EvidenceRecord>;
}) {
  const { t, locale } = useI18n();
  const { runId, name, value, pending, records } = props;
  const evidenceId = pending.provenance?.[name];
  const words = pending.userProvenance?.[name];
  const matches = pending.matches?.[name] ?? [];
  const trust = <TrustLines name={name} matches={matches} />;
  const derived = matches.some((m) => m.source === 'derived');
  if (derived) return <div className="source source-derived">{trust}</div>;
  // Each evidence the value (or an element or field of it) was found in, with the recorded places.
  const cited = [...new Set([evidenceId, ...matches.map((m) => m.evidenceId)])].filter(
    (id): id is string => id !== undefined,
  );
  if (cited.length > 0) {
    return (
      <div className="source source-evidence" data-testid={`source-${name}`}>
        {trust}
        {cited.map((id) => {
          const record = records.get(id);
          const marks = marksIn(matches, id);
          return (
            <div key={id}>
              <p>
                <EvidenceLink runId={runId} id={id} value={value} marks={marks} />{' '}
                {record
                  ? t('sourceEvidence', { tool: record.tool, when: formatTime(locale, record.ts) })
                  : t('sourceEvidenceLoading')}
              </p>
              {record && (
                <details>
                  <summary>{t('showPayload', { id })}</summary>
                  <PayloadBlock
                    payload={record.payload}
                    value={value}
                    marks={marks}
                    label={t('payloadOf', { id })}
                  />
                </details>
              )}
            </div>
          );
        })}
        {words !== undefined && (
          <blockquote className="user-words">
            <Marked segments={markValue(words, value, 'text')} />
          </blockquote>
        )}
      </div>
    );
  }
  if (words !== undefined) {
    return (
      <div className="source source-user" data-testid={`source-${name}`}>
        {trust}
        <p>{t('sourceUser')}</p>
        <blockquote className="user-words">
          <Marked segments={markValue(words, value, 'text')} />
        </blockquote>
      </div>
    );
  }
  return (
    <span className="muted source-none" data-testid={`source-${name}`}>
      {t('noEvidence')}
    </span>
  );
}

/**
 * One line per distinct trust the contracts recorded for an argument (docs/flows.md, "Untrusted
 * text"): the user's words, a trusted record, untrusted text with the text around the match, or the
 * derivation of a derived value. Nothing for matches without a trust (contracts without `untrusted`).
 */
function TrustLines(props: { name: string; matches: readonly ValueMatch[] }) {
  const { t } = useI18n();
  const lines = [
    ...new Set(
      props.matches.flatMap((m) => {
        if (m.derivation !== undefined) return [t('trustDerived', { derivation: m.derivation })];
        if (m.trust === 'untrusted') return [t('trustUntrusted', { context: m.context ?? '' })];
        if (m.trust === 'trusted') return [t('trustTrusted')];
        if (m.trust === 'user') return [t('trustUser')];
        return [];
      }),
    ),
  ];
  if (lines.length === 0) return null;
  return (
    <>
      {lines.map((line) => (
        <p key={line} className="source-trust" data-testid={`trust-${props.name}`}>
          {line}
        </p>
      ))}
    </>
  );
}

/** The recorded places in evidence `id` where an argument's values were found. */
export function marksIn(matches: readonly ValueMatch[], id: string): PayloadMark[] {
  return matches.flatMap((m) =>
    m.source === 'evidence' && m.evidenceId === id && m.path
      ? [{ path: m.path, ...(m.span ? { span: m.span } : {}) }]
      : [],
  );
}
