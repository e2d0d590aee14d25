import type { Flow, ToolPolicy } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { Observation } from '../domain/observation.js';
import type { NodeState, RunState } from '../domain/run-state.js';
import type { ToolDescriptor } from './tool.js';

/** One tool call as the model made it. */
export interface ToolCall {
  readonly callId: string;
  readonly tool: string;
  /** The model's raw argument string, untouched (ARG_JSON_INVALID is ours to decide). */
  readonly rawArgs: string;
}

/** What a control builtin asks the loop to do after its call. */
export type ControlEffect =
  | { kind: 'finish'; summary: string }
  | { kind: 'fail'; reason: string }
  | { kind: 'suspend'; suspension: SuspensionRequest };

/** A request to wait for a person (SPEC §5). */
export type SuspensionRequest =
  | {
      kind: 'APPROVAL';
      pending: { tool: string; args: Record<string, unknown>; summary: string; provenance: Record<string, string> };
      fingerprint: string;
    }
  | { kind: 'FOLLOW_UP'; pending: { question: string; options: string[] | null } };

/**
 * Everything one call carries through the guard chain. Guards fill the optional fields as they
 * learn them (descriptor, args, fingerprint) and read/change the run and node state.
 */
export interface CallContext {
  readonly call: ToolCall;
  readonly flow: Flow;
  readonly nodeId: string;
  readonly locale: Locale;
  readonly run: RunState;
  readonly node: NodeState;
  /** Tools visible in this node (after catalog resolution), by model-facing name. */
  readonly visible: ReadonlyMap<string, ToolDescriptor>;
  /** The runtime's services for this call. */
  readonly services: CallServices;
  descriptor?: ToolDescriptor;
  policy?: ToolPolicy;
  args?: Record<string, unknown>;
  fingerprint?: string;
  /** True for a write tool (flow policy, else MCP annotations). Set by the write gate. */
  isWrite?: boolean;
  /** True once the call was sent (or an attempt was made) to a real tool. */
  executed: boolean;
  /** True when the write gate answered from an earlier evidence. */
  reused: boolean;
  /** True when this call consumed an approval (an approved write). */
  approved: boolean;
  /** Set by builtins that end the node or suspend the run. */
  effect?: ControlEffect;
  /** Argument name → evidence id, filled by the param contract for `source: evidence` params. */
  provenance: Record<string, string>;
}

/** Side effects a call may need, injected so tests stay deterministic (STYLE.md habit 4). */
export interface CallServices {
  /** Calls a real tool (MCP or local) or a builtin; never throws for a tool's failure. */
  invoke(ctx: CallContext, args: Record<string, unknown>, options: InvokeOptions): Promise<Observation>;
  /** Persists the run state now (write-ahead for in-flight writes, SPEC §9). */
  checkpoint(): Promise<void>;
  /** The current time. */
  now(): Date;
}

/** Per-call invocation options. */
export interface InvokeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Sent to MCP servers in the request's `_meta` (e.g. `{ idempotencyKey }`). */
  meta?: Record<string, unknown>;
}

/** A guard: returns an observation to end the chain, or calls `next()` and may rewrite its result. */
export type Guard = (ctx: CallContext, next: () => Promise<Observation>) => Promise<Observation>;

/**
 * Composes guards into one function, outermost first (Hono's compose, STYLE.md habit 3).
 * `terminal` runs when every guard called `next()`.
 */
export function compose(guards: readonly Guard[], terminal: (ctx: CallContext) => Promise<Observation>) {
  return (ctx: CallContext): Promise<Observation> => {
    let index = -1;
    const dispatch = (i: number): Promise<Observation> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once in a guard'));
      index = i;
      const guard = guards[i];
      if (!guard) return terminal(ctx);
      return guard(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}
