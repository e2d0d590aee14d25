import { hint } from '../../domain/hints.js';
import type { Locale } from '../../domain/locale.js';
import { Observation } from '../../domain/observation.js';
import type { CallChange } from '../../records/changes.js';
import type { NodeState, RunState } from '../../records/run-state.js';
import { logToolCall } from '../guards/log.js';
import type { FollowUpPending, PipelineLogger } from '../call.js';

/**
 * What the runtime applies when a person responds to a suspension (docs/observations.md; docs/design.md):
 * `answer` here, `approve`/`reject` in src/tools/approval/. Each is `(state, response) → changes`: it
 * returns what changes of the run (the caller applies it, src/records/changes.ts) with the final
 * observation of the suspending call (its tool message), and logs its `TOOL invoked` line when a
 * logger is given.
 */
export interface ResolutionState {
  readonly run: Readonly<RunState>;
  readonly node: Readonly<NodeState>;
  nodeId: string;
  locale: Locale;
  now: Date;
  logger?: PipelineLogger;
}

/**
 * The person answered a follow-up: the answer is recorded (it becomes user text for `source: user`
 * and a FOLLOW_UP_ANSWERED reference), the approved-write-failed exemption ends, and the follow-up
 * call's observation is SUCCESS "用户回答：<answer>".
 */
export function answer(state: ResolutionState, pending: FollowUpPending, text: string): Resolution {
  const record = { question: pending.question, options: pending.options, answer: text, nodeId: state.nodeId };
  const obs = Observation.success(hint(state.locale, 'FOLLOW_UP_ANSWER', { answer: text }), { answer: text });
  if (state.logger) logToolCall(state.logger, 'builtin_node_follow_up', obs);
  return {
    observation: obs,
    changes: [
      { kind: 'followUp', record },
      { kind: 'approvedWriteFailed', value: false },
    ],
  };
}

/** What a person's response comes to: the suspending call's observation and what changes of the run. */
export interface Resolution {
  readonly observation: Observation;
  readonly changes: readonly CallChange[];
}
