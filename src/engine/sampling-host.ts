import type { Flow } from '../domain/flow.js';
import type { McpSamplingRequest, McpSamplingResult } from '../mcp/sampling.js';
import type { ConversationMessage, ModelClient } from '../model/model.js';
import { recordCost } from './context-host.js';
import type { RunSession } from './session.js';

/** How much of each text a sampling trace event carries. */
const TRACE_TEXT_CHARS = 2_000;

/**
 * The node's answer to MCP servers' sampling requests (docs/mcp.md, "Sampling"): the server's messages go
 * to the node's model as they are, without tools, with the server's system prompt and `maxTokens`; the
 * call counts as one of the run's model calls (usage, cost, a scripted model's next turn). Request and
 * result are traced (`sampling.requested`, `sampling.completed`). A model failure is an error
 * to the server, never the run's failure.
 */
export function nodeSampler(
  session: RunSession,
  nodeId: string,
  deps: { readonly model: ModelClient; readonly flow: Flow; readonly signal?: AbortSignal },
): (
  request: McpSamplingRequest,
  call: { readonly server: string; readonly tool: string },
) => Promise<McpSamplingResult> {
  return async (request, call) => {
    const where = { nodeId, server: call.server, tool: call.tool };
    session.emit({
      type: 'sampling.requested',
      ...where,
      messages: request.messages.map((m) => ({ role: m.role, text: bounded(m.text) })),
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: bounded(request.systemPrompt) }),
      maxTokens: request.maxTokens,
    });
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
        maxOutputTokens: request.maxTokens,
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

function bounded(text: string): string {
  return text.length > TRACE_TEXT_CHARS ? `${text.slice(0, TRACE_TEXT_CHARS)}…` : text;
}
