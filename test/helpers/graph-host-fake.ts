import { FlowSchema, type Flow, type FlowInput, type FlowNode } from '../../src/domain/flow.js';
import type { GraphHost } from '../../src/graph/flow-runner.js';
import { startNode } from '../../src/graph/flow-runner.js';
import type { NodeExit } from '../../src/loop/node-loop.js';
import { newLoopState } from '../../src/records/loop-state.js';
import { newRunState, type RunState } from '../../src/records/run-state.js';
import type { RunStateDoc } from '../../src/records/state-doc.js';
import type { RunPatch } from '../../src/store/store.js';
import type { EventPayload } from '../../src/trace/events.js';

/**
 * A strict stand-in for the runtime behind the graph runner's port (`GraphHost`,
 * src/graph/flow-runner.ts): no store, no loop, no model. Each node's visits answer from a script
 * (an exit, and the outputs the node wrote); events, run patches, checkpoints and conversation resets
 * are recorded. It throws on what the real host never sees: running a node that is not the current
 * one or was not started, a visit past the node's script, and any event, patch or node run after the
 * run ended (completed or failed).
 */

/** One visit of a node: how it ends and the outputs it wrote (read only when it completed). */
export interface Visit {
  exit: Exclude<NodeExit, { kind: 'suspended' }> | { kind: 'suspended' };
  outputs?: Record<string, unknown>;
}

export class GraphHostFake implements GraphHost {
  readonly flow: Flow;
  readonly doc: RunStateDoc;
  readonly run: RunState;
  readonly input: unknown;
  readonly events: EventPayload[] = [];
  readonly patches: RunPatch[] = [];
  readonly visited: string[] = [];
  checkpoints = 0;
  resets = 0;
  private readonly visits: Record<string, Visit[]>;
  private ended = false;

  constructor(flow: Omit<FlowInput, 'id'>, visits: Record<string, Visit[]>, input: unknown = { text: 'go' }) {
    this.flow = FlowSchema.parse({ id: 'fake-flow', ...flow });
    this.visits = Object.fromEntries(Object.entries(visits).map(([id, list]) => [id, [...list]]));
    this.input = input;
    this.run = newRunState('run_fake', input);
    const { evidence: _evidence, ...run } = this.run;
    this.doc = {
      schema: 1,
      run,
      nodeId: null,
      nodeRuns: 0,
      node: null,
      loop: newLoopState(),
      modelCalls: 0,
    };
    // The run's state document shares the node outputs with the run state, as the engine's does.
    this.doc.run.nodeOutputs = this.run.nodeOutputs;
    const first = this.flow.nodes[0];
    if (!first) throw new Error('a flow has at least one node');
    startNode(this, first.id, this.flow);
  }

  emit(event: EventPayload): void {
    this.live(`emit ${event.type}`);
    this.events.push(event);
    if (event.type === 'run.completed' || event.type === 'run.failed') this.ended = true;
  }

  update(patch: RunPatch): void {
    if (this.ended && this.patches.some((p) => p.status !== undefined))
      throw new Error(`update(${JSON.stringify(patch)}) after the run's final status`);
    this.patches.push(patch);
  }

  checkpoint(): Promise<void> {
    this.checkpoints += 1;
    return Promise.resolve();
  }

  resetConversation(): void {
    this.live('reset the conversation');
    this.resets += 1;
  }

  runNode(node: FlowNode): Promise<NodeExit> {
    this.live(`run node ${node.id}`);
    if (node.id !== this.doc.nodeId || this.doc.node?.nodeId !== node.id)
      throw new Error(`runNode(${node.id}) but the current node run is ${this.doc.nodeId ?? 'none'}`);
    const visit = this.visits[node.id]?.shift();
    if (!visit) throw new Error(`node ${node.id} was run more often than its script allows`);
    this.visited.push(node.id);
    for (const [key, value] of Object.entries(visit.outputs ?? {}))
      this.doc.node.outputs[key] = { value, sourceType: 'model', sourceRef: null };
    return Promise.resolve(visit.exit);
  }

  /** The final status patch, if the run ended. */
  finalPatch(): RunPatch | undefined {
    return this.patches.find((p) => p.status !== undefined);
  }

  /** The recorded events of one type. */
  ofType<T extends EventPayload['type']>(type: T): Extract<EventPayload, { type: T }>[] {
    return this.events.filter((e): e is Extract<EventPayload, { type: T }> => e.type === type);
  }

  private live(what: string): void {
    if (this.ended) throw new Error(`the graph tried to ${what} after the run ended`);
  }
}

export const completed = (outputs: Record<string, unknown> = {}, reply?: string): Visit => ({
  exit: reply === undefined ? { kind: 'completed' } : { kind: 'completed', reply },
  outputs,
});
export const failed = (reason = 'NO_PROGRESS', message = 'no progress'): Visit => ({
  exit: { kind: 'failed', reason, message },
});
export const suspended = (): Visit => ({ exit: { kind: 'suspended' } });
export const stopped = (): Visit => ({ exit: { kind: 'stopped' } });
