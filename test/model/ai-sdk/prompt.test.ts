import { describe, expect, it } from 'vitest';
import { safeCallId, toPrompt } from '../../../src/model/ai-sdk/prompt.js';
import { fromContent, fromStream, toUsage } from '../../../src/model/ai-sdk/response.js';
import { PromptConverter } from '../../../src/model/ai-sdk/prompt-cache.js';
import type { ConversationMessage } from '../../../src/model/model.js';

describe('toPrompt', () => {
  it('keeps ids and raw argument strings, groups a wave of tool results, leaves out empty turns', () => {
    const prompt = toPrompt('rules', [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [
          { callId: 'call_1', tool: 'a', rawArgs: '{"x":1}' },
          { callId: 'fc.2/x', tool: 'b', rawArgs: '{not json' },
        ],
      },
      { role: 'tool', callId: 'call_1', tool: 'a', content: 'ok' },
      { role: 'tool', callId: 'fc.2/x', tool: 'b', content: 'rejected' },
      { role: 'assistant', text: '', toolCalls: [] },
      { role: 'user', content: 'answer' },
    ]);
    expect(prompt).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'a', input: '{"x":1}' },
          { type: 'tool-call', toolCallId: 'fc_2_x', toolName: 'b', input: '{not json' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'a', output: { type: 'text', value: 'ok' } },
          {
            type: 'tool-result',
            toolCallId: 'fc_2_x',
            toolName: 'b',
            output: { type: 'text', value: 'rejected' },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'answer' }] },
    ]);
  });

  it("puts a tool result's images the policy accepts after its text, as file parts; none without a policy", () => {
    const png = { mimeType: 'image/png', data: 'iVBORw0KGgo=', bytes: 8, sha256: 'a'.repeat(64) };
    const svg = { mimeType: 'image/svg+xml', data: 'PHN2Zz4=', bytes: 5, sha256: 'b'.repeat(64) };
    const messages: ConversationMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', text: '', toolCalls: [{ callId: 'c1', tool: 'img', rawArgs: '{}' }] },
      { role: 'tool', callId: 'c1', tool: 'img', content: '[{"type":"image"}]', images: [png, svg] },
    ];
    const pngOnly = (image: { mimeType: string }) => image.mimeType === 'image/png';
    expect(toPrompt('', messages, false, pngOnly).at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'img',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: '[{"type":"image"}]' },
              { type: 'file', data: { type: 'data', data: 'iVBORw0KGgo=' }, mediaType: 'image/png' },
            ],
          },
        },
      ],
    });
    const plain = { type: 'text', value: '[{"type":"image"}]' };
    expect(toPrompt('', messages).at(-1)).toMatchObject({ content: [{ output: plain }] });
    expect(toPrompt('', messages, false, () => false).at(-1)).toMatchObject({ content: [{ output: plain }] });
    // The incremental converter tells a message with other images apart from the same text without.
    const converter = new PromptConverter(pngOnly);
    expect(converter.convert('', messages)).toEqual(toPrompt('', messages, false, pngOnly));
    const without = [...messages.slice(0, 2), { ...messages[2]!, images: [] } as ConversationMessage];
    expect(converter.convert('', without)).toEqual(toPrompt('', without));
  });

  it('makes call ids safe for every provider', () => {
    expect(safeCallId('toolu_01A-b')).toBe('toolu_01A-b');
    expect(safeCallId('call:1 2')).toBe('call_1_2');
    expect(safeCallId('')).toBe('call');
  });
});

describe('responses', () => {
  it('reads v4 content, ignoring provider-executed calls and other parts', () => {
    const content = [
      { type: 'reasoning', text: 'thinking' },
      { type: 'text', text: 'a' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 't', input: '{"q":1}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'web_search', input: '{}', providerExecuted: true },
      { type: 'text', text: 'b' },
    ];
    expect(fromContent(content, { inputTokens: { total: 5 }, outputTokens: { total: 2 } })).toEqual({
      text: 'ab',
      toolCalls: [{ callId: 'c1', tool: 't', rawArgs: '{"q":1}' }],
      usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
    });
  });

  it('reads v2 flat usage and missing usage as zero', () => {
    expect(toUsage({ inputTokens: 3, outputTokens: 4 })).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
    });
    expect(toUsage({ inputTokens: { total: undefined }, outputTokens: {} })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
    expect(toUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it('fails a stream with an error part or without a finish', async () => {
    const stream = (parts: unknown[]) =>
      new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) });
    await expect(
      fromStream(
        stream([
          { type: 'text-delta', id: '0', delta: 'x' },
          { type: 'error', error: { message: 'overloaded' } },
        ]),
      ),
    ).rejects.toThrow('overloaded');
    await expect(fromStream(stream([{ type: 'text-delta', id: '0', delta: 'x' }]))).rejects.toThrow(
      'ended before the model finished',
    );
    await expect(
      fromStream(
        stream([
          { type: 'text-delta', id: '0', delta: 'x' },
          { type: 'finish', usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } },
        ]),
      ),
    ).resolves.toEqual({
      text: 'x',
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    });
  });
});

describe('PromptConverter (incremental conversion)', () => {
  const a = (text: string, ...ids: string[]): ConversationMessage => ({
    role: 'assistant',
    text,
    toolCalls: ids.map((id) => ({ callId: id, tool: 'lookup', rawArgs: `{"id":"${id}"}` })),
  });
  const t = (callId: string, content = 'ok'): ConversationMessage => ({
    role: 'tool',
    callId,
    tool: 'lookup',
    content,
  });
  const u = (content: string): ConversationMessage => ({ role: 'user', content });

  it('converts each request like toPrompt, keeps what it returned, and follows a changed tail', () => {
    const converter = new PromptConverter();
    const stored: ConversationMessage[] = [u('go')];
    const returned: { prompt: unknown; copy: unknown }[] = [];
    const check = (messages: ConversationMessage[], cache: boolean): void => {
      const prompt = converter.convert('system', messages, cache);
      expect(prompt).toEqual(toPrompt('system', messages, cache));
      returned.push({ prompt, copy: structuredClone(prompt) });
    };
    for (let round = 1; round <= 6; round += 1) {
      stored.push(a(round % 2 === 0 ? 'thinking' : '', `c${round}a`, `c${round}b`));
      // The loop's request: the unanswered calls answered as skipped in this request only.
      check([...stored, t(`c${round}a`, '[SKIPPED]'), t(`c${round}b`, '[SKIPPED]'), u('hint')], true);
      stored.push(t(`c${round}a`, `result ${round}`));
      check([...stored, t(`c${round}b`, '[SKIPPED]')], false);
      stored.push(t(`c${round}b`, `result ${round} b`));
      check([...stored, u('hint')], true);
    }
    // Compaction replaces a range by equal-content copies and by a digest: still the same as toPrompt.
    const compacted = [u('go'), u('digest of rounds 1-3'), ...stored.slice(7).map((m) => ({ ...m }))];
    check(compacted, true);
    check([], false);
    check(stored, true);
    for (const { prompt, copy } of returned) expect(prompt).toEqual(copy);
  });
});
