import { expect } from 'vitest';
import type { FlowInput, FlowNode } from '../../src/domain/flow.js';
import type { ParallelHost } from '../../src/graph/parallel.js';
import type { NodeExit } from '../../src/loop/node-loop.js';
import type { Branch } from '../../src/records/state-doc.js';
import { GraphHostFake } from '../helpers/graph-host-fake.js';

/**
 * The graph host fake with the parallel runner's port (src/graph/parallel-host.ts): each node run
 * answers from a function (which may wait on a gate the test opens), and the fake records which node
 * runs ran (with their item index) and how many ran at once.
 */

export type Answer = (node: FlowNode, branch: Branch) => NodeExit | Promise<NodeExit>;

export class ParallelFake extends GraphHostFake implements ParallelHost {
  readonly ran: string[] = [];
  readonly items: (number | undefined)[] = [];
  readonly adopted: Branch[] = [];
  running = 0;
  mostRunning = 0;
  constructor(
    flow: Omit<FlowInput, 'id'>,
    private readonly answer: Answer,
    input?: unknown,
  ) {
    super(flow, {}, input);
  }
  async runBranch(branch: Branch, node: FlowNode): Promise<NodeExit> {
    this.ran.push(node.id);
    this.items.push(branch.item?.index);
    this.running += 1;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    try {
      return await this.answer(node, branch);
    } finally {
      this.running -= 1;
    }
  }
  adoptConversation(branch: Branch): void {
    this.adopted.push(branch);
  }
  /** node.started events as [nodeId, nodeRun, from]. */
  started(): [string, number | undefined, string[] | undefined][] {
    return this.ofType('node.started').map((e) => [e.nodeId, e.nodeRun, e.from]);
  }
}

/** A promise the test resolves. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets the runner work until `cond` holds (bounded: fails rather than hangs). */
export async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !cond(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  expect(cond()).toBe(true);
}

/** Writes outputs into the branch's node state as the node loop does, then completes. */
export function complete(branch: Branch, outputs: Record<string, unknown> = {}, reply?: string): NodeExit {
  for (const [key, value] of Object.entries(outputs))
    (branch.node as NonNullable<Branch['node']>).outputs[key] = {
      value,
      sourceType: 'model',
      sourceRef: null,
    };
  return reply === undefined ? { kind: 'completed' } : { kind: 'completed', reply };
}

/** Model nodes by id. */
export const nodes = (...ids: string[]) => ids.map((id) => ({ id, instructions: id }));
