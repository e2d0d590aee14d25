import type { CodeStep } from '../domain/code-step.js';
import type { EdgeCondition } from '../domain/edge-condition.js';
import type { Flow, FlowNode } from '../domain/flow.js';
import { importCodeStep, withCodeSteps } from '../flow/code-steps.js';
import { withEdgeConditions } from '../flow/edge-conditions.js';
import type { FlowRef } from './toolbox.js';

/**
 * Where a runtime finds the function of a code node it drives (docs/flows.md, "Code nodes"): the flow
 * the run was started with in this process, a YAML flow's `module` (imported from the run's flow
 * folder, so any process can resume it), or a flow written in code that was given to
 * `createRuntime({ flows })` — a run stores its flow as data, without functions.
 */
export class CodeRegistry {
  /** @param cwd the folder a flow without one of its own imports its modules from (the runtime's `cwd`). */
  constructor(private readonly cwd: string) {}

  private readonly inline = new Map<string, ReadonlyMap<string, CodeStep>>();
  private readonly whens = new Map<string, ReadonlyMap<number, EdgeCondition>>();

  /**
   * Keeps the functions of a flow written in code (code nodes' `run`, edges' `when`), by flow id and
   * version (a later one replaces it).
   */
  register(
    flow: Pick<Flow, 'id' | 'version'>,
    steps: ReadonlyMap<string, CodeStep> | undefined,
    conditions?: ReadonlyMap<number, EdgeCondition>,
  ): void {
    if (steps && steps.size > 0) this.inline.set(keyOf(flow), steps);
    if (conditions && conditions.size > 0) this.whens.set(keyOf(flow), conditions);
  }

  /** The function `when`s of the run's flow by edge index (docs/flows.md, "Flows in code"); empty: none known. */
  conditions(ref: FlowRef): ReadonlyMap<number, EdgeCondition> {
    return ref.conditions ?? this.whens.get(keyOf(ref.flow)) ?? new Map();
  }

  /** The node's function, or why there is none (one line, the node fails CODE_NODE_UNAVAILABLE). */
  async resolve(ref: FlowRef, node: FlowNode): Promise<CodeStep | string> {
    const own = ref.code?.get(node.id) ?? this.inline.get(keyOf(ref.flow))?.get(node.id);
    if (own) return own;
    if (node.module !== undefined) return importCodeStep(ref.dir ?? this.cwd, node.module);
    return `the function of code node ${node.id} of flow ${ref.flow.id} (version ${String(ref.flow.version)}) is not known to this runtime; give the flow to createRuntime({ flows }) to resume its runs, then retry the run`;
  }
}

function keyOf(flow: Pick<Flow, 'id' | 'version'>): string {
  return `${flow.id}\u0000${String(flow.version)}`;
}

/**
 * The registry of a runtime given `flows` (a flow written in code, or one `loadFlow` returned): their
 * code nodes' functions and function `when`s by flow id and version (`version` 1 when the flow object gives none);
 * modules of flows without a folder of their own are imported from `cwd`.
 */
export function codeRegistryOf(flows: readonly object[], cwd: string): CodeRegistry {
  const registry = new CodeRegistry(cwd);
  for (const source of flows) {
    const loaded = source as {
      flow?: Flow;
      code?: ReadonlyMap<string, CodeStep>;
      conditions?: ReadonlyMap<number, EdgeCondition>;
    };
    if (loaded.flow && typeof loaded.flow === 'object') {
      registry.register(loaded.flow, loaded.code, loaded.conditions);
      continue;
    }
    const raw = source as { id?: unknown; version?: unknown };
    if (typeof raw.id !== 'string') continue;
    const version = typeof raw.version === 'number' || typeof raw.version === 'string' ? raw.version : 1;
    registry.register(
      { id: raw.id, version },
      withCodeSteps(source).steps,
      withEdgeConditions(source).conditions,
    );
  }
  return registry;
}
