import type { Limits } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { LoopChange } from '../records/changes.js';
import type { NodeState } from '../records/run-state.js';
import type {
  ConversationMessage,
  ModelCallContext,
  ModelClient,
  ModelToolCall,
  TokenUsage,
} from '../model/model.js';
import type { ControlEffect } from '../tools/call.js';
import type { CallRunner } from '../tools/runner.js';
import type { EventPayload } from '../trace/events.js';
import type { LoopState } from '../records/loop-state.js';
import type { ObservationStyle } from './render.js';

// What the node loop (node-loop.ts) needs from the runtime, and how a node run ends.

/** How a node run ended, or that it waits for a person. */
export type NodeExit =
  /** `reply`: the node's answer to the person (its finish summary or its text answer), when it gave one. */
  | { kind: 'completed'; reply?: string }
  | { kind: 'failed'; reason: string; message: string }
  | { kind: 'suspended' }
  /** The driver was told to stop (cancel or shutdown): nothing more is recorded; the run stays as persisted. */
  | { kind: 'stopped' };

/**
 * What the loop needs from the runtime; persistence and the pipeline stay behind it. Grouped by what
 * the loop does with it: the node run's place and state, the model and its conversation, the call
 * port, the recorder, and the checks between rounds.
 */
export interface LoopHost {
  readonly nodeId: string;
  readonly locale: Locale;
  /** How non-success observations read to the model (default `typed`; `plain` is an eval ablation). */
  readonly observations?: ObservationStyle;
  readonly limits: Limits;
  /** The node run and the loop's position, as they stand: read here, changed through `record.change`. */
  readonly node: Readonly<NodeState>;
  readonly loop: Readonly<LoopState>;
  readonly model: ModelClient;
  /** What each model call sends besides the tools, and where it stands in the run. */
  readonly conversation: LoopConversation;
  /** The node run's call port: the tools a model call offers, and each call through the guard pipeline. */
  readonly runner: CallRunner;
  /** Where the loop's events, messages, usage and suspensions go, and its commits. */
  readonly record: LoopRecorder;
  /** Aborted when the driver is told to stop (cancel, shutdown): nothing new starts after that. */
  readonly signal: AbortSignal;
  /** Whether this call is a write left in flight by a driver that died (settled even after a stop). */
  interrupted?(call: ModelToolCall): boolean;
  /** Before each model call: the node's exit when the run has reached its token or cost budget (issue 20). */
  budget?(): Promise<NodeExit | null>;
  /**
   * Whether a model turn with text and no tool call ends the node now: the node declares `answer: text`
   * and its required outputs are written (docs/flows.md). Absent: never (such a round is a stall).
   */
  textAnswer?(): boolean;
  /**
   * At the start of a round, before the model call: adds the person's unread steering messages as user
   * messages (and their events), buffered for the round's commit (docs/approvals.md, "Steering").
   */
  steer?(round: number): Promise<void>;
}

/** The conversation a node run's model calls send. */
export interface LoopConversation {
  /** The node run's system prompt: the same on every round. */
  system(): string;
  /** The conversation a model call sends: the stored one made valid for providers, `newest` last (src/loop/conversation.ts). */
  messages(newest: string | null): ConversationMessage[];
  /** The phase hint of this round, or null. */
  phaseHint(): string | null;
  /**
   * Where the round's model call stands: the run's model calls so far (the scripted model's turn index)
   * and, in a branch of a parallel flow, the next call index of this node id (taken) and the map item.
   */
  callContext(round: number): ModelCallContext;
}

/** What the loop hands over to be recorded and committed. */
export interface LoopRecorder {
  /** Applies one of the loop's changes (its round, stalls, wave) to the node run and its position. */
  change(change: LoopChange): void;
  emit(event: EventPayload): void;
  addMessage(message: ConversationMessage): void;
  recordModelCall(usage: TokenUsage): void;
  log(level: 'info' | 'warn', message: string): void;
  /** Records the suspension a builtin (or crash recovery, `runtimeQuestion`) asked for: pending item, events, status. */
  suspend(
    call: ModelToolCall,
    round: number,
    effect: Extract<ControlEffect, { kind: 'suspend' }>,
    extra?: { runtimeQuestion?: boolean; counted?: string },
  ): void;
  /** Persists everything buffered since the last checkpoint. */
  checkpoint(): Promise<void>;
}
