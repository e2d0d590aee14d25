import { edgeTargets, MAX_EDGE_TARGETS, MAX_RUN_BRANCHES, type Flow, type FlowNode } from '../domain/flow.js';
import { nodeKindOf } from '../domain/node-kinds.js';
import { jsonataProblem } from './expressions.js';
import { listOf, suggest, type RawProblem } from './problems.js';

/**
 * Checks of parallel branches and maps (docs/flows.md, "Parallel branches", "Map"): a list `to`
 * names each node once; a map names an existing body that is neither itself, another map nor the end
 * of an edge, has no model or code keys of its own and an `over` that parses; every cycle of
 * edges has a way out (an edge with `when` somewhere on it, or another edge leaving it before); a list
 * `to` names at most MAX_EDGE_TARGETS nodes, and the lists plus the maps' concurrency add up to at
 * most MAX_RUN_BRANCHES (the branches a run may hold at once).
 */
export function parallelProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [...branchLimitProblems(flow)];
  flow.edges.forEach((edge, i) => {
    if (typeof edge.to === 'string') return;
    const seen = new Set<string>();
    edge.to.forEach((to, j) => {
      if (seen.has(to))
        problems.push({
          path: ['edges', i, 'to', j],
          message: `node "${to}" is listed twice; expected each node once`,
        });
      seen.add(to);
    });
  });
  flow.nodes.forEach((node, i) => problems.push(...mapProblems(flow, node, i)));
  // With a duplicate id or an edge to an unknown node, cycles are a consequence, not news.
  const ids = new Set(flow.nodes.map((n) => n.id));
  const broken =
    ids.size < flow.nodes.length ||
    flow.edges.some((e) => !ids.has(e.from) || edgeTargets(e).some((to) => !ids.has(to)));
  if (!broken) problems.push(...cycleProblems(flow));
  return problems;
}

/** Fan-outs wider than the limits: one edge's list, and all lists and map concurrencies together. */
function branchLimitProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [];
  let total = 0;
  flow.edges.forEach((edge, i) => {
    if (typeof edge.to === 'string') return;
    total += edge.to.length;
    if (edge.to.length > MAX_EDGE_TARGETS)
      problems.push({
        path: ['edges', i, 'to'],
        message: `this edge starts ${edge.to.length} nodes at once; an edge starts at most ${MAX_EDGE_TARGETS} (MAX_EDGE_TARGETS)`,
      });
  });
  for (const node of flow.nodes) total += node.map?.concurrency ?? 0;
  if (total > MAX_RUN_BRANCHES && problems.length === 0)
    problems.push({
      path: ['edges'],
      message: `the edges' node lists and the maps' concurrency add up to ${total} branches; a run holds at most ${MAX_RUN_BRANCHES} at once (MAX_RUN_BRANCHES)`,
    });
  return problems;
}

/** The bodies of the flow's maps. */
export function mapBodies(flow: Pick<Flow, 'nodes'>): Set<string> {
  return new Set(flow.nodes.flatMap((n) => (n.map ? [n.map.node] : [])));
}

function mapProblems(flow: Flow, node: FlowNode, index: number): RawProblem[] {
  const map = node.map;
  if (!map) return [];
  const at = (...rest: (string | number)[]) => ['nodes', index, ...rest];
  const problems: RawProblem[] = [];
  const own = [
    node.instructions.trim() !== '' ? 'instructions' : null,
    node.tools.length > 0 ? 'tools' : null,
    Object.keys(node.outputs).length > 0 ? 'outputs' : null,
    node.delegates.length > 0 ? 'delegates' : null,
    ...nodeKindOf(node).keys.filter((key) => (node as Record<string, unknown>)[key] !== undefined),
    node.answer !== undefined ? 'answer' : null,
  ].filter((k): k is string => k !== null);
  for (const key of own)
    problems.push({
      path: at(key),
      message: `a map node runs its body only; expected no ${key} (its output is items)`,
    });
  if (!/^\s*\{\{[^{}]*\}\}\s*$/.test(map.over)) {
    const why = jsonataProblem(map.over);
    if (why) problems.push({ path: at('map', 'over'), message: why });
  }
  const ids = flow.nodes.map((n) => n.id);
  const body = flow.nodes.find((n) => n.id === map.node);
  if (!body)
    return [
      ...problems,
      {
        path: at('map', 'node'),
        message: `unknown node "${map.node}"${suggest(map.node, ids)}; expected one of: ${listOf(ids)}`,
      },
    ];
  if (body.id === node.id)
    problems.push({ path: at('map', 'node'), message: 'a map cannot run itself; expected another node' });
  else if (body.map)
    problems.push({
      path: at('map', 'node'),
      message: `node "${body.id}" is a map itself; expected a model or code node`,
    });
  const into = flow.edges.findIndex((e) => edgeTargets(e).includes(body.id) || e.from === body.id);
  if (into >= 0)
    problems.push({
      path: ['edges', into],
      message: `node "${body.id}" is the body of map "${node.id}", which runs it; expected no edge to or from it`,
    });
  return problems;
}

/**
 * Cycles that can never be left: every node on them takes its cycle edge first and unconditionally,
 * so the run would go round until a node fails.
 */
function cycleProblems(flow: Flow): RawProblem[] {
  const forced = new Map<string, { to: string[]; index: number }>();
  for (const node of flow.nodes) {
    const index = flow.edges.findIndex((e) => e.from === node.id);
    const first = flow.edges[index];
    if (first && first.when === undefined) forced.set(node.id, { to: edgeTargets(first), index });
  }
  const problems: RawProblem[] = [];
  const reported = new Set<string>();
  for (const start of forced.keys()) {
    const cycle = forcedCycle(start, forced);
    if (!cycle || cycle.some((id) => reported.has(id))) continue;
    for (const id of cycle) reported.add(id);
    problems.push({
      path: ['edges', forced.get(start)?.index ?? 0],
      message: `the cycle ${[...cycle, cycle[0]].join(' → ')} has no way out (each of its nodes takes its first edge, which has no when); expected a when on one of its edges`,
    });
  }
  return problems;
}

/** The cycle through `start` along forced edges (every target must be forced too), or null. */
function forcedCycle(start: string, forced: Map<string, { to: string[] }>): string[] | null {
  const path: string[] = [start];
  const walk = (at: string): string[] | null => {
    for (const next of forced.get(at)?.to ?? []) {
      if (next === start) return [...path];
      if (path.includes(next) || !forced.has(next)) continue;
      path.push(next);
      const found = walk(next);
      if (found) return found;
      path.pop();
    }
    return null;
  };
  return walk(start);
}
