import { isApproval } from '../api.js';
import { formatTime, useI18n } from '../i18n.js';
import type { CallView, NodeView, RoundView, RunView, SuspensionView, TimelineItem } from '../trace-model.js';
import { JsonBlock, NodeBadge, OutcomeBadge } from './badges.js';
import { ResolutionLine } from './decision-cards.js';
import { Stalls } from './node-graph.js';

/** The run's rounds, node by node, as they happen. */
export function Timeline({ view }: { view: RunView }) {
  const { t } = useI18n();
  return (
    <section className="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">{t('timelineTitle')}</h2>
      {view.nodes.map((node, i) => (
        <NodeSection key={`${node.id}-${i}`} node={node} anchor={`node-${node.id}-${i}`} />
      ))}
      <RunEnding view={view} />
    </section>
  );
}

function NodeSection({ node, anchor }: { node: NodeView; anchor: string }) {
  const { t } = useI18n();
  return (
    <section className="node-section" aria-labelledby={anchor} data-testid={`node-${node.id}`}>
      <h3 id={anchor} tabIndex={-1}>
        {node.id} <NodeBadge status={node.status} /> <Stalls node={node} />
      </h3>
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
      {round.hint && (
        <p className="hint">
          <span className="label">{t('phaseHint')}:</span> {round.hint}
        </p>
      )}
      {round.text && (
        <blockquote className="model-text">
          <span className="label">{t('modelSaid')}:</span> {round.text}
        </blockquote>
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
          {t('stallAfter', { stalls: round.stall.stalls, max: round.stall.maxStalls })}
        </p>
      )}
    </>
  );
}

/** One tool call: arguments, outcome badge, error code, reason, next step, evidence. */
function ToolCall({ call }: { call: CallView }) {
  const { t } = useI18n();
  const anchor = call.evidenceId && call.executed ? `ev-${call.evidenceId}` : undefined;
  return (
    <article
      className={`call call-${(call.outcome ?? (call.skipped ? 'skipped' : 'waiting')).toLowerCase()}`}
      id={anchor}
      data-testid="tool-call"
      data-tool={call.tool}
    >
      <header className="call-head">
        <code className="tool-name">{call.tool}</code>
        {call.outcome && <OutcomeBadge outcome={call.outcome} />}
        {call.outcome && !call.executed && <span className="tag">{t('notExecuted')}</span>}
        {call.lookBack && <span className="tag">{t('lookBack')}</span>}
      </header>
      {call.skipped && <p className="note">{t('skipped')}</p>}
      {!call.outcome && !call.skipped && <p className="note">{t('waitingCall')}</p>}
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
                <code>{call.evidenceId}</code>
              </dd>
            </>
          )}
        </dl>
      )}
    </article>
  );
}

function Suspension({ item }: { item: SuspensionView }) {
  const { t } = useI18n();
  const pending = item.pending;
  return (
    <div className="suspension">
      <h4>{isApproval(pending) ? t('approvalTitle', { tool: pending.tool }) : t('followUpTitle')}</h4>
      <p>{isApproval(pending) ? pending.summary : pending.question}</p>
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
