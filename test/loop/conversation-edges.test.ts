/**
 * Edges of the conversation a model call sends (src/loop/conversation.ts) not asserted by
 * test/loop/conversation.test.ts: how the run input is rendered, a thread's history before the
 * opening message, duplicate and stray tool messages, and a stored array changed under the view.
 */
import { describe, expect, it } from 'vitest';
import {
  ConversationView,
  modelConversation,
  openingMessage,
  renderInput,
  retryNotice,
} from '../../src/loop/conversation.js';
import { renderSkipped } from '../../src/loop/render.js';
import type { ConversationMessage } from '../../src/model/model.js';
import type { ThreadTurn } from '../../src/records/run-state.js';

const user = (content: string): ConversationMessage => ({ role: 'user', content });
const assistant = (text: string, ...ids: string[]): ConversationMessage => ({
  role: 'assistant',
  text,
  toolCalls: ids.map((callId) => ({ callId, tool: 'lookup', rawArgs: '{}' })),
});
const tool = (callId: string, content = 'ok'): ConversationMessage => ({
  role: 'tool',
  callId,
  tool: 'lookup',
  content,
});
const skipped = (callId: string): ConversationMessage => tool(callId, renderSkipped('en'));
const turn = (role: 'user' | 'assistant', text: string): ThreadTurn => ({ role, text });

describe('renderInput', () => {
  it('is the text alone only for an object whose one key is a string text', () => {
    expect(renderInput({ text: 'Order item 7' })).toBe('Order item 7');
    expect(renderInput({ text: '' })).toBe('');
    expect(renderInput({ text: 7 })).toBe('{"text":7}');
    expect(renderInput({ text: 'a', extra: 1 })).toBe('{"text":"a","extra":1}');
    expect(renderInput({ Text: 'a' })).toBe('{"Text":"a"}');
  });

  it('is JSON for anything else, and "null" for what JSON cannot say', () => {
    expect(renderInput(null)).toBe('null');
    expect(renderInput(undefined)).toBe('null');
    expect(renderInput('plain')).toBe('"plain"');
    expect(renderInput(42)).toBe('42');
    expect(renderInput([{ text: 'a' }])).toBe('[{"text":"a"}]');
    expect(renderInput({})).toBe('{}');
    expect(renderInput({ a: { b: [1, 'two'] } })).toBe('{"a":{"b":[1,"two"]}}');
  });
});

describe('openingMessage', () => {
  it('shows a blank input as "" in both forms, and earlier outputs under English headings', () => {
    expect(openingMessage({ locale: 'en', input: { text: '  \n ' }, earlierOutputs: {} })).toBe('""');
    expect(
      openingMessage({ locale: 'en', input: { text: ' ' }, earlierOutputs: { plan: { n: 1 }, look: {} } }),
    ).toBe('## User input\n""\n\n## Outputs of earlier nodes\n{"plan":{"n":1},"look":{}}');
    expect(openingMessage({ locale: 'en', input: { a: 1 }, earlierOutputs: { plan: { n: 1 } } })).toBe(
      '## User input\n{"a":1}\n\n## Outputs of earlier nodes\n{"plan":{"n":1}}',
    );
  });
});

describe('retryNotice', () => {
  it('is a heading and the hint, exactly, in both locales', () => {
    const en = retryNotice('en', 'NO_PROGRESS', '5 stalls');
    expect(en.split('\n')[0]).toBe('## Retry');
    expect(en).toContain('NO_PROGRESS (5 stalls)');
    expect(retryNotice('zh-CN', 'NO_PROGRESS', '5 stalls').split('\n')[0]).toBe('## 重试');
  });
});

describe('modelConversation with a thread history', () => {
  it('puts the earlier turns first and joins the opening to a last user turn', () => {
    const history = [
      turn('user', 'hello'),
      turn('assistant', 'hi, how can I help?'),
      turn('user', 'order 7'),
    ];
    expect(modelConversation('en', 'go', [], null, history)).toEqual([
      user('hello'),
      { role: 'assistant', text: 'hi, how can I help?', toolCalls: [] },
      user('order 7\n\ngo'),
    ]);
  });

  it('adds the opening as its own message after a last assistant turn', () => {
    const history = [turn('user', 'hello'), turn('assistant', 'hi')];
    expect(modelConversation('en', 'go', [], 'hint', history)).toEqual([
      user('hello'),
      { role: 'assistant', text: 'hi', toolCalls: [] },
      user('go'),
      user('hint'),
    ]);
  });

  it('drops assistant turns before the first user turn and blank turns, and joins turns of one role in a row', () => {
    const history = [
      turn('assistant', 'welcome!'),
      turn('user', ' '),
      turn('user', 'first'),
      turn('user', 'second'),
      turn('assistant', ''),
      turn('assistant', 'one'),
      turn('assistant', 'two'),
    ];
    expect(modelConversation('en', 'go', [], null, history)).toEqual([
      user('first\n\nsecond'),
      { role: 'assistant', text: 'one\n\ntwo', toolCalls: [] },
      user('go'),
    ]);
  });

  it('with a history of assistant turns only, starts with the opening', () => {
    expect(modelConversation('en', 'go', [], null, [turn('assistant', 'a'), turn('assistant', 'b')])).toEqual(
      [user('go')],
    );
  });

  it('shows a blank opening as "" also after a history', () => {
    expect(modelConversation('en', '   ', [], null, [turn('user', 'hi')])).toEqual([user('hi\n\n""')]);
  });

  it('never changes the history it is given', () => {
    const history = [turn('user', 'a'), turn('user', 'b')];
    const copy = structuredClone(history);
    modelConversation('en', 'go', [], null, history);
    new ConversationView('en', 'go', history).build([], null);
    expect(history).toEqual(copy);
  });
});

describe('modelConversation: tool messages', () => {
  it('keeps only the first answer of a call and drops a tool message after a user message', () => {
    const stored = [
      assistant('', 'a'),
      tool('a', 'first'),
      tool('a', 'second'),
      user('more'),
      tool('a', 'late'),
    ];
    expect(modelConversation('en', 'go', stored, null)).toEqual([
      user('go'),
      assistant('', 'a'),
      tool('a', 'first'),
      user('more'),
    ]);
  });

  it('drops a tool message before any model answer', () => {
    expect(modelConversation('en', 'go', [tool('a'), user('x')], null)).toEqual([user('go'), user('x')]);
  });

  it('answers the unanswered calls of a turn as skipped before the next turn, in call order', () => {
    const stored = [assistant('', 'a', 'b', 'c'), tool('b'), assistant('next', 'd'), tool('d')];
    expect(modelConversation('en', 'go', stored, null)).toEqual([
      user('go'),
      assistant('', 'a', 'b', 'c'),
      tool('b'),
      skipped('a'),
      skipped('c'),
      assistant('next', 'd'),
      tool('d'),
    ]);
  });

  it('skips the open calls of the last turn in this request only, before the phase hint', () => {
    const stored = [assistant('', 'a', 'b'), tool('a')];
    expect(modelConversation('en', 'go', stored, 'hint')).toEqual([
      user('go'),
      assistant('', 'a', 'b'),
      tool('a'),
      skipped('b'),
      user('hint'),
    ]);
    // the late answer then replaces the skip
    expect(modelConversation('en', 'go', [...stored, tool('b', 'late')], null)).toEqual([
      user('go'),
      assistant('', 'a', 'b'),
      tool('a'),
      tool('b', 'late'),
    ]);
  });

  it('keeps an assistant turn with text and no call, and ends with the no-call hint in the run locale', () => {
    expect(modelConversation('zh-CN', 'go', [assistant('我想想')], null)).toEqual([
      user('go'),
      assistant('我想想'),
      user('上一轮没有调用任何工具。'),
    ]);
    // a phase hint takes the place of the no-call hint
    expect(modelConversation('en', 'go', [assistant('thinking')], 'hint').at(-1)).toEqual(user('hint'));
  });

  it('sends a trimmed-blank assistant text as "" but keeps surrounding white space of a real text', () => {
    const out = modelConversation('en', 'go', [assistant('  keep me  ', 'a'), tool('a')], null);
    expect(out[1]).toEqual(assistant('  keep me  ', 'a'));
  });
});

describe('ConversationView', () => {
  it('starts afresh when the last message it saw was replaced in the same array', () => {
    const view = new ConversationView('en', 'go');
    const stored = [user('first'), user('second')];
    expect(view.build(stored, null)).toEqual([user('go'), user('first'), user('second')]);
    stored[1] = user('replaced');
    expect(view.build(stored, null)).toEqual([user('go'), user('first'), user('replaced')]);
  });

  it('builds the same for the same array twice and returns a new array each time', () => {
    const view = new ConversationView('en', 'go');
    const stored = [assistant('', 'a')];
    const first = view.build(stored, 'hint');
    const second = view.build(stored, 'hint');
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    first.push(user('changed by the caller'));
    expect(view.build(stored, null)).toEqual([user('go'), assistant('', 'a'), skipped('a')]);
  });
});
