import { edgeTargets, type Flow, type FlowNode } from '../domain/flow.js';
import { jsonataProblem } from './expressions.js';
import { mapBodies } from './semantic-parallel.js';
import { jsonSchemaIssues } from './json-schema.js';
import { listOf, suggest, type RawProblem } from './problems.js';
import { parseTemplateRefs, type TemplateRef } from './templates.js';

/**
 * Checks of the flow's graph (docs/flows.md): node ids unique, edges between existing nodes, `when`
 * parses, every node reachable from the first one, instruction templates naming outputs of nodes that
 * can run before, and the `input` schema being a valid JSON Schema.
 */
export function graphProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [];
  const ids = nodeIds(flow, problems);
  let edgesBroken = problems.length > 0;
  flow.edges.forEach((edge, i) => {
    const ends: [(string | number)[], string][] = [
      [['edges', i, 'from'], edge.from],
      ...(typeof edge.to === 'string'
        ? [[['edges', i, 'to'], edge.to] as [(string | number)[], string]]
        : edge.to.map((to, j): [(string | number)[], string] => [['edges', i, 'to', j], to])),
    ];
    for (const [path, end] of ends) {
      if (!ids.has(end)) {
        edgesBroken = true;
        problems.push({
          path,
          message: `unknown node "${end}"${suggest(end, ids)}; expected one of: ${listOf(ids)}`,
        });
      }
    }
    if (edge.when !== undefined) {
      const why = jsonataProblem(edge.when);
      if (why) problems.push({ path: ['edges', i, 'when'], message: why });
    }
  });
  const successors = successorMap(flow, ids);
  const first = flow.nodes[0]?.id;
  const reachable = first === undefined ? new Set<string>() : reach(first, successors, true);
  flow.nodes.forEach((node, i) => {
    // With a broken id or edge, unreachable nodes are a consequence, not news.
    if (!edgesBroken && !reachable.has(node.id)) {
      problems.push({
        path: ['nodes', i, 'id'],
        message: `node "${node.id}" is not reachable from the first node "${String(first)}"; expected an edge leading to it`,
      });
    }
    problems.push(...templateProblems(flow, node, i, edgesBroken ? undefined : successors));
  });
  for (const issue of jsonSchemaIssues(flow.input))
    problems.push({ path: ['input', ...issue.path], message: issue.message });
  return problems;
}

function nodeIds(flow: Flow, problems: RawProblem[]): Set<string> {
  const firstIndex = new Map<string, number>();
  flow.nodes.forEach((node, i) => {
    const earlier = firstIndex.get(node.id);
    if (earlier === undefined) firstIndex.set(node.id, i);
    else
      problems.push({
        path: ['nodes', i, 'id'],
        message: `duplicate node id "${node.id}" (also nodes[${earlier}]); expected unique ids`,
      });
  });
  return new Set(firstIndex.keys());
}

function successorMap(flow: Flow, ids: ReadonlySet<string>): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>([...ids].map((id) => [id, new Set<string>()]));
  for (const edge of flow.edges) for (const to of edgeTargets(edge)) map.get(edge.from)?.add(to);
  // A map runs its body: the body comes after the map and before what follows it.
  for (const node of flow.nodes) if (node.map && ids.has(node.map.node)) map.get(node.id)?.add(node.map.node);
  return map;
}

/** Nodes reachable from `start` (including `start` itself when `includeStart`, else only via edges). */
function reach(
  start: string,
  successors: ReadonlyMap<string, ReadonlySet<string>>,
  includeStart: boolean,
): Set<string> {
  const seen = new Set<string>(includeStart ? [start] : []);
  const queue = [...(successors.get(start) ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(successors.get(next) ?? []));
  }
  return seen;
}

/** `successors` undefined: the edges are broken, so which node runs before which is not checked. */
function templateProblems(
  flow: Flow,
  node: FlowNode,
  index: number,
  successors: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): RawProblem[] {
  const check = (text: string, path: (string | number)[]) =>
    parseTemplateRefs(text).flatMap((ref): RawProblem[] => {
      const why = refProblem(flow, node, ref, successors);
      return why ? [{ path, message: `${ref.raw}: ${why}` }] : [];
    });
  // A map's `over` given as a template names what it runs over as instructions do.
  const over = node.map?.over;
  return [
    ...check(node.instructions, ['nodes', index, 'instructions']),
    ...(over !== undefined && /^\s*\{\{[^{}]*\}\}\s*$/.test(over)
      ? check(over, ['nodes', index, 'map', 'over'])
      : []),
  ];
}

function refProblem(
  flow: Flow,
  node: FlowNode,
  ref: TemplateRef,
  successors: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): string | undefined {
  if (ref.kind === 'invalid')
    return 'expected {{nodes.<id>.outputs.<key>}}, {{nodes.<id>.outputs}} or {{input.<field>}}';
  if (ref.kind === 'input') return inputRefProblem(flow, ref.path);
  if (node.sees === 'request')
    return `node "${node.id}" sees only the user's request (sees: request); expected {{input.<field>}} only`;
  if (ref.kind === 'item')
    return mapBodies(flow).has(node.id)
      ? undefined
      : `{{item}} is known only in the body of a map node; node "${node.id}" is not one`;
  const source = flow.nodes.find((n) => n.id === ref.node);
  const ids = flow.nodes.map((n) => n.id);
  if (!source) return `unknown node "${ref.node}"${suggest(ref.node, ids)}; expected one of: ${listOf(ids)}`;
  if (source.map?.node === node.id)
    return `node "${node.id}" is the body of map "${source.id}", whose items are known only once every item ran; expected {{item}} or an earlier node's outputs`;
  if (successors && !reach(source.id, successors, false).has(node.id)) {
    return `node "${source.id}" never runs before node "${node.id}"; expected a node with a path of edges to "${node.id}"`;
  }
  const keys = source.map ? ['items'] : Object.keys(source.outputs);
  if (ref.key !== undefined && !keys.includes(ref.key)) {
    return `node "${source.id}" declares no output "${ref.key}"${suggest(ref.key, keys)}; expected one of: ${listOf(keys)}`;
  }
  return undefined;
}

/** A field named by `{{input.x}}` must be declared when the input schema lists its properties. */
function inputRefProblem(flow: Flow, path: readonly string[]): string | undefined {
  const field = path[0];
  const properties = flow.input.properties;
  if (field === undefined || typeof properties !== 'object' || properties === null) return undefined;
  const names = Object.keys(properties);
  if (names.includes(field)) return undefined;
  return `the input schema declares no field "${field}"${suggest(field, names)}; expected one of: ${listOf(names)}`;
}
