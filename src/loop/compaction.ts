import { hint } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import type { ContextState } from '../records/run-state.js';
import type { ConversationMessage } from '../model/model.js';
import { estimateMessage, estimateMessages, estimateText } from './context-budget.js';

/**
 * Context compaction of a node run's conversation (a pure, deterministic function of the messages,
 * the persisted ContextState and the budget; it never changes what the store keeps, only what one
 * request sends).
 *
 * The conversation is read as a lead (the messages before the first model answer: the run input
 * when it is a user message) and rounds (a model answer and what follows it up to the next one).
 * Compaction, when the estimated request is over the budget, first replaces the tool results of
 * old rounds by stubs (the outcome, code, reason and next step, the evidence id, and how to see it
 * again with builtin_evidence_read), then folds the oldest rounds into one digest user message (one
 * line per call: tool, arguments, outcome line). It never touches the lead, the newest rounds
 * (`keepRounds`), a tool result without an evidence id (it could not be read again), or a
 * non-success observation's reason and next step. Compaction only grows (the state is persisted),
 * so the prefix of the conversation stays stable between compactions.
 */

/** A tool result shorter than this is never stubbed (the stub would not be much shorter). */
const STUB_MIN_CHARS = 400;
/** How much of a call's arguments and of a SUCCESS outcome line a digest line keeps. */
const DIGEST_ARGS_CHARS = 120;
const DIGEST_HEAD_CHARS = 240;
/** The newest rounds kept whole (one only when two do not fit). */
const KEEP_ROUNDS = 2;
/** After compacting, the request aims at this share of the budget, so compactions stay rare. */
const TARGET_RATIO = 0.6;

/** What `compactConversation` needs besides the messages. */
export interface CompactionOptions {
  /** Token budget of one request. */
  budget: number;
  /** Estimated tokens of the rest of the request (system prompt, tools). */
  fixedTokens: number;
  /** The node run's persisted compaction state. */
  state: ContextState;
  locale: Locale;
}

/** The messages to send and the state after this request. */
export interface Compaction {
  messages: ConversationMessage[];
  state: ContextState;
  /** Set when this request compacted more than the state already did: estimated tokens before and after. */
  compacted: { before: number; after: number } | null;
}

/** A fresh compaction state (nothing compacted). */
export function newContextState(): ContextState {
  return { stubbed: 0, dropped: 0, compactions: 0, last: null };
}

/**
 * The conversation as it is sent under `options.state`, compacted further when its estimated size
 * (the previous call's reported input tokens plus an estimate of what was added, or the estimate of
 * the whole, whichever is larger) is over the budget. See the module comment for the rules.
 */
export function compactConversation(
  messages: readonly ConversationMessage[],
  options: CompactionOptions,
): Compaction {
  const { lead, rounds } = segment(messages);
  // A state from a longer conversation (not this one) would fold the newest rounds: start afresh.
  const state = options.state.stubbed > rounds.length ? newContextState() : options.state;
  const view = render(lead, rounds, state.stubbed, state.dropped, options.locale);
  let before = options.fixedTokens + estimateMessages(view);
  if (state.last)
    before = Math.max(before, state.last.inputTokens + estimateMessages(messages.slice(state.last.messages)));
  if (before <= options.budget) return { messages: view, state, compacted: null };
  // The newest two rounds stay whole unless even then the request is over the budget.
  let best: { stubbed: number; dropped: number; size: number } | null = null;
  for (const keep of [KEEP_ROUNDS, 1]) {
    const limit = Math.max(rounds.length - keep, state.stubbed);
    best = choose(lead, rounds, { stubbed: limit, dropped: state.dropped }, limit, options);
    if (best.size <= options.budget) break;
  }
  if (!best || (best.stubbed === state.stubbed && best.dropped === state.dropped)) {
    // Nothing more may be compacted: the request goes as it is (the provider decides).
    return { messages: view, state, compacted: null };
  }
  const messagesAfter = render(lead, rounds, best.stubbed, best.dropped, options.locale);
  const after = options.fixedTokens + estimateMessages(messagesAfter);
  return {
    messages: messagesAfter,
    state: { stubbed: best.stubbed, dropped: best.dropped, compactions: state.compactions + 1, last: null },
    compacted: { before, after },
  };
}

/** The fewest dropped rounds (from `start.dropped` up to `limit`) that bring the request to the target. */
function choose(
  lead: readonly ConversationMessage[],
  rounds: readonly ConversationMessage[][],
  start: { stubbed: number; dropped: number },
  limit: number,
  options: CompactionOptions,
): { stubbed: number; dropped: number; size: number } {
  const target = Math.floor(options.budget * TARGET_RATIO);
  const stubbed = Math.min(Math.max(start.stubbed, 0), rounds.length);
  const kept = rounds.map((round, i) =>
    estimateMessages(i < stubbed ? round.map((m) => stubbedMessage(m, options.locale)) : round),
  );
  const lines = rounds.map((round) =>
    digestLines(round, options.locale).reduce((n, line) => n + estimateText(line) + 1, 0),
  );
  const leadSize = estimateMessages(lead);
  const header = estimateMessage({
    role: 'user',
    content: hint(options.locale, 'CONTEXT_DIGEST', { from: 1, to: rounds.length }),
  });
  let dropped = Math.min(start.dropped, stubbed);
  const size = (d: number): number => {
    let n = options.fixedTokens + leadSize + (d > 0 ? header : 0);
    for (let i = 0; i < rounds.length; i += 1) n += i < d ? (lines[i] ?? 0) : (kept[i] ?? 0);
    return n;
  };
  let current = size(dropped);
  while (current > target && dropped < Math.min(limit, stubbed)) {
    dropped += 1;
    current = size(dropped);
  }
  return { stubbed, dropped, size: current };
}

/** Splits a conversation into its lead and its rounds. */
function segment(messages: readonly ConversationMessage[]): {
  lead: ConversationMessage[];
  rounds: ConversationMessage[][];
} {
  const lead: ConversationMessage[] = [];
  const rounds: ConversationMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'assistant') rounds.push([message]);
    else if (rounds.length > 0) rounds[rounds.length - 1]?.push(message);
    else lead.push(message);
  }
  return { lead, rounds };
}

/** The conversation with the first `dropped` rounds in a digest and the first `stubbed` rounds stubbed. */
function render(
  lead: readonly ConversationMessage[],
  rounds: readonly ConversationMessage[][],
  stubbed: number,
  dropped: number,
  locale: Locale,
): ConversationMessage[] {
  const out: ConversationMessage[] = [...lead];
  const d = Math.min(dropped, rounds.length);
  if (d > 0) out.push(digestMessage(rounds, d, locale));
  rounds.forEach((round, i) => {
    if (i < d) return;
    for (const message of round) out.push(i < stubbed ? stubbedMessage(message, locale) : message);
  });
  return out;
}

/**
 * The digest user message of the first `d` rounds. Kept per last digested round (a round's messages
 * never change once a later round started), so that the same digest is the same message object
 * from one request to the next and costs nothing to build again.
 */
function digestMessage(
  rounds: readonly ConversationMessage[][],
  d: number,
  locale: Locale,
): ConversationMessage {
  const key = rounds[d - 1]?.[0] as ConversationMessage;
  const known = DIGESTS.get(key);
  if (known && known.d === d && known.locale === locale && known.first === rounds[0]?.[0])
    return known.message;
  const lines = [hint(locale, 'CONTEXT_DIGEST', { from: 1, to: d })];
  for (const round of rounds.slice(0, d)) lines.push(...digestLines(round, locale));
  const message: ConversationMessage = { role: 'user', content: lines.join('\n') };
  DIGESTS.set(key, { d, locale, first: rounds[0]?.[0], message });
  return message;
}

const DIGESTS = new WeakMap<
  ConversationMessage,
  { d: number; locale: Locale; first: ConversationMessage | undefined; message: ConversationMessage }
>();

/** The first line of a rendered observation: outcome, code, reason, next step, evidence id. */
function headOf(content: string): string {
  const nl = content.indexOf('\n');
  return nl < 0 ? content : content.slice(0, nl);
}

/** A head line's evidence id: `… (evidence: ev_3)` at its end, or a plain success `[SUCCESS ev_3]` (src/loop/render.ts). */
const EVIDENCE_AT_END = /(?:\(evidence: (ev_\d+)\)|^\[SUCCESS (ev_\d+)\])$/;

function evidenceOf(head: string): string | undefined {
  const match = EVIDENCE_AT_END.exec(head);
  return match ? (match[1] ?? match[2]) : undefined;
}
const NEXT_MARKERS = ['下一步：', 'Next:'];

/** True when the head line keeps everything a non-success observation must keep (its next step). */
function headKeepsNext(head: string): boolean {
  if (head.startsWith('[SUCCESS')) return true;
  return NEXT_MARKERS.some((m) => head.includes(m));
}

/**
 * A tool result replaced by its stub, or the message itself when it must stay. The same stub object
 * for the same message (per locale), so that a compacted range reads the same from one request to
 * the next.
 */
function stubbedMessage(message: ConversationMessage, locale: Locale): ConversationMessage {
  if (message.role !== 'tool' || message.content.length < STUB_MIN_CHARS) return message;
  const stubs = (STUBS[locale] ??= new WeakMap());
  let stub = stubs.get(message);
  if (!stub) stubs.set(message, (stub = makeStub(message, locale)));
  return stub;
}

const STUBS: Partial<Record<Locale, WeakMap<ConversationMessage, ConversationMessage>>> = {};

function makeStub(
  message: Extract<ConversationMessage, { role: 'tool' }>,
  locale: Locale,
): ConversationMessage {
  const head = headOf(message.content);
  const id = evidenceOf(head);
  if (!id || head === message.content || !headKeepsNext(head)) return message;
  const chars = message.content.length - head.length - 1;
  // A stub keeps no images: the model reads the evidence again when it needs the result.
  const { counted: _counted, images: _images, ...rest } = message;
  return { ...rest, content: `${head}\n${hint(locale, 'CONTEXT_STUB', { chars, id })}` };
}

/** The digest lines of one round: a line per call (tool, arguments, outcome line), user messages as said. */
function digestLines(round: readonly ConversationMessage[], locale: Locale): string[] {
  const [answer, ...rest] = round;
  const lines: string[] = [];
  const results = new Map<string, string>();
  for (const message of rest)
    if (message.role === 'tool') results.set(message.callId, digestResult(message.content));
  if (answer?.role === 'assistant') {
    for (const call of answer.toolCalls) {
      const head = results.get(call.callId) ?? '';
      lines.push(`- ${call.tool} ${clip(call.rawArgs, DIGEST_ARGS_CHARS)} → ${digestHead(head)}`);
    }
  }
  for (const message of rest)
    if (message.role === 'user')
      lines.push(`- ${hint(locale, 'CONTEXT_DIGEST_USER', { text: message.content })}`);
  return lines;
}

/** A result in the digest: its outcome line, or all of it when it has no evidence id (it could not be read again). */
function digestResult(content: string): string {
  const head = headOf(content);
  return EVIDENCE_AT_END.test(head) ? head : content.replace(/\n/g, ' ');
}

/**
 * A result's outcome line in the digest: a SUCCESS line with an evidence id is clipped before its
 * evidence id (it can be read again); any other line stays whole (a non-success keeps its reason and
 * next step; a result without evidence id cannot be read again).
 */
function digestHead(head: string): string {
  if (head.startsWith('[SKIPPED]')) return clip(head, DIGEST_HEAD_CHARS);
  const evidence = EVIDENCE_AT_END.exec(head);
  if (!head.startsWith('[SUCCESS]') || !evidence || head.length <= DIGEST_HEAD_CHARS) return head;
  return `${head.slice(0, DIGEST_HEAD_CHARS)}… ${evidence[0]}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
