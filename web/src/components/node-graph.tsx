import { BOX, layoutGraph, type GraphBox, type GraphLine } from '../graph-layout.js';
import { useI18n } from '../i18n.js';
import { itemsOf } from '../trace-graph.js';
import type { NodeView, RunView } from '../trace-model.js';
import { NodeBadge } from './badges.js';

/**
 * The node runs the run has reached, drawn as the graph the trace tells (the public API gives the
 * trace, not the flow's graph): parallel branches side by side, a line from each node run to those it
 * led to (a join gets several), a map node with its item count and its items beside it; each with its
 * status, rounds and stall counter against the limit. Several nodes may be running at once.
 */
export function NodeGraph({ view }: { view: RunView }) {
  const { t } = useI18n();
  const layout = layoutGraph(view.nodes);
  return (
    <section className="card" aria-labelledby="graph-title">
      <h2 id="graph-title">{t('graphTitle')}</h2>
      <div className="graph-canvas" style={{ width: layout.width, height: layout.height }}>
        <svg className="graph-lines" width={layout.width} height={layout.height} aria-hidden="true">
          <defs>
            <marker
              id="graph-arrow"
              viewBox="0 0 8 8"
              refX="7"
              refY="4"
              markerWidth="8"
              markerHeight="8"
              orient="auto"
            >
              <path d="M 0 0 L 8 4 L 0 8 z" className="graph-arrow" />
            </marker>
          </defs>
          {layout.lines.map((line) => (
            <path
              key={`${line.kind}-${line.from}-${line.to}`}
              d={linePath(layout.boxes, line)}
              className={`graph-line graph-line-${line.kind}`}
              markerEnd="url(#graph-arrow)"
              data-line={`${view.nodes[line.from]?.id ?? '?'}->${view.nodes[line.to]?.id ?? '?'}`}
            />
          ))}
        </svg>
        <ol className="graph" data-testid="node-graph">
          {view.nodes.map((node, i) => (
            <GraphNode key={`${node.id}-${i}`} view={view} node={node} index={i} box={layout.boxes[i]} />
          ))}
        </ol>
      </div>
    </section>
  );
}

function GraphNode({
  view,
  node,
  index,
  box,
}: {
  view: RunView;
  node: NodeView;
  index: number;
  box?: GraphBox;
}) {
  const { t } = useI18n();
  const items = itemsOf(view, index);
  const isMap = items > 0 && node.itemOf === null;
  return (
    <li
      className={`graph-node node-${node.status}${node.itemOf !== null ? ' graph-item' : ''}`}
      data-node={node.id}
      data-from={node.from.map((p) => view.nodes[p]?.id ?? '?').join(' ')}
      style={{ left: box?.x ?? 0, top: box?.y ?? 0, width: BOX.width, height: BOX.height }}
    >
      <span className="graph-head">
        <a href={`#node-${node.id}-${index}`} className="graph-name">
          {node.id}
        </a>
        {node.itemIndex !== null && (
          <span className="graph-item-no muted">{t('mapItem', { n: node.itemIndex + 1 })}</span>
        )}
        {isMap && (
          <span className="graph-map" data-testid={`map-${node.id}`}>
            {t('mapItems', { count: items })}
          </span>
        )}
      </span>
      <NodeBadge status={node.status} />
      <NodeLimits node={node} rounds={rounds(node)} />
    </li>
  );
}

/** A curve from the right side of one box to the left side of another. */
function linePath(boxes: readonly GraphBox[], line: GraphLine): string {
  const a = boxes[line.from];
  const b = boxes[line.to];
  if (!a || !b) return '';
  const x1 = a.x + BOX.width;
  const y1 = a.y + BOX.height / 2;
  const x2 = b.x;
  const y2 = b.y + BOX.height / 2;
  const bend = Math.max(16, (x2 - x1) / 2);
  return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2 - 2} ${y2}`;
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
