import type { FlowNode } from '../domain/flow.js';
import type { NodeExit } from '../loop/node-loop.js';
import type { Branch } from '../records/state-doc.js';
import type { GraphHost } from './flow-runner.js';

/** What the parallel runner needs besides the single-node runner's port. */
export interface ParallelHost extends GraphHost {
  /** Runs one node run of `branch` (its node loop or code node) inside that branch. */
  runBranch(branch: Branch, node: FlowNode): Promise<NodeExit>;
  /** Moves the run's single conversation (before the first branch existed) to `branch`. */
  adoptConversation(branch: Branch): void;
}

/** An exit of a node run that ended it (not suspended or stopped). */
export type EndExit = Extract<NodeExit, { kind: 'completed' | 'failed' }>;
