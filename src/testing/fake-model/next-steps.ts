import type { Play } from './server.js';
import type { Turn } from './wire.js';

/**
 * A stand-in model that follows the observations' next steps (docs/testing.md, "Following the next
 * steps"): before playing its script's next turn, it reads the tool results of the request and does
 * what a cooperative model does on the runtime's protocol codes — asks for approval when a write is
 * gated (`APPROVAL_REQUIRED` → `builtin_node_approval`), makes the gated call again once the approval
 * call succeeded, and repeats a call the runtime says did not execute (`WRITE_NOT_EXECUTED`). Any
 * other result lets the script go on, so a script holds only the calls a user means.
 */

type Json = Record<string, unknown>;

/** One tool call of the conversation, with its result text (null while unanswered). */
interface Exchange {
  readonly id: string;
  readonly name: string;
  readonly args: string;
  result: string | null;
}

/** The calls of each assistant message of a request, oldest first, with their results. */
export function exchangesOf(kind: 'openai' | 'anthropic' | 'qwen', body: Json): Exchange[][] {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  return kind === 'anthropic' ? anthropicExchanges(messages) : openaiExchanges(messages);
}

function openaiExchanges(messages: Json[]): Exchange[][] {
  const rounds: Exchange[][] = [];
  const byId = new Map<string, Exchange>();
  for (const message of messages) {
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      const round = (message.tool_calls as Json[]).map((call) => {
        const fn = (call.function ?? {}) as Json;
        const exchange: Exchange = {
          id: String(call.id),
          name: String(fn.name),
          args: typeof fn.arguments === 'string' ? fn.arguments : '{}',
          result: null,
        };
        byId.set(exchange.id, exchange);
        return exchange;
      });
      rounds.push(round);
    } else if (message.role === 'tool') {
      const exchange = byId.get(String(message.tool_call_id));
      if (exchange) exchange.result = textOf(message.content);
    }
  }
  return rounds;
}

function anthropicExchanges(messages: Json[]): Exchange[][] {
  const rounds: Exchange[][] = [];
  const byId = new Map<string, Exchange>();
  for (const message of messages) {
    const blocks = Array.isArray(message.content) ? (message.content as Json[]) : [];
    if (message.role === 'assistant') {
      const round = blocks
        .filter((block) => block.type === 'tool_use')
        .map((block) => {
          const exchange: Exchange = {
            id: String(block.id),
            name: String(block.name),
            args: JSON.stringify(block.input ?? {}),
            result: null,
          };
          byId.set(exchange.id, exchange);
          return exchange;
        });
      if (round.length > 0) rounds.push(round);
    } else {
      for (const block of blocks.filter((b) => b.type === 'tool_result')) {
        const exchange = byId.get(String(block.tool_use_id));
        if (exchange) exchange.result = textOf(block.content);
      }
    }
  }
  return rounds;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

/** The code a rendered observation starts with (`[DEFERRED APPROVAL_REQUIRED] …`), or null. */
function codeOf(result: string | null): { outcome: string; code: string | null } | null {
  const head = /^\[(SUCCESS|FAILED|REJECTED|DEFERRED)(?: ([A-Z][A-Z0-9_]*))?/.exec(result ?? '');
  return head ? { outcome: head[1] as string, code: head[2] ?? null } : null;
}

/** The call a cooperative model makes next on the protocol codes of the last round, or null. */
export function protocolStep(rounds: readonly Exchange[][]): Exchange | null {
  const last = rounds.at(-1);
  if (!last) return null;
  for (const exchange of last) {
    const seen = codeOf(exchange.result);
    if (seen?.code === 'APPROVAL_REQUIRED')
      return {
        id: '',
        name: 'builtin_node_approval',
        args: JSON.stringify({ tool: exchange.name, summary: `${exchange.name} ${exchange.args}` }),
        result: null,
      };
    if (seen?.code === 'WRITE_NOT_EXECUTED') return exchange;
  }
  const approval = last.find((e) => e.name === 'builtin_node_approval');
  if (approval && codeOf(approval.result)?.outcome === 'SUCCESS') return gatedCall(rounds, approval);
  return null;
}

/** The latest call of the approved tool that the write gate stopped. */
function gatedCall(rounds: readonly Exchange[][], approval: Exchange): Exchange | null {
  let tool: unknown;
  try {
    tool = (JSON.parse(approval.args) as { tool?: unknown }).tool;
  } catch {
    return null;
  }
  for (const round of [...rounds].reverse())
    for (const exchange of round)
      if (exchange.name === tool && codeOf(exchange.result)?.code === 'APPROVAL_REQUIRED') return exchange;
  return null;
}

/**
 * `script` (a play by script index) wrapped to follow the next steps: a protocol step when the last
 * round asks for one, else the script's next turn (its own counter, so protocol steps use no turn).
 */
export function followNextSteps(kind: 'openai' | 'anthropic' | 'qwen', script: Play): Play {
  let played = 0;
  let steps = 0;
  return (_index, body) => {
    const step = protocolStep(exchangesOf(kind, body));
    if (step) {
      steps += 1;
      return {
        calls: [{ id: `step_${steps}`, name: step.name, args: step.args }],
        usage: { input: 0, output: 0 },
      } satisfies Turn;
    }
    const turn = script(played, body);
    played += 1;
    return turn;
  };
}
