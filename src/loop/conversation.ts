import { hint } from '../domain/hints.js';
import type { Locale, Localized } from '../domain/locale.js';
import type { ThreadTurn } from '../records/run-state.js';
import type { ConversationMessage, ModelToolCall } from '../model/model.js';
import { renderSkipped } from './render.js';

const HEADINGS: Localized<{ input: string; earlier: string; retried: string }> = {
  'zh-CN': { input: '## 用户输入', earlier: '## 前序节点产出', retried: '## 重试' },
  en: { input: '## User input', earlier: '## Outputs of earlier nodes', retried: '## Retry' },
};

/** What the first user message of a node run is made of: the run input and earlier nodes' outputs. */
export interface OpeningParts {
  locale: Locale;
  input: unknown;
  earlierOutputs: Record<string, Record<string, unknown>>;
}

/**
 * The first user message of a node run: the run input (its text alone when the input is `{text}` and
 * no node ran before), and the outputs of earlier nodes as JSON. Fixed for the whole node run, so it
 * never breaks a provider's prompt cache. Never empty (an empty input is shown as `""`).
 */
export function openingMessage(parts: OpeningParts): string {
  const rendered = renderInput(parts.input);
  const input = blank(rendered) ? '""' : rendered;
  if (Object.keys(parts.earlierOutputs).length === 0) return input;
  const h = HEADINGS[parts.locale];
  return `${h.input}\n${input}\n\n${h.earlier}\n${JSON.stringify(parts.earlierOutputs)}`;
}

/** The run input as the model reads it: its text when it is `{text}` only, else JSON. */
export function renderInput(input: unknown): string {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const entries = Object.entries(input);
    if (entries.length === 1 && entries[0]?.[0] === 'text' && typeof entries[0][1] === 'string')
      return entries[0][1];
  }
  return JSON.stringify(input) ?? 'null';
}

/**
 * The conversation one model call sends, as a pure function of the node run's stored messages: the
 * opening user message, then the stored messages made valid for every provider, then `newest` (the
 * per-round phase hint) as the last user-side content. What "valid" means (Anthropic Messages, OpenAI
 * Chat Completions, chat templates such as Qwen's):
 * - the first message is a user message and the last is never an assistant message;
 * - blank assistant texts are dropped (a turn with neither text nor calls is left out); blank user
 *   texts become `""`;
 * - every tool call of an assistant turn is answered by a tool message before the next user or
 *   assistant message (a call left without one, e.g. after a wave that ended early, gets the
 *   `[SKIPPED]` message), and a tool message answering no call of the turn before it is left out.
 * The stored messages are not changed; the same input always gives the same output. `history` (a run
 * in a thread: the thread's earlier turns) comes first, as user and assistant messages (turns of the
 * same role in a row joined into one), before the opening message.
 */
export function modelConversation(
  locale: Locale,
  opening: string,
  stored: readonly ConversationMessage[],
  newest: string | null,
  history: readonly ThreadTurn[] = [],
): ConversationMessage[] {
  return new ConversationView(locale, opening, history).build(stored, newest);
}

/**
 * `modelConversation` for one node run, kept up to date incrementally: each `build` converts only the
 * stored messages appended since the previous one, so the cost of a round does not grow with the
 * length of the run (only the final copy of the array does, a memory copy). The result is the same,
 * message for message, as `modelConversation` of the same input. The stored array must only grow
 * between calls; a different array, or one that became shorter, is converted afresh.
 */
export class ConversationView {
  readonly #locale: Locale;
  readonly #prefix: ConversationMessage[];
  #out: ConversationMessage[] = [];
  #source: readonly ConversationMessage[] | null = null;
  #seen = 0;
  /** The last stored message converted: a stored array changed in place is converted afresh. */
  #last: ConversationMessage | undefined;
  #open: { calls: ModelToolCall[]; answered: Set<string> } | null = null;

  constructor(locale: Locale, opening: string, history: readonly ThreadTurn[] = []) {
    this.#locale = locale;
    const prefix = historyMessages(history);
    const first = blank(opening) ? '""' : opening;
    const last = prefix.at(-1);
    if (last?.role === 'user') last.content = `${last.content}\n\n${first}`;
    else prefix.push({ role: 'user', content: first });
    this.#prefix = prefix;
  }

  /** The conversation to send for `stored` (the node run's messages so far) and this round's `newest`. */
  build(stored: readonly ConversationMessage[], newest: string | null): ConversationMessage[] {
    const last = this.#seen > 0 ? stored[this.#seen - 1] : undefined;
    if (stored !== this.#source || stored.length < this.#seen || last !== this.#last) {
      this.#source = stored;
      this.#out = [...this.#prefix];
      this.#seen = 0;
      this.#open = null;
    }
    for (; this.#seen < stored.length; this.#seen += 1) this.#add(stored[this.#seen] as ConversationMessage);
    this.#last = this.#seen > 0 ? stored[this.#seen - 1] : undefined;
    const out = this.#out.slice();
    // Calls still unanswered at the end: answered as skipped in this request only (a later tool
    // message may still answer them).
    if (this.#open) this.#skipUnanswered(out, this.#open);
    if (newest) out.push({ role: 'user', content: newest });
    else if (out.at(-1)?.role === 'assistant')
      out.push({ role: 'user', content: hint(this.#locale, 'NO_TOOL_CALL') });
    return out;
  }

  #add(message: ConversationMessage): void {
    const out = this.#out;
    const open = this.#open;
    if (message.role === 'tool') {
      if (!open || open.answered.has(message.callId) || !open.calls.some((c) => c.callId === message.callId))
        return;
      open.answered.add(message.callId);
      out.push(withoutBookkeeping(message));
      return;
    }
    if (open) this.#skipUnanswered(out, open);
    this.#open = null;
    if (message.role === 'user') {
      out.push({ role: 'user', content: blank(message.content) ? '""' : message.content });
      return;
    }
    // Anthropic refuses text blocks without non-whitespace text.
    const text = blank(message.text) ? '' : message.text;
    if (text === '' && message.toolCalls.length === 0) return;
    out.push(text === message.text ? message : { ...message, text });
    if (message.toolCalls.length > 0) this.#open = { calls: message.toolCalls, answered: new Set() };
  }

  #skipUnanswered(out: ConversationMessage[], open: { calls: ModelToolCall[]; answered: Set<string> }): void {
    for (const call of open.calls) {
      if (!open.answered.has(call.callId))
        out.push({
          role: 'tool',
          callId: call.callId,
          tool: call.tool,
          content: renderSkipped(this.#locale),
        });
    }
  }
}

/**
 * The user message that tells the model its node is being retried after a failure (stored in the
 * node run's conversation by `retry`): the reason code and the failure message.
 */
export function retryNotice(locale: Locale, reason: string, message: string): string {
  return `${HEADINGS[locale].retried}\n${hint(locale, 'NODE_RETRIED', { reason, message })}`;
}

/** A thread's earlier turns as messages: starting with a user message, same roles in a row joined. */
function historyMessages(history: readonly ThreadTurn[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const turn of history) {
    if (blank(turn.text)) continue;
    const last = out.at(-1);
    if (last?.role === 'user' && turn.role === 'user') last.content = `${last.content}\n\n${turn.text}`;
    else if (last?.role === 'assistant' && turn.role === 'assistant')
      last.text = `${last.text}\n\n${turn.text}`;
    else if (turn.role === 'user') out.push({ role: 'user', content: turn.text });
    else if (out.length > 0) out.push({ role: 'assistant', text: turn.text, toolCalls: [] });
  }
  return out;
}

function blank(text: string): boolean {
  return text.trim() === '';
}

function withoutBookkeeping(message: Extract<ConversationMessage, { role: 'tool' }>): ConversationMessage {
  const { counted: _counted, ...rest } = message;
  return rest;
}
