import type { Flow, Limits } from '../domain/flow.js';
import {
  MAX_SAMPLING_REQUESTS,
  MAX_SAMPLING_TOKENS,
  type McpSamplingRequest,
  type McpSamplingResult,
} from '../mcp/sampling.js';
import type { ConversationMessage, ModelClient } from '../model/model.js';
import { budgetExit, recordCost } from './context-host.js';
import type { RunSession } from './session.js';

/** How much of each text a sampling trace event carries. */
const TRACE_TEXT_CHARS = 2_000;

/**
 * The answer to MCP servers' sampling requests during one tool call of a node (docs/mcp.md,
 * "Sampling"): the server's messages go to the node's model as they are, without tools, with the
 * server's system prompt and `maxTokens` (at most MAX_SAMPLING_TOKENS and the node's
 * `limits.maxOutputTokens`); the call counts as one of the run's model calls (usage, cost, a scripted
 * model's next turn). Request and result are traced (`sampling.requested`, `sampling.completed`).
 * A request past MAX_SAMPLING_REQUESTS of this call, or once the run's token or cost budget is
 * reached, is refused without calling the model. A refusal or a model failure is an error to the
 * server, never the run's failure.
 */
export function nodeSampler(
  session: RunSession,
  nodeId: string,
  deps: { readonly model: ModelClient; readonly flow: Flow; readonly signal?: AbortSignal },
  limits: Limits = deps.flow.limits,
): (
  request: McpSamplingRequest,
  call: { readonly server: string; readonly tool: string },
) => Promise<McpSamplingResult> {
  let requests = 0;
  return async (request, call) => {
    const where = { nodeId, server: call.server, tool: call.tool };
    const maxTokens = Math.max(
      1,
      Math.min(Math.trunc(request.maxTokens), MAX_SAMPLING_TOKENS, limits.maxOutputTokens ?? Infinity),
    );
    session.emit({
      type: 'sampling.requested',
      ...where,
      messages: request.messages.map((m) => ({ role: m.role, text: bounded(m.text) })),
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: bounded(request.systemPrompt) }),
      maxTokens,
    });
    requests += 1;
    const refusal = await refusalOf(session, deps, limits, requests);
    if (refusal) {
      session.emit({ type: 'sampling.completed', ...where, ok: false, message: refusal });
      throw new Error(refusal);
    }
    const messages: ConversationMessage[] = request.messages.map((m) =>
      m.role === 'user'
        ? { role: 'user', content: m.text }
        : { role: 'assistant', text: m.text, toolCalls: [] },
    );
    const doc = session.doc;
    const result = await deps.model.call(
      {
        system: request.systemPrompt ?? '',
        messages,
        tools: [],
        maxOutputTokens: maxTokens,
        ...(deps.signal ? { signal: deps.signal } : {}),
      },
      { runId: session.runId, nodeId, callIndex: doc.modelCalls },
    );
    if (!result.ok) {
      session.emit({ type: 'sampling.completed', ...where, ok: false, message: result.message });
      throw new Error(`the model could not answer: ${result.message}`);
    }
    doc.modelCalls += 1;
    session.addUsage(result.usage);
    recordCost(doc, deps.flow, deps.model.id, result.usage);
    session.emit({
      type: 'sampling.completed',
      ...where,
      ok: true,
      model: deps.model.id,
      text: bounded(result.text),
      usage: result.usage,
    });
    return { text: result.text, model: deps.model.id };
  };
}

/** Why this request is not passed to the model: too many in this call, or a run budget reached. */
async function refusalOf(
  session: RunSession,
  deps: { readonly model: ModelClient; readonly flow: Flow },
  limits: Limits,
  request: number,
): Promise<string | null> {
  if (request > MAX_SAMPLING_REQUESTS)
    return `sampling refused: a tool call may make at most ${MAX_SAMPLING_REQUESTS} sampling requests (MAX_SAMPLING_REQUESTS)`;
  const exit = await budgetExit(limits, deps.flow, deps.model.id, deps.flow.locale, {
    spent: () => session.spent(),
    ancestors: () => session.ancestorBudgets(),
    isChild: session.current.parentRunId !== null,
  });
  return exit?.kind === 'failed' ? `sampling refused: ${exit.message}` : null;
}

function bounded(text: string): string {
  return text.length > TRACE_TEXT_CHARS ? `${text.slice(0, TRACE_TEXT_CHARS)}…` : text;
}
