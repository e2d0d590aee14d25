import { useI18n } from '../i18n.js';
import type { NodeView, RunView } from '../trace-model.js';
import { NodeBadge } from './badges.js';

/**
 * The nodes the run has reached, in the order it ran them (the public API gives the trace, not the
 * flow's graph), each with its status, rounds and stall counter against the limit.
 */
export function NodeGraph({ view }: { view: RunView }) {
  const { t } = useI18n();
  return (
    <section className="card" aria-labelledby="graph-title">
      <h2 id="graph-title">{t('graphTitle')}</h2>
      <ol className="graph" data-testid="node-graph">
        {view.nodes.map((node, i) => (
          <li key={`${node.id}-${i}`} className={`graph-node node-${node.status}`} data-node={node.id}>
            <a href={`#node-${node.id}-${i}`} className="graph-name">
              {node.id}
            </a>
            <NodeBadge status={node.status} />
            <NodeLimits node={node} rounds={rounds(node)} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function rounds(node: NodeView): number {
  return new Set(node.items.filter((i) => i.kind === 'round').map((i) => (i.kind === 'round' ? i.round : 0)))
    .size;
}

/**
 * A node run's counters against its limits, the same way everywhere: "Rounds: n / max",
 * "Stalls: n / max" (with a meter) and its tokens. A limit the trace does not say (an old trace)
 * shows as "?".
 */
export function NodeLimits({ node, rounds: count }: { node: NodeView; rounds?: number }) {
  const { t } = useI18n();
  const roundCount = count ?? rounds(node);
  const stallText = t('countOf', { count: node.stalls, max: node.maxStalls ?? '?' });
  return (
    <span className="limits">
      <span className="rounds" data-testid={`rounds-${node.id}`}>
        {t('roundsLabel')}: {t('countOf', { count: roundCount, max: node.maxRounds ?? '?' })}
      </span>
      <span className="stalls" data-testid={`stalls-${node.id}`}>
        {t('stallsLabel')}: {stallText}
        {node.maxStalls !== null && (
          <meter
            min={0}
            max={node.maxStalls}
            low={Math.max(1, node.maxStalls - 2)}
            high={node.maxStalls - 1}
            optimum={0}
            value={node.stalls}
            aria-label={`${t('stallsLabel')} ${stallText}`}
          />
        )}
      </span>
      <span className="muted" data-testid={`tokens-${node.id}`}>
        {t('nodeTokens', { total: node.usage.totalTokens })}
      </span>
    </span>
  );
}
