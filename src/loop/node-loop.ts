import { Observation } from '../domain/observation.js';
import { hint } from '../domain/hints.js';
import type { ModelToolCall } from '../model/model.js';
import type { CallResult } from '../tools/call.js';
import { tracesResult } from '../trace/result.js';
import { renderObservation, renderSkipped } from './render.js';
import type { LoopHost, NodeExit } from './loop-host.js';
export type { LoopConversation, LoopHost, LoopRecorder, NodeExit } from './loop-host.js';

/**
 * The ReAct loop of one node (docs/design.md). It counts by outcome only and never looks at error codes:
 * stalls skip the rest of the wave and count one, DEFERRED skips without counting, SUCCESS resets.
 * Resumes mid-wave from `host.loop.wave` after a restart.
 */
export async function runNode(host: LoopHost): Promise<NodeExit> {
  for (;;) {
    if (host.signal.aborted && !recoveryDue(host)) return { kind: 'stopped' };
    // A node resumed after its last stall was persisted but before it failed (a crash in between).
    if (host.node.stalls >= host.limits.maxStalls && !host.loop.resolved && !host.loop.wave)
      return noProgress(host);
    if (host.loop.resolved) {
      const exit = await countResolved(host);
      if (exit) return exit;
      continue;
    }
    if (!host.loop.wave) {
      const started = await startRound(host);
      if (started) return started;
      continue;
    }
    const exit = await handleWave(host);
    if (exit) return exit;
  }
}

/**
 * Counts the suspending call a person has responded to: its tool message and `tool.invoked` now,
 * then the usual counting by outcome (docs/design.md); the loop goes on with the next round.
 */
async function countResolved(host: LoopHost): Promise<NodeExit | null> {
  const resolved = host.loop.resolved;
  if (!resolved) return null;
  host.record.change({ kind: 'resolvedCounted' });
  const { call } = resolved;
  const observation = Observation.fromJSON(resolved.observation);
  if (call.runtimeQuestion) {
    // The answer to the runtime's own question reaches the model as a user message (docs/durability.md).
    const answer = (observation.data as { answer?: unknown } | undefined)?.answer;
    host.record.addMessage({
      role: 'user',
      content: typeof answer === 'string' ? answer : observation.reason,
    });
    await host.record.checkpoint();
    return null;
  }
  const toolCall = { callId: call.callId, tool: call.tool, rawArgs: JSON.stringify(call.args) };
  traceCall(host, toolCall, call.round, {
    observation,
    args: call.args,
    executed: false,
    ...(call.counted ? { counted: call.counted } : {}),
  });
  if (observation.outcome.stalls()) {
    host.record.change({ kind: 'stall' });
    return stallAndSkip(host, call.round);
  }
  if (observation.outcome.advances()) host.record.change({ kind: 'progress' });
  await host.record.checkpoint();
  return null;
}

/** Calls the model once; returns an exit when the node ends, else leaves a wave (or a counted empty round). */
async function startRound(host: LoopHost): Promise<NodeExit | null> {
  const { node, limits } = host;
  if (node.rounds >= limits.maxRounds) {
    return {
      kind: 'failed',
      reason: 'ROUND_LIMIT',
      message: hint(host.locale, 'ROUND_LIMIT_REACHED', { maxRounds: limits.maxRounds }),
    };
  }
  const overBudget = await host.budget?.();
  if (overBudget) return overBudget;
  host.record.change({ kind: 'round' });
  const round = node.rounds;
  host.record.emit({ type: 'react.round', nodeId: host.nodeId, round });
  await host.steer?.(round);
  const phase = host.conversation.phaseHint();
  if (phase) host.record.emit({ type: 'phase.hint', nodeId: host.nodeId, round, text: phase });
  const result = await host.model.call(
    {
      system: host.conversation.system(),
      messages: host.conversation.messages(phase),
      tools: host.runner.tools(),
      signal: host.signal,
    },
    host.conversation.callContext(round),
  );
  if (!result.ok) {
    if (host.signal.aborted) return { kind: 'stopped' }; // abandoned, not failed: the round is asked again later
    await host.record.checkpoint();
    return { kind: 'failed', reason: 'MODEL_FAILED', message: result.message };
  }
  host.record.recordModelCall(result.usage);
  host.record.addMessage({ role: 'assistant', text: result.text, toolCalls: result.toolCalls });
  host.record.emit({
    type: 'model.response',
    nodeId: host.nodeId,
    round,
    toolCalls: result.toolCalls.map((c) => ({ callId: c.callId, tool: c.tool })),
    text: result.text,
    usage: result.usage,
  });
  if (result.toolCalls.length === 0 && result.text.trim() !== '' && host.textAnswer?.() === true) {
    // The node answered in text (`answer: text`): committed by the graph with the node's end.
    const refusal = await host.runner.checkReply(result.text.trim());
    if (!refusal) return { kind: 'completed', reply: result.text.trim() };
    // Refused like a finish call would be: the model reads why and rewrites; counted as a stall.
    host.record.addMessage({
      role: 'user',
      content: renderObservation(refusal, host.locale, host.observations),
    });
    host.record.change({ kind: 'stall' });
    return stallAndSkip(host, round);
  }
  if (result.toolCalls.length === 0) {
    host.record.log('info', `REACT no_tool_calls node=${host.nodeId} round=${round}`);
    // A fact, not advice; it also keeps the conversation from ending on an assistant turn, which
    // some providers would take as a prefill to continue.
    host.record.addMessage({ role: 'user', content: hint(host.locale, 'NO_TOOL_CALL') });
    host.record.change({ kind: 'stall' });
    host.record.emit({ type: 'react.no_tool_calls', nodeId: host.nodeId, round, stalls: node.stalls });
    return stallAndSkip(host, round);
  }
  // Not checkpointed here: the turn is committed with its first call's result, one commit per step
  // (docs/durability.md). Whatever has an effect outside the run commits it first: a write is marked in flight
  // and checkpointed before it is sent, a delegate checkpoints before it starts a child run, and a
  // slow read has it committed while it runs (guards/invoke.ts). A crash before that commit loses
  // only quick reads and builtins without outside effects, and the round is asked again.
  host.record.change({ kind: 'wave', wave: { round, calls: result.toolCalls, next: 0 } });
  return null;
}

/** Handles the calls of the current wave from `wave.next` on. */
async function handleWave(host: LoopHost): Promise<NodeExit | null> {
  const wave = host.loop.wave;
  if (!wave) return null;
  const { round, calls } = wave;
  for (let next = wave.next; next < calls.length;) {
    const call = calls[next] as ModelToolCall;
    // Told to stop (cancel, shutdown): no call starts after that, not even a read; only a write left
    // in flight by a dead driver is settled (its look-back), so that its record is complete.
    if (host.signal.aborted && !host.interrupted?.(call)) return { kind: 'stopped' };
    const result = await host.runner.call(call, round);
    // Stopped meanwhile: a read's result is dropped (it runs again when the run goes on); a write that
    // was sent is recorded as usual before the driver stops.
    if (host.signal.aborted && result.sent !== true) return { kind: 'stopped' };
    next += 1;
    host.record.change({ kind: 'waveNext', next });
    const effect = result.effect;
    if (effect?.kind === 'suspend') {
      skipRest(host, next);
      endWave(host);
      host.record.suspend(call, round, effect, result.counted ? { counted: result.counted } : {});
      await host.record.checkpoint();
      return { kind: 'suspended' };
    }
    traceCall(host, call, round, result);
    if (result.runtimeQuestion) return askAfterRecovery(host, call, round, result.runtimeQuestion);
    // Not checkpointed here: the graph commits the node's end together with this call (docs/durability.md). A
    // crash in between re-runs the builtin if an earlier call of the wave committed its turn, else the
    // round is asked again.
    if (effect?.kind === 'finish' && result.observation.ok) {
      endWave(host);
      return effect.summary.trim() === ''
        ? { kind: 'completed' }
        : { kind: 'completed', reply: effect.summary.trim() };
    }
    if (effect?.kind === 'fail') {
      endWave(host);
      return { kind: 'failed', reason: effect.failure ?? 'FAILED_BY_MODEL', message: effect.reason };
    }
    const outcome = result.observation.outcome;
    if (outcome.stalls()) {
      host.record.change({ kind: 'stall' });
      return stallAndSkip(host, round);
    }
    if (!outcome.advances()) {
      skipRest(host, next);
      endWave(host);
      await host.record.checkpoint();
      return null;
    }
    host.record.change({ kind: 'progress' });
    if (next >= calls.length) endWave(host);
    await host.record.checkpoint();
  }
  if (host.loop.wave) {
    endWave(host);
    await host.record.checkpoint();
  }
  return null;
}

/** Emits the stall event, skips what is left of the wave (if any), persists and checks the limit. */
async function stallAndSkip(host: LoopHost, round: number): Promise<NodeExit | null> {
  const wave = host.loop.wave;
  host.record.emit({
    type: 'react.stall',
    nodeId: host.nodeId,
    round,
    stalls: host.node.stalls,
    maxStalls: host.limits.maxStalls,
  });
  if (wave) skipRest(host, wave.next);
  endWave(host);
  await host.record.checkpoint();
  // Told to stop: the node's end is left to whoever goes on (runNode's first check), nothing new starts.
  if (host.node.stalls >= host.limits.maxStalls && !host.signal.aborted) {
    return noProgress(host);
  }
  return null;
}

/**
 * An interrupted write whose result is unknown (docs/durability.md): its FAILED observation counts like any
 * other, the rest of the wave is skipped, and the run asks the person how to go on.
 */
async function askAfterRecovery(
  host: LoopHost,
  call: ModelToolCall,
  round: number,
  question: string,
): Promise<NodeExit> {
  host.record.change({ kind: 'stall' });
  host.record.emit({
    type: 'react.stall',
    nodeId: host.nodeId,
    round,
    stalls: host.node.stalls,
    maxStalls: host.limits.maxStalls,
  });
  skipRest(host, host.loop.wave?.next ?? 0);
  endWave(host);
  host.record.suspend(
    call,
    round,
    { kind: 'suspend', suspension: { kind: 'FOLLOW_UP', pending: { question, options: null } } },
    { runtimeQuestion: true },
  );
  await host.record.checkpoint();
  return { kind: 'suspended' };
}

/** Whether the wave's next call is a write a dead driver left in flight (settled even after a stop). */
function recoveryDue(host: LoopHost): boolean {
  const wave = host.loop.wave;
  const call = wave ? wave.calls[wave.next] : undefined;
  return call !== undefined && host.interrupted?.(call) === true;
}

function noProgress(host: LoopHost): NodeExit {
  return {
    kind: 'failed',
    reason: 'NO_PROGRESS',
    message: hint(host.locale, 'NO_PROGRESS_REACHED', { stalls: host.node.stalls }),
  };
}

/** Appends the call's tool message and its `tool.invoked` event. */
export function traceCall(host: LoopHost, call: ModelToolCall, round: number, result: CallResult): void {
  const obs = result.observation;
  host.record.addMessage({
    role: 'tool',
    callId: call.callId,
    tool: call.tool,
    content: renderObservation(obs, host.locale, host.observations ?? 'typed', call.tool),
    ...(obs.images.length > 0 ? { images: obs.images } : {}),
    ...(result.counted ? { counted: result.counted } : {}),
  });
  host.record.emit({
    type: 'tool.invoked',
    nodeId: host.nodeId,
    round,
    callId: call.callId,
    tool: call.tool,
    args: result.args,
    outcome: obs.outcome.name,
    errorCode: obs.errorCode,
    message: obs.message(host.locale),
    evidenceId: obs.evidenceId,
    executed: result.executed,
    level: obs.outcome.name === 'FAILED' ? 'warn' : 'info',
    lookBack: false,
    ...(tracesResult(obs.outcome.name, result.executed) ? { result: obs.data } : {}),
    ...host.runner.iconOf?.(call.tool),
  });
}

/** Skips the wave's calls from index `from` on: a tool message each (providers need one per call id). */
function skipRest(host: LoopHost, from: number): void {
  const wave = host.loop.wave;
  if (!wave) return;
  for (const call of wave.calls.slice(from)) {
    host.record.addMessage({
      role: 'tool',
      callId: call.callId,
      tool: call.tool,
      content: renderSkipped(host.locale),
    });
    host.record.emit({
      type: 'tool.skipped',
      nodeId: host.nodeId,
      round: wave.round,
      callId: call.callId,
      tool: call.tool,
    });
  }
  host.record.change({ kind: 'waveNext', next: wave.calls.length });
}

/** The wave is done with (handled, skipped or left for a person). */
function endWave(host: LoopHost): void {
  host.record.change({ kind: 'wave', wave: null });
}
