import type { ObservationJSON } from '../domain/observation.js';
import type { ModelToolCall } from '../model/model.js';

/** A wave of tool calls being handled; `next` is the first call not handled yet (for resumption). */
export interface Wave {
  round: number;
  calls: ModelToolCall[];
  next: number;
}

/** The call that suspended the node, waiting for a person. */
export interface SuspendedCall {
  round: number;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  kind: 'APPROVAL' | 'FOLLOW_UP';
  /** The gated call's fingerprint for an approval. */
  fingerprint?: string;
  /** True for the runtime's own question after an interrupted write (docs/durability.md): no tool call behind it. */
  runtimeQuestion?: boolean;
  /** Set when a delegated child run suspended: the person's response goes to that run. */
  childRunId?: string;
  /** The fingerprint the suspending call added to the node run's count (its tool message comes later). */
  counted?: string;
}

/** A suspending call the person has responded to, waiting to be counted by the loop. */
export interface ResolvedCall {
  call: SuspendedCall;
  /** The call's final observation (persisted form). */
  observation: ObservationJSON;
}

/** The loop's own persisted position inside a node run. */
export interface LoopState {
  wave: Wave | null;
  suspended: SuspendedCall | null;
  resolved: ResolvedCall | null;
}

export function newLoopState(): LoopState {
  return { wave: null, suspended: null, resolved: null };
}
