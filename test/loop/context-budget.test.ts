/**
 * The request size estimate and the default context budgets (src/loop/context-budget.ts,
 * docs/flows.md "Context budget and compaction"): exact counts of the documented rules.
 */
import { describe, expect, it } from 'vitest';
import {
  KNOWN_CONTEXT_BUDGETS,
  contextBudget,
  estimateFixed,
  estimateMessage,
  estimateMessages,
  estimateRequest,
  estimateText,
} from '../../src/loop/context-budget.js';
import type { ConversationMessage, ModelTool } from '../../src/model/model.js';

describe('estimateText', () => {
  it('counts an ASCII character as a third of a token, rounded up over the whole text', () => {
    expect(estimateText('')).toBe(0);
    expect(estimateText('a')).toBe(1);
    expect(estimateText('abc')).toBe(1);
    expect(estimateText('abcd')).toBe(2);
    expect(estimateText('abcdef')).toBe(2);
    expect(estimateText('x'.repeat(3000))).toBe(1000);
    // DEL (127) is still ASCII
    expect(estimateText('\x7f\x7f\x7f')).toBe(1);
  });

  it('counts twice a character a JSON body escapes: quote, backslash, control characters', () => {
    expect(estimateText('"')).toBe(1); // 2 thirds, rounded up
    expect(estimateText('"""')).toBe(2); // 6 thirds
    expect(estimateText('\\\\\\')).toBe(2);
    expect(estimateText('\n\t\r')).toBe(2);
    expect(estimateText('\x00\x1f')).toBe(2); // 4 thirds
    // a space (0x20) and a single quote are not escaped
    expect(estimateText("   '''")).toBe(2);
    expect(estimateText('{"a":1}')).toBe(3); // 5 plain + 2 quotes × 2 = 9 thirds
  });

  it('counts any other character one token, and a surrogate pair (emoji) once', () => {
    expect(estimateText('中文')).toBe(2);
    expect(estimateText('é')).toBe(1);
    expect(estimateText('😀')).toBe(1);
    expect(estimateText('😀😀')).toBe(2);
    // ASCII and the rest are counted apart: ceil(1/3) + 1
    expect(estimateText('a中')).toBe(2);
    expect(estimateText('abc中文def')).toBe(4);
    // a lone low surrogate adds nothing; a lone high surrogate counts as one
    expect(estimateText('\udc00')).toBe(0);
    expect(estimateText('\ud83d')).toBe(1);
  });

  it('depends only on the text', () => {
    const text = 'Order 7 "urgent"\n订单七 ✓';
    expect(estimateText(text)).toBe(estimateText(`${text}`));
    expect(estimateText(text)).toBe(Math.ceil((14 + 2 * 2 + 2 + 1) / 3) + 4);
  });
});

describe('estimateMessage', () => {
  it('adds 16 tokens of wrapping to a user message', () => {
    expect(estimateMessage({ role: 'user', content: '' })).toBe(16);
    expect(estimateMessage({ role: 'user', content: 'abc' })).toBe(17);
    expect(estimateMessage({ role: 'user', content: '中文' })).toBe(18);
  });

  it('counts a tool message by its call id and content (not its tool name)', () => {
    const message: ConversationMessage = { role: 'tool', callId: 'c1', tool: 'lookup', content: 'abcdef' };
    expect(estimateMessage(message)).toBe(16 + 1 + 2);
    expect(estimateMessage({ ...message, tool: 'a-much-longer-tool-name' })).toBe(16 + 1 + 2);
  });

  it('counts an assistant turn: its text, then 16 more per call and the call id, tool and arguments', () => {
    expect(estimateMessage({ role: 'assistant', text: '', toolCalls: [] })).toBe(16);
    expect(estimateMessage({ role: 'assistant', text: 'abc', toolCalls: [] })).toBe(17);
    const calls = [
      { callId: 'c1', tool: 'lookup', rawArgs: '{}' }, // "c1lookup{}": 10 chars → 4
      { callId: 'c2', tool: 'save', rawArgs: '{"n":1}' }, // "c2save" 6 + "{"n":1}" 3 plain + 2 quotes → 13 → 5
    ];
    expect(estimateMessage({ role: 'assistant', text: '', toolCalls: calls })).toBe(16 + (16 + 4) + (16 + 5));
  });
});

describe('estimateMessages, estimateFixed and estimateRequest', () => {
  it('sums the messages, counting a message given twice twice', () => {
    const a: ConversationMessage = { role: 'user', content: 'abc' };
    const b: ConversationMessage = { role: 'tool', callId: 'c', tool: 't', content: 'abcd' };
    expect(estimateMessages([])).toBe(0);
    expect(estimateMessages([a, b])).toBe(17 + 19);
    expect(estimateMessages([a, a, a])).toBe(51);
  });

  it('counts the system prompt as a message, and 32 tokens plus name, description and schema per tool', () => {
    expect(estimateFixed('', [])).toBe(16);
    expect(estimateFixed('abc', [])).toBe(17);
    const tool: ModelTool = { name: 'abc', description: 'abcdef', inputSchema: {} };
    // {} as JSON: 2 characters → 1
    expect(estimateFixed('', [tool])).toBe(16 + 32 + 1 + 2 + 1);
    const schema = { type: 'object' }; // {"type":"object"}: 13 plain + 4 quotes × 2 → 21 thirds → 7
    expect(estimateFixed('', [{ ...tool, inputSchema: schema }])).toBe(16 + 32 + 1 + 2 + 7);
    expect(estimateFixed('', [tool, tool])).toBe(16 + 2 * (32 + 1 + 2 + 1));
  });

  it('estimates a whole request as its fixed part plus its messages', () => {
    const tools: ModelTool[] = [{ name: 'lookup', description: 'Find', inputSchema: {} }];
    const messages: ConversationMessage[] = [
      { role: 'user', content: 'find 7' },
      { role: 'assistant', text: '', toolCalls: [{ callId: 'c1', tool: 'lookup', rawArgs: '{}' }] },
    ];
    expect(estimateRequest({ system: 'rules', tools, messages })).toBe(
      estimateFixed('rules', tools) + estimateMessages(messages),
    );
    expect(estimateRequest({ system: 'rules', tools, messages })).toBe(18 + 37 + 18 + 36);
  });
});

describe('contextBudget', () => {
  it('takes an explicit budget first, whatever the model, even for an unknown one', () => {
    expect(contextBudget(32_000, 'openai:gpt-4o')).toBe(32_000);
    expect(contextBudget(1, 'scripted:./turns.yaml')).toBe(1);
    expect(contextBudget(0, 'scripted:x')).toBe(0);
  });

  it('gives the documented default by the prefix of the model id after the provider', () => {
    const cases: [string, number][] = [
      ['openai:gpt-4.1', 800_000],
      ['openai:gpt-4.1-mini', 800_000],
      ['openai:gpt-4o-mini', 100_000],
      ['openai:gpt-5-nano', 300_000],
      ['openai:o3-mini', 160_000],
      ['openai:o4-mini-high', 160_000],
      ['anthropic:claude-sonnet-4-5', 160_000],
      ['dashscope:qwen-max-latest', 26_000],
      ['dashscope:qwen-plus', 100_000],
      ['dashscope:qwen-turbo-2025', 800_000],
      ['dashscope:qwen-long', 800_000],
      ['deepseek:deepseek-chat', 50_000],
      ['deepseek:deepseek-reasoner', 50_000],
      // without a provider, the whole name is the model id
      ['gpt-4o', 100_000],
      ['claude-3-haiku', 160_000],
      // behind a gateway, the last part of its vendor path; of a fine-tune, its base model
      ['openrouter:anthropic/claude-sonnet-4', 160_000],
      ['openrouter:openai/gpt-4o-mini', 100_000],
      ['gateway:deepseek/deepseek-chat:free', 50_000],
      ['openai:ft:gpt-4o-mini-2024-07-18:acme::9abc', 100_000],
      ['openai:ft:o4-mini-2025-04-16:acme:triage:Xy12', 160_000],
    ];
    for (const [name, tokens] of cases) expect(contextBudget(undefined, name), name).toBe(tokens);
  });

  it('is null (no compaction) for a model it does not know, a prefix that only nearly matches, or another case', () => {
    for (const name of [
      'scripted:./turns.yaml',
      'openai:gpt-4',
      'openai:gpt-4-turbo',
      'openai:o4',
      'openai:o1',
      'anthropic:claude',
      'openai:GPT-4o',
      'dashscope:qwen3-coder',
      'ollama:llama3',
      '',
      'openrouter:meta-llama/llama-3.1-70b',
      'openai:ft:babbage-002:acme::x1',
      // a path, a tag or a fine-tune's suffix or id never matches: only the model's own name does
      'scripted:/home/me/o3-evals/turns.yaml',
      'scripted:/srv/claude-demo/turns.yaml',
      'openai:ft:babbage-002:acme:o3-distill:AbC123',
      'openai:ft:gpt-3.5-turbo-0125:acme::o3Xk9aQ1',
      'openai-compatible:o3de/llama-3-8b',
      'ollama:llama3:o3',
      'openrouter:anthropic:claude-3',
    ])
      expect(contextBudget(undefined, name), name).toBeNull();
  });

  it('matches the model id only, never the provider name', () => {
    expect(contextBudget(undefined, 'claude-proxy:llama3')).toBeNull();
    expect(contextBudget(undefined, 'gpt-4o:custom')).toBeNull();
  });

  it('lists the table of docs/flows.md, frozen', () => {
    expect(Object.isFrozen(KNOWN_CONTEXT_BUDGETS)).toBe(true);
    expect(KNOWN_CONTEXT_BUDGETS.map((k) => `${k.prefix} ${k.tokens}`)).toEqual([
      'gpt-4.1 800000',
      'gpt-4o 100000',
      'gpt-5 300000',
      'o3 160000',
      'o4-mini 160000',
      'claude- 160000',
      'qwen-max 26000',
      'qwen-plus 100000',
      'qwen-turbo 800000',
      'qwen-long 800000',
      'deepseek-chat 50000',
      'deepseek-reasoner 50000',
    ]);
  });
});
