import { createContext, useContext } from 'react';
import { isApproval, isTask } from '../api.js';
import { taskText } from './task-text.js';
import { formatTime, useI18n } from '../i18n.js';
import type { CallView, NodeView, RoundView, RunView, SuspensionView, TimelineItem } from '../trace-model.js';
import { BuiltinBadge, JsonBlock, NodeBadge, OutcomeBadge } from './badges.js';
import { CallProgressBar } from './call-progress.js';
import { approvalHeading, ResolutionLine } from './decision-cards.js';
import { EvidenceLink } from './evidence.js';
import { ForkButton } from './fork-button.js';
import { NodeLimits } from './node-graph.js';
import { ToolIcon } from './tool-icon.js';

/** The run the timeline shows (for evidence links deep in the tree). */
const RunIdContext = createContext('');

/** The run's rounds, node by node, as they happen. */
export function Timeline({ view, runId }: { view: RunView; runId: string }) {
  const { t } = useI18n();
  return (
    <section className="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">{t('timelineTitle')}</h2>
      <RunIdContext.Provider value={runId}>
        {view.nodes.map((node, i) => (
          <NodeSection key={`${node.id}-${i}`} node={node} anchor={`node-${node.id}-${i}`} />
        ))}
      </RunIdContext.Provider>
      <RunEnding view={view} />
    </section>
  );
}

function NodeSection({ node, anchor }: { node: NodeView; anchor: string }) {
  const { t } = useI18n();
  return (
    <section className="node-section" aria-labelledby={anchor} data-testid={`node-${node.id}`}>
      <h3 id={anchor} tabIndex={-1}>
        {node.id} <NodeBadge status={node.status} />
      </h3>
      <NodeLimits node={node} />
      <ol className="items">
        {node.items.map((item) => (
          <li key={item.seq} className={`item item-${item.kind}`}>
            <Item item={item} />
          </li>
        ))}
      </ol>
      {node.status === 'completed' && <p className="node-end">{t('nodeCompleted', { node: node.id })}</p>}
      {node.failure && (
        <p className="node-end error">
          {t('nodeFailed', {
            node: node.id,
            reason: `${node.failure.reason} ${node.failure.message}`.trim(),
          })}
        </p>
      )}
    </section>
  );
}

function Item({ item }: { item: TimelineItem }) {
  const { t, locale } = useI18n();
  if (item.kind === 'round') return <Round round={item} />;
  if (item.kind === 'suspension') return <Suspension item={item} />;
  return (
    <p className="recovery">
      {t('recovery')} <span className="muted">{formatTime(locale, item.ts)}</span>
    </p>
  );
}

function Round({ round }: { round: RoundView }) {
  const { t } = useI18n();
  return (
    <>
      <h4>{t('roundTitle', { round: round.round })}</h4>
      {round.messages.map((m, i) => (
        <blockquote key={i} className="steer-message" data-testid="steer-message">
          <span className="label">{t('personSaid', { who: m.who ?? '?' })}:</span> {m.text}
        </blockquote>
      ))}
      {round.hint && (
        <p className="hint">
          <span className="label">{t('phaseHint')}:</span> {round.hint}
        </p>
      )}
      {round.text && (
        <blockquote className="model-text" data-testid="model-text">
          <span className="label">{t('modelSaid')}:</span> {round.text}
        </blockquote>
      )}
      {round.usage && (
        <p className="usage-line" data-testid="round-usage">
          {t('roundTokens', {
            total: round.usage.totalTokens,
            input: round.usage.inputTokens,
            output: round.usage.outputTokens,
          })}
        </p>
      )}
      {round.noToolCalls && <p className="note">{t('noToolCalls')}</p>}
      <ul className="calls">
        {round.calls.map((call) => (
          <li key={call.callId}>
            <ToolCall call={call} />
          </li>
        ))}
      </ul>
      {round.stall && (
        <p className="stall-line">
          {t('stallsLabel')}: {t('countOf', { count: round.stall.stalls, max: round.stall.maxStalls })}
        </p>
      )}
    </>
  );
}

/** One tool call: arguments, outcome badge, error code, reason, next step, evidence, result. */
function ToolCall({ call }: { call: CallView }) {
  const { t } = useI18n();
  const runId = useContext(RunIdContext);
  const anchor = call.evidenceId && call.executed ? `ev-${call.evidenceId}` : undefined;
  return (
    <article
      className={`call call-${(call.outcome ?? (call.skipped ? 'skipped' : 'waiting')).toLowerCase()}`}
      id={anchor}
      data-testid="tool-call"
      data-tool={call.tool}
    >
      <header className="call-head">
        <ToolIcon src={call.icon} />
        <code className="tool-name">{call.tool}</code>
        {call.builtin && <BuiltinBadge />}
        {call.outcome && !(call.builtin && call.outcome === 'SUCCESS') && (
          <OutcomeBadge outcome={call.outcome} />
        )}
        {call.outcome && !call.executed && !call.builtin && (
          <span className="tag">{call.outcome === 'SUCCESS' ? t('reused') : t('notExecuted')}</span>
        )}
        {call.lookBack && <span className="tag">{t('lookBack')}</span>}
        {call.outcome && !call.lookBack && <ForkButton runId={runId} seq={call.seq} />}
      </header>
      {call.skipped && <p className="note">{t('skipped')}</p>}
      {!call.outcome && !call.skipped && call.progress && <CallProgressBar progress={call.progress} />}
      {!call.outcome && !call.skipped && !call.progress && <p className="note">{t('waitingCall')}</p>}
      {call.args !== null && <JsonBlock value={call.args} label={`${t('argsLabel')}: ${call.tool}`} />}
      {call.outcome && (
        <dl className="observation">
          {call.errorCode && (
            <>
              <dt>{t('codeLabel')}</dt>
              <dd>
                <code>{call.errorCode}</code>
              </dd>
            </>
          )}
          <dt>{t('reasonLabel')}</dt>
          <dd>{call.reason}</dd>
          {call.next && (
            <>
              <dt>{t('nextLabel')}</dt>
              <dd>{call.next}</dd>
            </>
          )}
          {call.evidenceId && (
            <>
              <dt>{t('evidenceLabel')}</dt>
              <dd>
                <EvidenceLink runId={runId} id={call.evidenceId} />
              </dd>
            </>
          )}
        </dl>
      )}
      {call.hasResult && <ResultBlock call={call} />}
    </article>
  );
}

/** What the call returned, folded: pretty JSON or text; a cut result says so and links the full record. */
function ResultBlock({ call }: { call: CallView }) {
  const { t } = useI18n();
  const runId = useContext(RunIdContext);
  const text = typeof call.result === 'string' ? call.result : JSON.stringify(call.result, null, 2);
  return (
    <details className="result" data-testid="call-result">
      <summary>
        {t('resultLabel')} <span className="muted">{t('resultSize', { chars: text.length })}</span>
        {call.resultTruncated && <span className="tag">{t('resultCut')}</span>}
      </summary>
      <JsonBlock value={call.result} label={`${t('resultLabel')}: ${call.tool}`} />
      {call.resultTruncated && (
        <p className="note">
          {t('resultCutNote')} {call.evidenceId && <EvidenceLink runId={runId} id={call.evidenceId} />}
        </p>
      )}
    </details>
  );
}

function Suspension({ item }: { item: SuspensionView }) {
  const { t, locale } = useI18n();
  const pending = item.pending;
  return (
    <div className="suspension">
      <h4>
        {isApproval(pending)
          ? approvalHeading(t, pending.tool, item.resolution)
          : t(isTask(pending) ? 'kind_TASK' : 'followUpTitle')}
      </h4>
      <p>
        {isApproval(pending) ? pending.summary : isTask(pending) ? taskText(pending, t) : pending.question}
      </p>
      {item.escalated && (
        <p className="note" data-testid="escalated">
          {t('escalatedAt', {
            when: formatTime(locale, item.escalated.ts),
            roles: item.escalated.to.join(', '),
          })}
        </p>
      )}
      {item.resolution ? (
        <ResolutionLine resolution={item.resolution} />
      ) : (
        <p className="note">{t('waitingCall')}</p>
      )}
    </div>
  );
}

function RunEnding({ view }: { view: RunView }) {
  const { t } = useI18n();
  const ending = view.ending;
  if (!ending) return null;
  const reason = [ending.reason, ending.message].filter(Boolean).join(' ');
  if (ending.type === 'run.completed') return <p className="run-end ok">{t('runCompleted')}</p>;
  if (ending.type === 'run.cancelled') return <p className="run-end">{t('runCancelled')}</p>;
  return <p className="run-end error">{t('runFailed', { reason })}</p>;
}
