import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeStep } from '../domain/code-step.js';
import type { Flow, FlowNode } from '../domain/flow.js';
import { nodeKindOf, type ModelOnlyKey, type NodeKindSpec } from '../domain/node-kinds.js';
import { inside, realOrSelf } from '../fs/input-file.js';
import type { RawProblem } from './problems.js';

/**
 * Code nodes (docs/flows.md, "Code nodes"): the functions of a flow written in code, taken out of the
 * flow object before it is validated (a flow is persisted with its runs as JSON data), the checks of
 * a code node's keys, and the import of a YAML flow's `module: ./file.mjs#name` references.
 */

/** The flow object with each function `run` replaced by `run: inline`, and those functions by node id. */
export function withCodeSteps(source: object): { data: object; steps: Map<string, CodeStep> } {
  const steps = new Map<string, CodeStep>();
  const nodes = (source as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes) || !nodes.some(hasFunctionRun)) return { data: source, steps };
  const converted = nodes.map((node: unknown) => {
    if (!hasFunctionRun(node)) return node;
    const { run, ...rest } = node as { run: CodeStep; id?: unknown };
    if (typeof rest.id === 'string') steps.set(rest.id, run);
    return { ...rest, run: 'inline' };
  });
  return { data: { ...source, nodes: converted }, steps };
}

/**
 * The flow data with `sources: [code]` filled in for the outputs of code nodes that leave it out
 * (their values come from the function), so that only model nodes must say where a value may come from.
 */
export function withCodeSources(data: object): object {
  const nodes = (data as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes) || !nodes.some(isCodeNodeData)) return data;
  const filled = nodes.map((node: unknown) => {
    if (!isCodeNodeData(node)) return node;
    const outputs = (node as { outputs?: unknown }).outputs;
    if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs)) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, contract] of Object.entries(outputs as Record<string, unknown>))
      copy[key] =
        typeof contract === 'object' && contract !== null && !('sources' in contract)
          ? { ...contract, sources: ['code'] }
          : contract;
    return { ...(node as object), outputs: copy };
  });
  return { ...data, nodes: filled };
}

function isCodeNodeData(node: unknown): boolean {
  return typeof node === 'object' && node !== null && nodeKindOf(node).outputSources === 'code';
}

/** What the node says of the model-only keys its kind refuses (src/domain/node-kinds.ts). */
const REFUSED_HERE: Readonly<Record<ModelOnlyKey, (node: FlowNode) => boolean>> = {
  instructions: (node) => node.instructions.trim() !== '',
  answer: (node) => node.answer !== undefined,
  delegates: (node) => node.delegates.length > 0,
  // The prompt is the server-content check's (semantic-server-content.ts), which knows the servers.
  prompt: () => false,
};

/** The keys `node` (at `index`) has that its kind refuses. */
function refusedKeys(node: FlowNode, index: number): RawProblem[] {
  const kind: NodeKindSpec = nodeKindOf(node);
  return kind.refuses
    .filter((key) => REFUSED_HERE[key](node))
    .map((key) => ({
      path: ['nodes', index, key],
      message:
        key === 'instructions'
          ? `${kind.refusal ?? ''}: remove instructions (or ${kind.keys.join(' and ')})`
          : `${kind.refusal ?? ''}: remove ${key}`,
    }));
}

function hasFunctionRun(node: unknown): boolean {
  return typeof node === 'object' && node !== null && typeof (node as { run?: unknown }).run === 'function';
}

/** Where a flow came from, for the checks of its code nodes. */
export interface CodeNodeOrigin {
  /** The flow was sent over HTTP: code nodes are refused. */
  readonly fromRequest: boolean;
  /** The flow's folder (`module` paths resolve against it); null: none. */
  readonly dir: string | null;
  /** The functions a flow written in code gave (`withCodeSteps`). */
  readonly steps: ReadonlyMap<string, CodeStep>;
}

/**
 * Checks the code nodes of a valid flow and imports their modules: the keys a code node may not have,
 * `run: inline` without a function, `module` in a flow from a request or outside the flow's folder,
 * and a module that cannot be imported or lacks the named function. Returns the problems and every
 * code node's function by node id (complete only when there are no problems).
 */
export async function codeNodeProblems(
  flow: Flow,
  origin: CodeNodeOrigin,
): Promise<{ problems: RawProblem[]; steps: Map<string, CodeStep> }> {
  const problems: RawProblem[] = [];
  const steps = new Map<string, CodeStep>();
  for (const [i, node] of flow.nodes.entries()) {
    const kind = nodeKindOf(node);
    const code = kind.outputSources === 'code';
    for (const [key, output] of Object.entries(node.outputs))
      if (output.sources.includes('code') !== code || (code && output.sources.length > 1))
        problems.push({
          path: ['nodes', i, 'outputs', key, 'sources'],
          message: code
            ? `a ${kind.name} node's outputs come from its function: leave sources out (or write [code])`
            : 'source code is for the outputs of code nodes; expected evidence, user, node or model',
        });
    problems.push(...refusedKeys(node, i));
    if (kind.name !== 'code') continue;
    const at = (key: string) => ['nodes', i, key];
    if (node.run !== undefined && node.module !== undefined) {
      problems.push({ path: at('module'), message: 'expected either run (in code) or module, not both' });
      continue;
    }
    if (node.run !== undefined) {
      const step = origin.steps.get(node.id);
      if (step) steps.set(node.id, step);
      else
        problems.push({
          path: at('run'),
          message:
            'run: inline is set by flows written in code, whose run is a function; a YAML or JSON flow names its function with module: ./file.mjs#name',
        });
      continue;
    }
    const ref = node.module ?? '';
    if (origin.fromRequest) {
      problems.push({
        path: at('module'),
        message:
          "code nodes are not accepted in flows sent over HTTP; put the flow in the server's flows folder (serve --flows)",
      });
      continue;
    }
    const loaded = await importCodeStep(origin.dir ?? process.cwd(), ref);
    if (typeof loaded === 'string') problems.push({ path: at('module'), message: loaded });
    else steps.set(node.id, loaded);
  }
  return { problems, steps };
}

/**
 * Imports `./file.mjs#name` relative to `dir` and returns the function, or why not (one line). The
 * file must lie inside `dir` (after resolving links); Node's module cache makes a second import free.
 */
export async function importCodeStep(dir: string, ref: string): Promise<CodeStep | string> {
  const hash = ref.lastIndexOf('#');
  const file = ref.slice(0, hash);
  const name = ref.slice(hash + 1);
  if (file.split(/[\\/]/).includes('..'))
    return `${file} leaves the flow's folder; expected a module inside it (./file.mjs#name)`;
  const path = resolve(dir, file);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return `module ${file} not found in the flow's folder`;
  }
  if (!inside(realOrSelf(resolve(dir)), real))
    return `${file} leads outside the flow's folder; expected a module inside it`;
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(real).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `cannot import ${file}: ${message}`;
  }
  const value = exports[name];
  if (typeof value === 'function') return value as CodeStep;
  const names = Object.keys(exports).filter((k) => typeof exports[k] === 'function');
  const offer = names.length > 0 ? `; its functions: ${names.join(', ')}` : '; it exports no function';
  return value === undefined
    ? `${file} has no export ${name}${offer}`
    : `${file}'s export ${name} is not a function${offer}`;
}
