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
            <span className="muted">{t('roundsLabel', { count: rounds(node) })}</span>
            <Stalls node={node} />
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

/** The node's consecutive stall count against its `maxStalls` (shown as a meter once known). */
export function Stalls({ node }: { node: NodeView }) {
  const { t } = useI18n();
  const label = t('stallsLabel');
  const text =
    node.maxStalls === null
      ? t('stallsNoLimit', { stalls: node.stalls })
      : t('stallsOf', { stalls: node.stalls, max: node.maxStalls });
  return (
    <span className="stalls" data-testid={`stalls-${node.id}`}>
      {label}: {text}
      {node.maxStalls !== null && (
        <meter
          min={0}
          max={node.maxStalls}
          low={Math.max(1, node.maxStalls - 2)}
          high={node.maxStalls - 1}
          optimum={0}
          value={node.stalls}
          aria-label={`${label} ${text}`}
        />
      )}
    </span>
  );
}
