import { RunError } from '../domain/run-error.js';
import type { ElicitationAnswer } from '../records/run-state.js';
import { compileSchema } from '../domain/schema-engine.js';
import { withSchemaDefaults } from '../mcp/elicitation.js';
import type { ElicitationPending, FollowUpPending } from '../tools/call.js';
import { hint } from '../domain/hints.js';
import { Observation } from '../domain/observation.js';
import type { Resolution, ResolutionState } from '../tools/builtin/resolution.js';
import type { RunSession } from './session.js';

/** How a person answers an MCP server's question: accept (with the answer text), decline or cancel. */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/**
 * The person's answer to a server's question as the server gets it (docs/mcp.md, "Elicitation"). A form
 * accepted takes the answer text as a JSON object (empty text: `{}`), the requested schema's defaults
 * filled in, and checked against that schema; a URL question accepted means "done" (its text is not
 * sent). RunError REQUEST_INVALID, naming what is wrong, for an answer that does not fit.
 */
export function elicitationAnswer(
  runId: string,
  pending: ElicitationPending,
  action: ElicitationAction,
  text: string,
): ElicitationAnswer {
  const base = {
    server: pending.server,
    tool: pending.tool,
    fingerprint: pending.fingerprint,
    ...(pending.round ? { round: pending.round } : {}),
  };
  if (action !== 'accept' || pending.mode === 'url') return { ...base, action };
  const content = withSchemaDefaults(pending.requestedSchema, parseContent(runId, text));
  if (pending.requestedSchema) {
    let outcome;
    try {
      outcome = compileSchema(pending.requestedSchema, { profile: 'tool' }).check(content);
    } catch (error) {
      throw invalid(runId, `the server's requested schema cannot be used: ${String(error)}`);
    }
    if (!outcome.ok) {
      const problems = outcome.errors.map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
      throw invalid(runId, `the answer does not match the requested schema: ${problems.join('; ')}`);
    }
  }
  return { ...base, action, content };
}

function parseContent(runId: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(runId, 'the answer to a form must be a JSON object of its fields, e.g. {"name":"Ada"}');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(runId, 'the answer to a form must be a JSON object of its fields, e.g. {"name":"Ada"}');
  return value as Record<string, unknown>;
}

function invalid(runId: string, message: string): RunError {
  return new RunError('REQUEST_INVALID', `run ${runId}: ${message}`, { runId });
}

/** The text an answer is recorded (and traced) with: the action, and the accepted content as JSON. */
export function answerText(answer: ElicitationAnswer): string {
  if (answer.action !== 'accept') return answer.action;
  return answer.content ? JSON.stringify(answer.content) : 'accept';
}

/**
 * The person answered an MCP server's question: the answer is kept for the call it came up in (given
 * to the server when that call is sent again), and the call's observation says so.
 */
export function answerServer(
  state: ResolutionState,
  session: RunSession,
  elicited: ElicitationAnswer,
  who: string | null,
): Resolution {
  const pending = session.current.suspension?.pending as FollowUpPending | undefined;
  const text = answerText(elicited);
  const record = {
    question: pending?.question ?? '',
    options: null,
    answer: text,
    nodeId: state.nodeId,
    elicitation: elicited,
  };
  session.emit({
    type: 'run.resumed',
    nodeId: state.nodeId,
    kind: 'FOLLOW_UP',
    answer: text,
    who,
    action: elicited.action,
  });
  const params = { server: elicited.server, tool: elicited.tool, action: elicited.action };
  const observation = Observation.success(hint(state.locale, 'ELICITATION_ANSWERED', params), {
    action: elicited.action,
    ...(elicited.content ? { content: elicited.content } : {}),
  });
  return { observation, changes: [{ kind: 'followUp', record }] };
}
