import type { ToolPolicy } from '../domain/flow.js';
import type { Observation } from '../domain/observation.js';
import type { ValueMatch } from '../records/run-state.js';
import type { ToolDescriptor } from '../domain/tool.js';
import type { CallInput, ControlEffect, LookBackResult } from './call.js';

// What each step of the tool-call chain learns, handed to the steps after it as a typed value (types
// only). A step declares what it needs; the chain checks at compile time that earlier steps provide it.

/** Learnt by the catalog step. */
export interface ResolvedTool {
  readonly descriptor: ToolDescriptor;
  /** The flow's policy of this tool; builtins have none. */
  readonly policy: ToolPolicy | undefined;
  /** True for a write tool (flow `write`, else MCP annotations; builtins never). */
  readonly isWrite: boolean;
}

/** Learnt by the arg policy. */
export interface CallArgs {
  /** The parsed arguments. */
  readonly args: Record<string, unknown>;
  /** Tool + canonical arguments. */
  readonly fingerprint: string;
}

/** Learnt by the param contract. */
export interface Provenance {
  /** Argument name → evidence id, for `source: evidence` params. */
  readonly provenance: Readonly<Record<string, string>>;
  /** Argument name → the user's words it was found in, for `source: user` params. */
  readonly userProvenance: Readonly<Record<string, string>>;
  /** Argument name → where its value (or each element or field) was found. */
  readonly matches: Readonly<Record<string, ValueMatch[]>>;
}

/** Learnt by the write gate. */
export interface Admission {
  /** True when the call passed the gate on an approval (an approved write). */
  readonly approved: boolean;
}

/** Learnt by the fingerprint step. */
export interface Counting {
  /** True when the call was counted (approved writes and verify calls of a pending write are not). */
  readonly counted: boolean;
}

/** A call once the catalog resolved its tool. */
export type ResolvedCall = CallInput & ResolvedTool;
/** A call with valid arguments. */
export type ParsedCall = ResolvedCall & CallArgs;
/** A call whose parameters passed their contracts. */
export type SourcedCall = ParsedCall & Provenance;
/** A call the write gate let through. */
export type AdmittedCall = SourcedCall & Admission;
/** A call every check let through: what the invoke step gets. */
export type ReadyCall = AdmittedCall & Counting;

/** What a call that reached the invoke step came to. */
export interface CallOutcome {
  readonly observation: Observation;
  /** True once the call was sent (or an attempt was made) to a real tool. */
  readonly executed: boolean;
  /** Set by builtins that end the node or suspend the run. */
  readonly effect?: ControlEffect;
  /** Set when the invoke step looked back an interrupted write. */
  readonly lookBack?: LookBackResult;
}

/** A check's decision to end the call before it is sent. `learnt`: what the check knew by then. */
export interface Stop<Learnt = object> {
  readonly stop: Observation;
  readonly learnt?: Learnt;
  /** True when the write gate answered from an earlier evidence. */
  readonly reused?: boolean;
}
