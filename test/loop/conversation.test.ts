import { describe, expect, it } from 'vitest';
import {
  ConversationView,
  modelConversation,
  openingMessage,
  retryNotice,
} from '../../src/loop/conversation.js';
import { renderSkipped } from '../../src/loop/render.js';
import type { ConversationMessage } from '../../src/model/model.js';
import { openAiRefusal } from '../../src/testing/fake-model/rules.js';

const call = (callId: string, tool = 'lookup') => ({ callId, tool, rawArgs: '{}' });
const assistant = (text: string, ...ids: string[]): ConversationMessage => ({
  role: 'assistant',
  text,
  toolCalls: ids.map((id) => call(id)),
});
const tool = (callId: string, content = 'ok', counted?: string): ConversationMessage => ({
  role: 'tool',
  callId,
  tool: 'lookup',
  content,
  ...(counted ? { counted } : {}),
});
const user = (content: string): ConversationMessage => ({ role: 'user', content });

/** The conversation in OpenAI wire form, checked by the strict fake's rules (null when valid). */
function refusal(messages: ConversationMessage[]): string | null {
  const wire = messages.map((m) =>
    m.role === 'user'
      ? { role: 'user', content: m.content }
      : m.role === 'tool'
        ? { role: 'tool', tool_call_id: m.callId, content: m.content }
        : {
            role: 'assistant',
            content: m.text,
            ...(m.toolCalls.length ? { tool_calls: m.toolCalls.map((c) => ({ id: c.callId })) } : {}),
          },
  );
  return (
    openAiRefusal({ model: 'm', messages: [{ role: 'system', content: 'rules' }, ...wire] })?.message ?? null
  );
}

describe('openingMessage', () => {
  it('is the input text alone for a first node, and adds earlier outputs as JSON after', () => {
    expect(openingMessage({ locale: 'en', input: { text: 'Order item 7' }, earlierOutputs: {} })).toBe(
      'Order item 7',
    );
    expect(openingMessage({ locale: 'en', input: { a: 1 }, earlierOutputs: {} })).toBe('{"a":1}');
    expect(openingMessage({ locale: 'en', input: { text: '' }, earlierOutputs: {} })).toBe('""');
    expect(
      openingMessage({
        locale: 'zh-CN',
        input: { text: '建站' },
        earlierOutputs: { query: { spaceId: 's1' } },
      }),
    ).toBe('## 用户输入\n建站\n\n## 前序节点产出\n{"query":{"spaceId":"s1"}}');
  });
});

describe('modelConversation', () => {
  it('starts with the opening user message and ends with the newest user-side content', () => {
    expect(modelConversation('en', 'go', [], 'hint')).toEqual([user('go'), user('hint')]);
    expect(modelConversation('en', 'go', [], null)).toEqual([user('go')]);
  });

  it('answers calls left without a tool message, drops orphan tool messages, empty turns and bookkeeping', () => {
    const stored = [assistant('', 'a', 'b'), tool('a', 'ok', 'fp1'), tool('zzz'), assistant(''), user('')];
    const out = modelConversation('en', 'go', stored, null);
    expect(out).toEqual([
      user('go'),
      assistant('', 'a', 'b'),
      tool('a'),
      { role: 'tool', callId: 'b', tool: 'lookup', content: renderSkipped('en') },
      user('""'),
    ]);
    expect(refusal(out)).toBeNull();
    expect(stored).toHaveLength(5);
  });

  it('drops blank assistant text (Anthropic refuses whitespace-only text blocks) and blank user text', () => {
    const out = modelConversation('en', 'go', [assistant(' \n', 'a'), tool('a'), user('  ')], null);
    expect(out).toEqual([user('go'), assistant('', 'a'), tool('a'), user('""')]);
  });

  it('never ends on an assistant turn', () => {
    const out = modelConversation('en', 'go', [assistant('thinking')], null);
    expect(out.at(-1)).toEqual(user('The previous round called no tool.'));
    expect(refusal(out)).toBeNull();
  });

  it('keeps the rules after a suspension resolved (skipped calls first, the suspending call last), a follow-up answer, a recovery question and a retry', () => {
    const cases: ConversationMessage[][] = [
      // approval: the call after the suspending one was skipped when the node suspended
      [assistant('', 'a', 'b'), tool('b', renderSkipped('en')), tool('a', '[SUCCESS] approved')],
      // follow-up answered, then the next wave
      [assistant('', 'q'), tool('q', '[SUCCESS] The user answered: yes'), assistant('', 'w'), tool('w')],
      // crash recovery: the write's FAILED message, then the person's answer as a user message
      [assistant('', 'w'), tool('w', '[FAILED] interrupted'), user('it was not created')],
      // retried after MODEL_FAILED / NO_PROGRESS: the notice is a user message
      [assistant('', 'a'), tool('a'), user(retryNotice('en', 'NO_PROGRESS', '5 stalls'))],
      // builtin_node_fail in the middle of a wave: the calls after it were never answered
      [
        assistant('', 'f', 'g', 'h'),
        tool('f', '[SUCCESS] Node failed'),
        user(retryNotice('en', 'FAILED_BY_MODEL', 'cannot')),
      ],
    ];
    for (const stored of cases) {
      const out = modelConversation('en', 'go', stored, 'Required outputs not written yet: x');
      expect(refusal(out), JSON.stringify(stored)).toBeNull();
      expect(out[0]).toEqual(user('go'));
      expect(out.at(-1)).toEqual(user('Required outputs not written yet: x'));
      // A deterministic function of the stored messages.
      expect(modelConversation('en', 'go', stored, 'Required outputs not written yet: x')).toEqual(out);
    }
  });
});

describe('retryNotice', () => {
  it('names the reason and the failure message in both locales', () => {
    expect(retryNotice('en', 'MODEL_FAILED', 'HTTP 529 Overloaded')).toContain(
      'MODEL_FAILED (HTTP 529 Overloaded)',
    );
    expect(retryNotice('zh-CN', 'ROUND_LIMIT', '已达到轮次上限')).toContain('ROUND_LIMIT');
  });
});

describe('ConversationView (the incremental conversation)', () => {
  /** A conversation with everything the rules treat specially, in the order a node run may store it. */
  const stored: ConversationMessage[] = [
    assistant('', 'a1'),
    tool('a1', 'one', 'fp1'),
    assistant('two calls', 'b1', 'b2'),
    tool('b1'),
    user('   '),
    assistant('  '),
    assistant('stray answer'),
    tool('zz'),
    assistant('', 'c1', 'c2'),
    tool('c2', 'second first'),
    tool('c2', 'again'),
    tool('c1', 'late'),
    user('retry'),
    assistant('', 'd1'),
  ];
  const history = [
    { role: 'user' as const, text: 'earlier question' },
    { role: 'assistant' as const, text: 'earlier answer' },
    { role: 'user' as const, text: 'follow-up' },
  ];

  it('gives what modelConversation gives after every appended message, with and without a phase hint', () => {
    for (const [locale, thread] of [
      ['en', []],
      ['zh-CN', history],
    ] as const) {
      const view = new ConversationView(locale, 'go', thread);
      const messages: ConversationMessage[] = [];
      for (const message of stored) {
        messages.push(message);
        for (const newest of [null, 'phase hint']) {
          expect(view.build(messages, newest)).toEqual(
            modelConversation(locale, 'go', messages, newest, thread),
          );
        }
      }
    }
  });

  it('starts afresh for another array or a shorter one, and never changes what it returned', () => {
    const view = new ConversationView('en', 'go');
    const first = view.build(stored, null);
    const copy = structuredClone(first);
    const shorter = stored.slice(0, 5);
    expect(view.build(shorter, null)).toEqual(modelConversation('en', 'go', shorter, null));
    const other = [assistant('', 'x1'), tool('x1')];
    expect(view.build(other, 'hint')).toEqual(modelConversation('en', 'go', other, 'hint'));
    other.push(assistant('', 'x2'));
    expect(view.build(other, null)).toEqual(modelConversation('en', 'go', other, null));
    expect(first).toEqual(copy);
  });
});
