import { LimitsSchema, type Limits } from '../../src/domain/flow.js';
import { RuntimeErrorCode } from '../../src/domain/error-codes.js';
import type { Locale } from '../../src/domain/locale.js';
import { Observation } from '../../src/domain/observation.js';
import type { LoopConversation, LoopHost, LoopRecorder, NodeExit } from '../../src/loop/node-loop.js';
import type {
  ConversationMessage,
  ModelRequest,
  ModelResult,
  ModelToolCall,
  TokenUsage,
} from '../../src/model/model.js';
import { newLoopState } from '../../src/records/loop-state.js';
import { applyChange } from '../../src/records/changes.js';
import { newNodeState, newRunState } from '../../src/records/run-state.js';
import type { CallResult, ControlEffect, ToolCall } from '../../src/tools/call.js';
import type { CallRunner } from '../../src/tools/runner.js';
import type { EventPayload } from '../../src/trace/events.js';

/**
 * A strict stand-in for the runtime behind the ReAct loop's port (`LoopHost`, src/loop/node-loop.ts):
 * no store, no pipeline, no MCP. The model answers from a script, each tool from a function of the
 * fake; everything the loop hands over (events, messages, checkpoints, suspensions, usage) is recorded.
 * It throws on what the real host never accepts: a model call past the script, a tool call that is not
 * the wave's next call, a tool message for no open call id (or twice for one), a suspension while a wave
 * is still open, anything but a checkpoint after a suspension, a call started after the stop signal.
 */

type Tool = (call: ModelToolCall, round: number, args: unknown) => CallResult | Promise<CallResult>;
/** A tool behaviour of `tool` below: answers at once. */
export type SyncTool = (call: ModelToolCall, round: number, args: unknown) => CallResult;
type Suspend = Extract<ControlEffect, { kind: 'suspend' }>;

export interface LoopHostFakeOptions {
  /** The model's answers, one per call; a call past the end throws. */
  model: readonly ModelResult[];
  /** The tools the loop may call, by name; another name throws. */
  tools?: Record<string, Tool>;
  limits?: Partial<Limits>;
  locale?: Locale;
  textAnswer?: () => boolean;
  budget?: () => NodeExit | null;
  phaseHint?: (round: number) => string | null;
  interrupted?: (call: ModelToolCall) => boolean;
}

export interface RecordedSuspension {
  call: ModelToolCall;
  round: number;
  effect: Suspend;
  extra: { runtimeQuestion?: boolean; counted?: string } | undefined;
}

const USAGE: TokenUsage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

export class LoopHostFake implements LoopHost {
  readonly runId = 'run_fake';
  readonly nodeId = 'work';
  readonly locale: Locale;
  readonly limits: Limits;
  readonly node = newNodeState('work');
  readonly loop = newLoopState();
  readonly controller = new AbortController();
  readonly signal: AbortSignal = this.controller.signal;
  readonly events: EventPayload[] = [];
  readonly messages: ConversationMessage[] = [];
  readonly requests: ModelRequest[] = [];
  readonly toolCalls: { tool: string; round: number }[] = [];
  readonly suspensions: RecordedSuspension[] = [];
  readonly usage: TokenUsage[] = [];
  readonly logs: string[] = [];
  /** The node state's `stalls` and `rounds` at each checkpoint. */
  readonly checkpoints: { rounds: number; stalls: number; wave: boolean }[] = [];
  readonly model;
  readonly budget?: () => Promise<NodeExit | null>;
  readonly textAnswer?: () => boolean;
  readonly interrupted?: (call: ModelToolCall) => boolean;
  private readonly options: LoopHostFakeOptions;
  private turns = 0;

  constructor(options: LoopHostFakeOptions) {
    this.options = options;
    this.locale = options.locale ?? 'en';
    this.limits = LimitsSchema.parse(options.limits ?? {});
    const budget = options.budget;
    if (budget) this.budget = () => Promise.resolve(budget());
    if (options.textAnswer) this.textAnswer = options.textAnswer;
    if (options.interrupted) this.interrupted = options.interrupted;
    this.model = {
      id: 'fake',
      call: (request: ModelRequest): Promise<ModelResult> => {
        this.open('call the model');
        const answer = this.options.model[this.turns];
        if (!answer)
          throw new Error(`the model was called ${this.turns + 1} times; the script has ${this.turns}`);
        this.turns += 1;
        this.requests.push(request);
        return Promise.resolve(answer);
      },
    };
  }

  /** The conversation: the recorded messages, a fixed system prompt, the scripted phase hints. */
  readonly conversation: LoopConversation = {
    system: () => 'system: do the work',
    messages: (newest) =>
      newest === null ? [...this.messages] : [...this.messages, { role: 'user', content: newest }],
    phaseHint: () => this.options.phaseHint?.(this.node.rounds) ?? null,
    callContext: (round) => ({ runId: this.runId, nodeId: this.nodeId, callIndex: this.turns, round }),
  };
  /** The call port: the fake's tools, and each call checked against the open wave. */
  readonly runner: CallRunner = {
    tools: () =>
      Object.keys(this.options.tools ?? {}).map((name) => ({
        name,
        description: name,
        inputSchema: { type: 'object' },
      })),
    call: (call, round) => this.callTool(call, round),
    checkReply: () => Promise.resolve(null),
  };
  /** The recorder: each hand-over checked and recorded. */
  readonly record: LoopRecorder = {
    change: (change) =>
      applyChange({ run: newRunState(this.runId, null), node: this.node, loop: this.loop }, change),
    emit: (event) => this.emit(event),
    addMessage: (message) => this.addMessage(message),
    recordModelCall: (usage) => this.usage.push(usage),
    log: (level, message) => this.logs.push(`${level} ${message}`),
    suspend: (call, round, effect, extra) => this.suspend(call, round, effect, extra),
    checkpoint: () => this.checkpoint(),
  };

  private async callTool(call: ToolCall, round: number): Promise<CallResult> {
    this.open('call a tool');
    const wave = this.loop.wave;
    const expected = wave?.calls[wave.next];
    if (!wave || wave.round !== round || expected?.callId !== call.callId)
      throw new Error(
        `callTool(${call.callId}) is not the open wave's next call (${expected?.callId ?? 'none'})`,
      );
    if (this.signal.aborted && this.interrupted?.(call) !== true)
      throw new Error(`callTool(${call.callId}) after the stop signal`);
    const tool = this.options.tools?.[call.tool];
    if (!tool) throw new Error(`the loop called ${call.tool}, which the fake does not offer`);
    this.toolCalls.push({ tool: call.tool, round });
    return tool(call, round, JSON.parse(call.rawArgs) as unknown);
  }

  private suspend(
    call: ModelToolCall,
    round: number,
    effect: Suspend,
    extra?: RecordedSuspension['extra'],
  ): void {
    this.open('suspend');
    if (this.loop.wave) throw new Error('suspend() while a wave is still open');
    this.suspensions.push({ call, round, effect, extra });
    this.loop.suspended = {
      round,
      callId: call.callId,
      tool: call.tool,
      args: {},
      kind: effect.suspension.kind,
      ...(extra?.runtimeQuestion ? { runtimeQuestion: true } : {}),
    };
  }

  private emit(event: EventPayload): void {
    this.open(`emit ${event.type}`);
    this.events.push(event);
  }

  private addMessage(message: ConversationMessage): void {
    this.open('add a message');
    if (message.role === 'tool') {
      const open = this.openCallIds();
      if (!open.has(message.callId))
        throw new Error(`a tool message for ${message.callId}, which no open assistant turn asked for`);
    }
    this.messages.push(message);
  }

  private checkpoint(): Promise<void> {
    this.checkpoints.push({
      rounds: this.node.rounds,
      stalls: this.node.stalls,
      wave: this.loop.wave !== null,
    });
    return Promise.resolve();
  }

  /** The recorded events of one type. */
  ofType<T extends EventPayload['type']>(type: T): Extract<EventPayload, { type: T }>[] {
    return this.events.filter((e): e is Extract<EventPayload, { type: T }> => e.type === type);
  }

  /** The events as short lines (`round 1`, `invoked lookup SUCCESS`, `stall 1/5`, `skipped noop`, …). */
  story(): string[] {
    return this.events.map((e) => {
      if (e.type === 'react.round') return `round ${e.round}`;
      if (e.type === 'tool.invoked') return `invoked ${e.tool} ${e.outcome}`;
      if (e.type === 'tool.skipped') return `skipped ${e.tool}`;
      if (e.type === 'react.stall') return `stall ${e.stalls}/${e.maxStalls}`;
      if (e.type === 'react.no_tool_calls') return `no_tool_calls ${e.stalls}`;
      return e.type;
    });
  }

  /** The call ids of the newest assistant turn that have no tool message yet. */
  private openCallIds(): Set<string> {
    const index = this.messages.findLastIndex((m) => m.role === 'assistant');
    const turn = this.messages[index];
    if (!turn || turn.role !== 'assistant') return new Set();
    const open = new Set(turn.toolCalls.map((c) => c.callId));
    for (const m of this.messages.slice(index + 1)) if (m.role === 'tool') open.delete(m.callId);
    return open;
  }

  private open(what: string): void {
    if (this.suspensions.length > 0) throw new Error(`the loop tried to ${what} after it suspended`);
  }
}

/** A model turn calling `[tool, args]` pairs, with ids `c<turn>_<k>` (`turn` counts from 1). */
export function modelTurn(turn: number, ...calls: [string, unknown?][]): ModelResult {
  return {
    ok: true,
    text: '',
    toolCalls: calls.map(([tool, args], k) => ({
      callId: `c${turn}_${k + 1}`,
      tool,
      rawArgs: JSON.stringify(args ?? {}),
    })),
    usage: USAGE,
  };
}

/** A model turn with text and no tool call. */
export const textTurn = (text: string): ModelResult => ({ ok: true, text, toolCalls: [], usage: USAGE });

/** A model call that failed (the provider's error). */
export const modelError = (message: string): ModelResult => ({ ok: false, message });

const result = (observation: Observation, args: unknown, effect?: ControlEffect): CallResult => ({
  observation,
  args,
  executed: observation.outcome.name === 'SUCCESS' || observation.outcome.name === 'FAILED',
  ...(effect ? { effect } : {}),
});

/** Tool behaviours for the fake: what one call through the pipeline returns. */
export const tool = {
  ok:
    (data: unknown = { ok: true }): SyncTool =>
    (_c, _r, args) =>
      result(Observation.success('done', data), args),
  failed:
    (code = 'TOOL_ERROR'): SyncTool =>
    (_c, _r, args) =>
      result(Observation.failed(RuntimeErrorCode.of(code), 'it broke', 'try another way'), args),
  rejected:
    (code = 'ARG_REJECTED'): SyncTool =>
    (_c, _r, args) =>
      result(Observation.rejected(RuntimeErrorCode.of(code), 'not allowed', 'change the call'), args),
  deferred:
    (code = 'APPROVAL_REQUIRED'): SyncTool =>
    (_c, _r, args) =>
      result(Observation.deferred(RuntimeErrorCode.of(code), 'not yet', 'ask first'), args),
  finish: (): SyncTool => (_c, _r, args) => {
    const summary = (args as { summary?: string }).summary ?? '';
    return result(Observation.success('finished'), args, { kind: 'finish', summary });
  },
  fail: (): SyncTool => (_c, _r, args) =>
    result(Observation.success('failing'), args, {
      kind: 'fail',
      reason: (args as { reason: string }).reason,
    }),
  ask: (): SyncTool => (_c, _r, args) =>
    result(Observation.success('asked'), args, {
      kind: 'suspend',
      suspension: {
        kind: 'FOLLOW_UP',
        pending: { id: 'pnd_1', question: (args as { question: string }).question, options: null },
      },
    }),
};
