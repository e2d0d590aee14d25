import type { McpElicitation } from '../../mcp/elicitation.js';
import type { ControlEffect, ElicitBridge } from '../call.js';
import type { ReadyCall } from '../stages.js';

/** The bridge of one MCP call to its run's answers, and the question it was cancelled for, if any. */
export interface CallQuestions {
  readonly bridge: ElicitBridge;
  /** The suspension the call asks for once it returned: the person has to answer the server. */
  effect(): Extract<ControlEffect, { kind: 'suspend' }> | null;
}

/**
 * A server's questions during this call (docs/mcp.md, "Elicitation"): one the person answered earlier
 * for this very call (same fingerprint, same message) is answered from the run's follow-ups, once;
 * any other suspends the run with the question.
 */
export function callQuestions(ctx: ReadyCall): CallQuestions {
  let asked: McpElicitation | null = null;
  const server = ctx.descriptor.server ?? '';
  const hold = ctx.services.holdQuestion;
  const answers = () =>
    ctx.run.followUps.flatMap((f, index) =>
      f.elicitation?.fingerprint === ctx.fingerprint
        ? [{ question: f.question, answer: f.elicitation, index }]
        : [],
    );
  const bridge: ElicitBridge = {
    answer: (request, options) => {
      const matching = answers().filter((a) => a.question === request.message);
      const given =
        matching.findLast((a) => a.answer.used !== true) ?? (options?.reuse ? matching.at(-1) : undefined);
      if (!given) return null;
      const found = given.answer;
      ctx.changes.record({ kind: 'answerUsed', index: given.index });
      return { action: found.action, ...(found.content ? { content: found.content } : {}) };
    },
    asked: (request) => (asked = request),
    // The newest answer not given yet that came in an `input_required` round: the call retries that round.
    resume: () => answers().findLast((a) => a.answer.used !== true && a.answer.round)?.answer.round,
    ...(hold
      ? {
          hold: (request, holdMs) =>
            hold({ ...request, server, tool: ctx.call.tool, fingerprint: ctx.fingerprint }, holdMs),
        }
      : {}),
  };
  return {
    bridge,
    effect: () =>
      asked === null
        ? null
        : {
            kind: 'suspend',
            suspension: {
              kind: 'FOLLOW_UP',
              pending: {
                question: asked.message,
                options: null,
                elicitation: { ...asked, server, tool: ctx.call.tool, fingerprint: ctx.fingerprint },
              },
            },
          },
  };
}
