import type { ObservationJSON } from './observation.js';

/**
 * The contract of a code node (docs/flows.md, "Code nodes"): a function that runs instead of a model
 * loop. It receives the run input and the outputs of earlier nodes, may call the node's tools through
 * the same guard chain as a model (write gate, approvals, exactly-once, evidence), and returns the
 * node's outputs.
 */

/** What one tool call from a code node returned: the observation as data (never thrown). */
export interface CodeToolResult {
  readonly outcome: 'SUCCESS' | 'FAILED' | 'REJECTED' | 'DEFERRED';
  /** True for SUCCESS. */
  readonly ok: boolean;
  readonly errorCode: string | null;
  /** The observation's text (reason and next step) in the flow's locale. */
  readonly message: string;
  /** The tool's result (SUCCESS, FAILED) or the observation's data. */
  readonly data: unknown;
  /** The evidence the call recorded (SUCCESS, FAILED), else null. */
  readonly evidenceId: string | null;
}

/** What a code node's function is given. */
export interface CodeStepContext {
  readonly runId: string;
  readonly nodeId: string;
  /** The run input. */
  readonly input: unknown;
  /** The outputs of the nodes that completed before this one, by node id. */
  readonly nodes: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** In a map's body (docs/flows.md, "Map"): the item this run is for and its index (from 0). */
  readonly item?: unknown;
  readonly itemIndex?: number;
  /** Aborted when the run is cancelled or the runtime shuts down. */
  readonly signal: AbortSignal;
  readonly tools: {
    /**
     * Calls one of the node's `tools` through the guard chain. A write without an approval suspends
     * the run for the person's approval: the function is then left (its promise is abandoned) and
     * runs again from the start once the person answered, where every call it made before returns
     * its recorded result without running again.
     */
    call(tool: string, args?: Record<string, unknown>): Promise<CodeToolResult>;
  };
  /** Sets the node's answer to the person (the run's `reply` when this node is the last). */
  reply(text: string): void;
}

/** A code node's function: returns the node's outputs (an object keyed by declared output), or nothing. */
export type CodeStep = (
  ctx: CodeStepContext,
) => Record<string, unknown> | undefined | void | Promise<Record<string, unknown> | undefined | void>;

/** One tool call of a code node as recorded, so that a run again returns it without running it again. */
export interface CodeCallRecord {
  tool: string;
  /** The canonical JSON of the arguments (a run again must make the same call at the same position). */
  args: string;
  observation: ObservationJSON;
}
