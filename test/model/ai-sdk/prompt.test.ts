import { describe, expect, it } from 'vitest';
import { safeCallId, toPrompt } from '../../../src/model/ai-sdk/prompt.js';
import { fromContent, fromStream, toUsage } from '../../../src/model/ai-sdk/response.js';

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
