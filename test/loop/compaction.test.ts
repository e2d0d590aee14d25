import { describe, expect, it } from 'vitest';
import { compactConversation, newContextState } from '../../src/loop/compaction.js';
import { estimateMessages } from '../../src/loop/context-budget.js';
import type { ConversationMessage } from '../../src/model/model.js';

const big = (n: number) =>
  JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => `item ${n}-${i} shipped to warehouse`) });

/** A conversation: the input, then `rounds` rounds each reading one large result. */
function conversation(
  rounds: number,
  extra: (i: number) => ConversationMessage[] = () => [],
): ConversationMessage[] {
  const messages: ConversationMessage[] = [{ role: 'user', content: 'read the log' }];
  for (let i = 1; i <= rounds; i += 1) {
    messages.push({
      role: 'assistant',
      text: '',
      toolCalls: [{ callId: `c${i}`, tool: 'read', rawArgs: `{"page":${i}}` }],
    });
    messages.push({
      role: 'tool',
      callId: `c${i}`,
      tool: 'read',
      content: `[SUCCESS] Call of read succeeded (evidence: ev_${i})\n${big(i)}`,
    });
    messages.push(...extra(i));
  }
  return messages;
}

const options = (budget: number) => ({
  budget,
  fixedTokens: 500,
  state: newContextState(),
  locale: 'en' as const,
});

describe('compactConversation', () => {
  it('leaves a conversation within its budget as it is', () => {
    const messages = conversation(3);
    const result = compactConversation(messages, options(1_000_000));
    expect(result.compacted).toBeNull();
    expect(result.messages).toEqual(messages);
    expect(result.state).toEqual(newContextState());
  });

  it('stubs old results (outcome, evidence id, how to read it again), keeps the input and the newest rounds whole', () => {
    const messages = conversation(12);
    const budget = 12_000;
    const result = compactConversation(messages, options(budget));
    expect(result.compacted).not.toBeNull();
    expect(result.compacted!.before).toBeGreaterThan(budget);
    expect(result.compacted!.after).toBeLessThanOrEqual(budget);
    expect(result.compacted!.after).toBe(500 + estimateMessages(result.messages));
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.messages.slice(-4)).toEqual(messages.slice(-4));
    const stub = result.messages.find((m) => m.role === 'tool' && m.content.includes('compacted'));
    expect(stub?.role === 'tool' && stub.content).toMatch(
      /^\[SUCCESS\] Call of read succeeded \(evidence: ev_\d+\)\n\[result compacted \(\d+ characters\); builtin_evidence_read \{"id":"ev_\d+"\} shows it again\]$/,
    );
    expect(result.state.compactions).toBe(1);
    expect(result.state.stubbed).toBeGreaterThan(0);
  });

  it('a stubbed result drops its images; the newest rounds keep theirs', () => {
    const image = { mimeType: 'image/png', data: 'iVBORw0KGgo=', bytes: 8, sha256: 'a'.repeat(64) };
    const messages = conversation(12).map((m) => (m.role === 'tool' ? { ...m, images: [image] } : m));
    const result = compactConversation(messages, options(12_000));
    const stubs = result.messages.filter((m) => m.role === 'tool' && m.content.includes('compacted'));
    expect(stubs.length).toBeGreaterThan(0);
    for (const stub of stubs) expect(stub.role === 'tool' && stub.images).toBeUndefined();
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', images: [image] });
  });

  it('folds the oldest rounds into a digest listing every call, its outcome and evidence id', () => {
    const messages = conversation(60);
    const result = compactConversation(messages, options(8_000));
    expect(result.state.dropped).toBeGreaterThan(0);
    const digest = result.messages[1];
    expect(digest?.role).toBe('user');
    const text = digest?.role === 'user' ? digest.content : '';
    expect(text).toContain(`Rounds 1–${result.state.dropped} of this node were compacted`);
    expect(text).toContain('- read {"page":3} → [SUCCESS] Call of read succeeded (evidence: ev_3)');
    // The conversation after the digest still starts with a model answer whose calls are all answered.
    expect(result.messages[2]?.role).toBe('assistant');
  });

  it('never drops a non-success reason and next step, nor a result without evidence id, nor user messages', () => {
    const failed = `[FAILED TOOL_BUSINESS_FAILED] Business failure [E42]: quota exceeded. Next: explain it to the user (evidence: ev_f)\n${big(0)}`;
    const messages = conversation(40, (i) =>
      i === 2
        ? [
            {
              role: 'assistant',
              text: '',
              toolCalls: [
                { callId: 'x2', tool: 'write', rawArgs: '{}' },
                { callId: 'y2', tool: 'ask', rawArgs: '{}' },
              ],
            },
            { role: 'tool', callId: 'x2', tool: 'write', content: failed.replace('ev_f', 'ev_99') },
            {
              role: 'tool',
              callId: 'y2',
              tool: 'ask',
              content: '[SUCCESS] The user answered: blue\n{"answer":"blue, the dark one"}',
            },
            { role: 'user', content: 'The previous round called no tool.' },
          ]
        : [],
    );
    for (const budget of [30_000, 6_000]) {
      const result = compactConversation(messages, options(budget));
      const all = result.messages.map((m) => (m.role === 'assistant' ? '' : m.content)).join('\n');
      expect(all).toContain(
        'Business failure [E42]: quota exceeded. Next: explain it to the user (evidence: ev_99)',
      );
      expect(all).toContain('[SUCCESS] The user answered: blue');
      expect(all).toContain('{"answer":"blue, the dark one"}');
      expect(all).toContain('The previous round called no tool.');
    }
  });

  it('is deterministic and only grows: the persisted state reproduces the same request', () => {
    const messages = conversation(30);
    const first = compactConversation(messages, options(10_000));
    const again = compactConversation(messages, options(10_000));
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    // The next request (one more round) under the persisted state starts with the same prefix.
    const next = conversation(31);
    const later = compactConversation(next, { ...options(10_000), state: first.state });
    expect(later.state.stubbed).toBeGreaterThanOrEqual(first.state.stubbed);
    expect(later.state.dropped).toBeGreaterThanOrEqual(first.state.dropped);
    expect(later.compacted).toBeNull();
    expect(JSON.stringify(later.messages.slice(0, first.messages.length))).toBe(
      JSON.stringify(first.messages),
    );
  });

  it('counts the provider-reported input tokens of the previous call', () => {
    const messages = conversation(4);
    const state = { ...newContextState(), last: { inputTokens: 50_000, messages: messages.length } };
    const result = compactConversation(messages, { ...options(40_000), state });
    expect(result.compacted?.before).toBe(50_000);
    expect(result.state.last).toBeNull();
  });
});
