import type { FlowNode } from '../../domain/flow.js';
import type { Observation } from '../../domain/observation.js';
import type { CallInput, ControlEffect } from '../call.js';

/**
 * A builtin tool (docs/observations.md). It runs in the pipeline's invoke step with the call context; it rejects
 * a call by returning a REJECTED observation (it never throws for one), and asks the loop to end the node or suspend
 * the run by returning its observation with an effect.
 */
export interface BuiltinTool {
  readonly name: string;
  /** True when the tool is visible in `node`, whose callable tools are described by `tools`. */
  visible(node: FlowNode, tools: NodeTools): boolean;
  /**
   * True for a builtin with an effect outside the run (a delegation starts a child run): the step so
   * far is committed before it runs, like a write's in-flight mark (docs/durability.md). A failed commit is not
   * the tool's failure: it stops the driver.
   */
  readonly writeAhead?: boolean;
  execute(args: Record<string, unknown>, ctx: CallInput): Promise<Observation | WithEffect>;
}

/** What a builtin's visibility may depend on besides the node itself: the tools the node can call. */
export interface NodeTools {
  /** True when a tool the node can call is a write (so a call of it may be stopped for approval). */
  readonly writes: boolean;
}

/** A builtin's observation with what it asks the loop to do next (end the node, suspend the run). */
export interface WithEffect {
  readonly observation: Observation;
  readonly effect: ControlEffect;
}
