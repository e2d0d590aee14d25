/**
 * Edges of context compaction (src/loop/compaction.ts, docs/flows.md "Context budget and compaction")
 * that test/loop/compaction.test.ts does not reach: what is never stubbed, the digest's lines, the
 * stale state, the keep-one-round fallback and the stability of the objects sent.
 */
import { describe, expect, it } from 'vitest';
import { compactConversation, newContextState } from '../../src/loop/compaction.js';
import { estimateMessages } from '../../src/loop/context-budget.js';
import { renderSkipped } from '../../src/loop/render.js';
import type { ConversationMessage } from '../../src/model/model.js';
import type { ContextState } from '../../src/records/run-state.js';

/** About 4,400 characters of rows: well over the stub threshold (400). */
const rows = (n: number): string =>
  JSON.stringify({ rows: Array.from({ length: 120 }, (_, i) => `row ${n}-${i} stored in bay`) });

const success = (i: number, body = rows(i)): string =>
  `[SUCCESS] Call of read succeeded (evidence: ev_${i})\n${body}`;

type Round = ConversationMessage[];

/** One round: a model answer with one call and its result. */
function round(i: number, content = success(i), tool = 'read', rawArgs = `{"page":${i}}`): Round {
  return [
    { role: 'assistant', text: '', toolCalls: [{ callId: `c${i}`, tool, rawArgs }] },
    { role: 'tool', callId: `c${i}`, tool, content },
  ];
}

/** The input, then the rounds given, then `plain` ordinary rounds numbered after them. */
function conversation(first: Round[], plain: number): ConversationMessage[] {
  const messages: ConversationMessage[] = [{ role: 'user', content: 'read the log' }];
  for (const r of first) messages.push(...r);
  for (let i = first.length + 1; i <= first.length + plain; i += 1) messages.push(...round(i));
  return messages;
}

const opts = (budget: number, state: ContextState = newContextState(), locale: 'en' | 'zh-CN' = 'en') => ({
  budget,
  fixedTokens: 200,
  state,
  locale,
});

const texts = (messages: readonly ConversationMessage[]): string[] =>
  messages.map((m) => (m.role === 'assistant' ? '' : m.content));

const STUB =
  /\n\[result compacted \(\d+ characters\); builtin_evidence_read \{"id":"ev_\d+"\} shows it again\]$/;

describe('compactConversation: what it leaves alone', () => {
  it('sends a conversation without a model answer as it is, however large (the lead is never touched)', () => {
    const messages: ConversationMessage[] = [{ role: 'user', content: rows(1).repeat(5) }];
    const state = newContextState();
    const result = compactConversation(messages, opts(100, state));
    expect(result.compacted).toBeNull();
    expect(result.messages).toEqual(messages);
    expect(result.state).toBe(state);
  });

  it('never stubs a result shorter than 400 characters, a one-line result, nor a failure head without its next step', () => {
    const short = `[SUCCESS] Call of read succeeded (evidence: ev_1)\n${'x'.repeat(300)}`;
    const oneLine = `[SUCCESS] Call of read succeeded (evidence: ev_2) ${'y'.repeat(900)}`;
    const noNext = `[FAILED TOOL_ERROR] read broke (evidence: ev_3)\n${rows(3)}`;
    const messages = conversation([round(1, short), round(2, oneLine), round(3, noNext)], 6);
    const result = compactConversation(messages, opts(8_000));
    expect(result.compacted).not.toBeNull();
    expect(result.state.dropped).toBe(0);
    expect(result.state.stubbed).toBeGreaterThanOrEqual(3);
    const sent = texts(result.messages);
    expect(sent).toContain(short);
    expect(sent).toContain(oneLine);
    expect(sent).toContain(noNext);
    // the ordinary results of the same stubbed range are stubs
    const stub = sent.find((t) => t.startsWith('[SUCCESS] Call of read succeeded (evidence: ev_4)'));
    expect(stub).toMatch(STUB);
  });

  it('stubs a failure whose head keeps its next step, and counts the characters it took out', () => {
    const head = '[FAILED TOOL_BUSINESS_FAILED] Quota exceeded. Next: tell the user (evidence: ev_1)';
    const body = rows(1);
    const messages = conversation([round(1, `${head}\n${body}`)], 7);
    const result = compactConversation(messages, opts(9_000));
    const first = result.messages[2];
    expect(first).toEqual({
      role: 'tool',
      callId: 'c1',
      tool: 'read',
      content: `${head}\n[result compacted (${body.length} characters); builtin_evidence_read {"id":"ev_1"} shows it again]`,
    });
  });

  it('stubs in the run locale (zh-CN heads carry 下一步：)', () => {
    const head = '[FAILED TOOL_BUSINESS_FAILED] 额度不足。下一步：告知用户 (evidence: ev_1)';
    const messages = conversation([round(1, `${head}\n${rows(1)}`)], 7);
    const result = compactConversation(messages, opts(9_000, newContextState(), 'zh-CN'));
    const first = result.messages[2];
    expect(first?.role === 'tool' && first.content).toBe(
      `${head}\n[结果已压缩（${rows(1).length} 字符）；调用 builtin_evidence_read {"id":"ev_1"} 可再次查看]`,
    );
  });

  it('drops the bookkeeping of a stubbed message but keeps its call id and tool', () => {
    const messages = conversation([], 8).map((m) =>
      m.role === 'tool' && m.callId === 'c1' ? { ...m, counted: 'fp-1' } : m,
    );
    const result = compactConversation(messages, opts(9_000));
    expect(result.messages[2]).toMatchObject({ role: 'tool', callId: 'c1', tool: 'read' });
    expect(result.messages[2]).not.toHaveProperty('counted');
  });
});

describe('compactConversation: the digest', () => {
  /** Round 1 holds the special cases; enough plain rounds after it that round 1 is folded. */
  function digestOf(first: Round[], locale: 'en' | 'zh-CN' = 'en'): { text: string; dropped: number } {
    const messages = conversation(first, 50);
    const result = compactConversation(messages, opts(6_000, newContextState(), locale));
    expect(result.state.dropped).toBeGreaterThanOrEqual(first.length);
    const digest = result.messages[1];
    return { text: digest?.role === 'user' ? digest.content : '', dropped: result.state.dropped };
  }

  it('clips long arguments at 120 characters and a long SUCCESS line before its evidence id', () => {
    const args = JSON.stringify({ query: 'q'.repeat(200) });
    const longHead = `[SUCCESS] Call of read succeeded: ${'z'.repeat(300)} (evidence: ev_1)`;
    const { text } = digestOf([round(1, `${longHead}\n${rows(1)}`, 'read', args)]);
    const line = text.split('\n').find((l) => l.startsWith('- read {"query"'));
    expect(line).toBe(`- read ${args.slice(0, 120)}… → ${longHead.slice(0, 240)}… (evidence: ev_1)`);
  });

  it('keeps a non-success line whole, and a result without evidence id whole on one line', () => {
    const failed = `[FAILED TOOL_BUSINESS_FAILED] ${'q'.repeat(300)}. Next: explain (evidence: ev_1)`;
    const answer = '[SUCCESS] The user answered: blue\n{"answer":"blue"}\nthanks';
    const { text } = digestOf([
      round(1, `${failed}\n${rows(1)}`, 'write', '{}'),
      round(2, answer, 'ask', '{}'),
    ]);
    const lines = text.split('\n');
    expect(lines).toContain(`- write {} → ${failed}`);
    expect(lines).toContain('- ask {} → [SUCCESS] The user answered: blue {"answer":"blue"} thanks');
  });

  it('has a line per call in call order, an empty outcome for an unanswered call, and user messages as said', () => {
    const first: Round = [
      {
        role: 'assistant',
        text: 'two at once',
        toolCalls: [
          { callId: 'a', tool: 'read', rawArgs: '{"page":"a"}' },
          { callId: 'b', tool: 'read', rawArgs: '{"page":"b"}' },
          { callId: 'n', tool: 'save', rawArgs: '{"n":1}' },
        ],
      },
      // answered out of order: the lines still follow the calls
      { role: 'tool', callId: 'b', tool: 'read', content: success(102) },
      { role: 'tool', callId: 'a', tool: 'read', content: success(101) },
      { role: 'user', content: 'Please hurry' },
    ];
    const { text } = digestOf([first]);
    const lines = text.split('\n');
    const at = lines.indexOf('- read {"page":"a"} → [SUCCESS] Call of read succeeded (evidence: ev_101)');
    expect(at).toBe(1);
    expect(lines.slice(1, 5)).toEqual([
      '- read {"page":"a"} → [SUCCESS] Call of read succeeded (evidence: ev_101)',
      '- read {"page":"b"} → [SUCCESS] Call of read succeeded (evidence: ev_102)',
      '- save {"n":1} → ',
      '- User message: Please hurry',
    ]);
  });

  it('clips a skipped call line at 240 characters', () => {
    const skipped = `${renderSkipped('en')} ${'s'.repeat(300)}`;
    const { text } = digestOf([round(1, skipped, 'save', '{}')]);
    expect(text.split('\n')).toContain(`- save {} → ${skipped.slice(0, 240)}…`);
  });

  it('opens with the rounds it folds, in the run locale', () => {
    const en = digestOf([]);
    expect(en.text.split('\n')[0]).toBe(
      `Rounds 1–${en.dropped} of this node were compacted to keep the conversation within its budget. Their calls and outcomes follow; to see a result again, call builtin_evidence_read with its evidence id.`,
    );
    const zh = digestOf([], 'zh-CN');
    expect(zh.text.split('\n')[0]).toBe(
      `本节点第 1–${zh.dropped} 轮已压缩，以控制上下文长度。以下是这些轮次的调用及结论；需要再次查看某个结果时，用其 evidence 编号调用 builtin_evidence_read。`,
    );
    expect(zh.text).toContain('- read {"page":1} → [SUCCESS] Call of read succeeded (evidence: ev_1)');
  });
});

describe('compactConversation: state and stability', () => {
  it('starts afresh from a state of a longer conversation', () => {
    const messages = conversation([], 3);
    const stale: ContextState = { stubbed: 9, dropped: 5, compactions: 4, last: null };
    const result = compactConversation(messages, opts(1_000_000, stale));
    expect(result.compacted).toBeNull();
    expect(result.state).toEqual(newContextState());
    expect(result.messages).toEqual(messages);
  });

  it('renders a persisted state even when the conversation is now within budget', () => {
    const messages = conversation([], 6);
    const state: ContextState = { stubbed: 3, dropped: 1, compactions: 2, last: null };
    const result = compactConversation(messages, opts(1_000_000, state));
    expect(result.compacted).toBeNull();
    expect(result.state).toBe(state);
    // the input, the digest of round 1, rounds 2 and 3 stubbed, rounds 4–6 whole
    expect(result.messages).toHaveLength(1 + 1 + 2 * 5);
    expect(result.messages[1]?.role === 'user' && result.messages[1].content).toContain('Rounds 1–1');
    expect(texts(result.messages)[3]).toMatch(STUB);
    expect(texts(result.messages)[5]).toMatch(STUB);
    expect(result.messages.slice(6)).toEqual(messages.slice(7));
  });

  it('counts a compaction on top of the persisted ones and forgets the reported input tokens', () => {
    const messages = conversation([], 12);
    const state: ContextState = {
      stubbed: 0,
      dropped: 0,
      compactions: 3,
      last: { inputTokens: 10, messages: 1 },
    };
    const result = compactConversation(messages, opts(9_000, state));
    expect(result.state.compactions).toBe(4);
    expect(result.state.last).toBeNull();
    expect(result.compacted?.after).toBe(200 + estimateMessages(result.messages));
  });

  it('measures the reported input tokens plus an estimate of only what came after them', () => {
    const messages = conversation([], 4);
    const added = messages.slice(3);
    const state: ContextState = { ...newContextState(), last: { inputTokens: 30_000, messages: 3 } };
    const result = compactConversation(messages, opts(20_000, state));
    expect(result.compacted?.before).toBe(30_000 + estimateMessages(added));
    // a small report does not lower the estimate of the whole
    const low: ContextState = { ...newContextState(), last: { inputTokens: 1, messages: 5 } };
    const within = compactConversation(messages, opts(200 + estimateMessages(messages), low));
    expect(within.compacted).toBeNull();
    const over = compactConversation(messages, opts(199 + estimateMessages(messages), low));
    expect(over.compacted?.before).toBe(200 + estimateMessages(messages));
  });

  it('is within budget at exactly the budget, and compacts one token over it', () => {
    const messages = conversation([], 4);
    const size = 200 + estimateMessages(messages);
    expect(compactConversation(messages, opts(size)).compacted).toBeNull();
    const result = compactConversation(messages, opts(size - 1));
    expect(result.compacted?.before).toBe(size);
    expect(result.state.stubbed).toBe(2);
  });

  it('keeps only the newest round whole when two do not fit', () => {
    const messages = conversation([], 3);
    // Two rounds whole (about 2,320 tokens) do not fit 2,400 with a digest: the second newest is stubbed too.
    const result = compactConversation(messages, { ...opts(2_400), fixedTokens: 0 });
    expect(result.state).toEqual({ stubbed: 2, dropped: 0, compactions: 1, last: null });
    const sent = texts(result.messages);
    expect(sent[4]).toMatch(STUB);
    expect(result.messages.slice(-2)).toEqual(messages.slice(-2));
  });

  it('sends it as it is when nothing more may be compacted', () => {
    const messages = conversation([], 1);
    const state = newContextState();
    const result = compactConversation(messages, opts(10, state));
    expect(result.compacted).toBeNull();
    expect(result.state).toBe(state);
    expect(result.messages).toEqual(messages);
  });

  it('sends the same digest and stub objects from one request to the next', () => {
    const messages = conversation([], 12);
    const first = compactConversation(messages, opts(6_000));
    expect(first.state.dropped).toBeGreaterThan(0);
    const again = compactConversation(messages, opts(6_000, first.state));
    expect(again.compacted).toBeNull();
    expect(again.messages[1]).toBe(first.messages[1]);
    const stubAt = first.messages.findIndex((m) => m.role === 'tool' && STUB.test(m.content));
    expect(stubAt).toBeGreaterThan(1);
    expect(again.messages[stubAt]).toBe(first.messages[stubAt]);
    // the stored messages are never changed
    expect(messages[2]?.role === 'tool' && messages[2].content).toBe(success(1));
  });
});
