import type { ConversationMessage, ModelClient, ModelRequest, ModelResult } from '../../src/model/model.js';

/** What a stand-in model sets out to do: calls in order, then finish with `summary`. */
export interface StandInPlan {
  steps: { tool: string; args: Record<string, unknown> }[];
  /** Arguments for a tool a next step may name (e.g. builtin_node_approval). */
  helpers: Record<string, Record<string, unknown>>;
  summary: string;
}

type ToolMessage = Extract<ConversationMessage, { role: 'tool' }>;

/**
 * A strict stand-in model: it refuses (fails the call) a conversation a provider would refuse — a
 * tool message without the assistant call it answers, or a call of a tool it was not offered — and
 * works through its plan, one step after each SUCCESS of the step's tool. After a non-success it
 * either follows the observation's next step (`follow`: it calls the first offered tool the
 * `Next:` / `下一步：` text names, with its helper arguments) or ignores it and calls the step again.
 */
export function standIn(name: string, plan: StandInPlan, follow: boolean): ModelClient {
  let callNo = 0;
  return {
    id: `stand-in:${name}`,
    call(request: ModelRequest): Promise<ModelResult> {
      callNo += 1;
      const broken = strictProblem(request);
      if (broken) return Promise.resolve({ ok: false, message: `stand-in ${name}: ${broken}` });
      const tools = request.tools.map((t) => t.name);
      const tool = request.messages.filter((m): m is ToolMessage => m.role === 'tool');
      let k = 0;
      for (const m of tool) if (m.tool === plan.steps[k]?.tool && m.content.startsWith('[SUCCESS')) k += 1;
      const step = plan.steps[k];
      const last = tool.at(-1);
      const named =
        follow && last && !last.content.startsWith('[SUCCESS') ? namedTool(last.content, tools) : null;
      const call =
        named && plan.helpers[named]
          ? { tool: named, args: plan.helpers[named] }
          : (step ?? { tool: 'builtin_node_finish', args: { summary: plan.summary } });
      return Promise.resolve({
        ok: true,
        text: '',
        toolCalls: [{ callId: `c${callNo}`, tool: call.tool, rawArgs: JSON.stringify(call.args) }],
        usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
      });
    },
  };
}

/** The first offered tool named in the next-step part of a tool message, or null when it has none. */
function namedTool(content: string, tools: readonly string[]): string | null {
  const at = Math.max(content.indexOf('Next: '), content.indexOf('下一步：'));
  if (at < 0) return null;
  const next = content.slice(at);
  let best: { tool: string; index: number } | null = null;
  for (const tool of tools) {
    const index = next.indexOf(tool);
    if (index >= 0 && (best === null || index < best.index)) best = { tool, index };
  }
  return best?.tool ?? null;
}

function strictProblem(request: ModelRequest): string | null {
  const asked = new Set<string>();
  for (const m of request.messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls) asked.add(c.callId);
    if (m.role === 'tool' && !asked.has(m.callId)) return `tool message ${m.callId} answers no call`;
  }
  if (request.tools.length === 0) return 'no tools offered';
  return null;
}
