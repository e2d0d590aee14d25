import { afterEach, describe, expect, it } from 'vitest';
import { startStrictFake, type FakeKind, type StrictFake } from '../../src/testing/fake-model/server.js';

/**
 * The strict fakes refuse what the real services refuse, with their status and error shape: the
 * requests the runtime used to send (everything in the system prompt and `messages: []`, or a
 * system-only conversation) among them. A fake that accepted anything would prove nothing.
 */

const open: StrictFake[] = [];
afterEach(async () => {
  for (const fake of open.splice(0)) await fake.close();
});

async function post(
  kind: FakeKind,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown; fake: StrictFake }> {
  const fake = await startStrictFake(kind, () => ({ text: 'ok' }));
  open.push(fake);
  const auth: Record<string, string> =
    kind === 'anthropic'
      ? { 'x-api-key': fake.key, 'anthropic-version': '2023-06-01' }
      : { authorization: `Bearer ${fake.key}` };
  const path = kind === 'anthropic' ? '/messages' : '/chat/completions';
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json(), fake };
}

const anthropic = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'm',
  max_tokens: 100,
  system: 'rules',
  messages,
  ...extra,
});
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'lookup', input: {} });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
/** A 1×1 PNG, base64. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const imageResult = (id: string, mediaType: string, data: string) => ({
  type: 'tool_result',
  tool_use_id: id,
  content: [
    { type: 'text', text: 'the image' },
    { type: 'image', source: { type: 'base64', media_type: mediaType, data } },
  ],
});

describe('the strict Anthropic Messages fake', () => {
  const refused: [string, unknown, RegExp][] = [
    ['no messages (the old first request)', anthropic([]), /at least one message is required/],
    [
      'an empty text block',
      anthropic([{ role: 'user', content: [{ type: 'text', text: '' }] }]),
      /text content blocks must be non-empty/,
    ],
    [
      'a first assistant message',
      anthropic([
        { role: 'assistant', content: 'hi' },
        { role: 'user', content: 'go' },
      ]),
      /first message/,
    ],
    [
      'a final assistant message',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'hi' },
      ]),
      /final message/,
    ],
    [
      'a tool_use without a tool_result after it',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('a'), toolUse('b')] },
        { role: 'user', content: [toolResult('a')] },
      ]),
      /`tool_use` ids were found without `tool_result` blocks immediately after: b/,
    ],
    [
      'a tool_result answering nothing',
      anthropic([{ role: 'user', content: [toolResult('x')] }]),
      /unexpected `tool_use_id` found in `tool_result` blocks: x/,
    ],
    [
      'text before a tool_result',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('a')] },
        { role: 'user', content: [{ type: 'text', text: 'hint' }, toolResult('a')] },
      ]),
      /tool_result blocks must come first/,
    ],
    [
      'an image of a media type the API does not take in a tool_result',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('a')] },
        { role: 'user', content: [imageResult('a', 'image/svg+xml', PNG)] },
      ]),
      /media_type: Input should be 'image\/jpeg', 'image\/png', 'image\/gif' or 'image\/webp'/,
    ],
    [
      'an image over 5 MB in a tool_result',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('a')] },
        { role: 'user', content: [imageResult('a', 'image/png', 'A'.repeat(5 * 1024 * 1024 + 4))] },
      ]),
      /image exceeds 5 MB maximum/,
    ],
    [
      'an audio block in a tool_result',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('a')] },
        { role: 'user', content: [{ ...toolResult('a'), content: [{ type: 'audio', data: 'AAAA' }] }] },
      ]),
      /does not match any of the expected tags: 'text', 'image'/,
    ],
    [
      'a tool name with a dot',
      anthropic([{ role: 'user', content: 'go' }], {
        tools: [{ name: 'cloud.list', input_schema: { type: 'object' } }],
      }),
      /name: String should match pattern/,
    ],
  ];
  it.each(refused)('refuses %s with 400 and the Anthropic error shape', async (_name, body, message) => {
    const { status, json, fake } = await post('anthropic', body);
    expect(status).toBe(400);
    expect(json).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(message) },
    });
    expect(fake.refusals()).toHaveLength(1);
  });

  it('accepts a valid conversation (a PNG in a tool result among it) and refuses a wrong key with 401', async () => {
    const ok = await post(
      'anthropic',
      anthropic([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('a'), toolUse('b')] },
        {
          role: 'user',
          content: [toolResult('a'), imageResult('b', 'image/png', PNG), { type: 'text', text: 'hint' }],
        },
      ]),
    );
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'ok' }] });
    const bad = await post('anthropic', anthropic([{ role: 'user', content: 'go' }]), {
      'x-api-key': 'wrong',
    });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });
});

const openai = (messages: unknown[]) => ({ model: 'm', messages });
const calls = (...ids: string[]) => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'lookup', arguments: '{}' } })),
});
const tool = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'ok' });

describe.each(['openai', 'qwen'] as const)('the strict %s Chat Completions fake', (kind) => {
  const refused: [string, unknown, RegExp][] = [
    [
      'a system-only conversation (the old first request)',
      openai([{ role: 'system', content: 'rules' }]),
      /No user query found in messages/,
    ],
    [
      'a tool message answering nothing',
      openai([{ role: 'user', content: 'go' }, tool('a')]),
      /must be a response to a preceeding message with 'tool_calls'/,
    ],
    [
      'an unanswered tool call',
      openai([
        { role: 'user', content: 'go' },
        calls('a', 'b'),
        tool('a'),
        { role: 'user', content: 'next' },
      ]),
      /did not have response messages: b/,
    ],
    [
      'a trailing assistant message',
      openai([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'hi' },
      ]),
      /final message/,
    ],
    ['no messages', openai([]), /too short/],
    [
      'an image in a tool message (images go in user messages only)',
      openai([
        { role: 'user', content: 'go' },
        calls('a'),
        {
          role: 'tool',
          tool_call_id: 'a',
          content: [
            { type: 'text', text: 'the image' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ]),
      /Invalid value: 'image_url'. Supported values are: 'text'/,
    ],
  ];
  it.each(refused)('refuses %s with 400 and the OpenAI error shape', async (_name, body, message) => {
    const { status, json } = await post(kind, body);
    expect(status).toBe(400);
    expect(json).toMatchObject({
      error: { message: expect.stringMatching(message), type: 'invalid_request_error' },
    });
    expect(Object.keys((json as { error: object }).error).sort()).toEqual([
      'code',
      'message',
      'param',
      'type',
    ]);
  });

  it('accepts a valid conversation', async () => {
    const { status } = await post(
      kind,
      openai([
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'go' },
        calls('a', 'b'),
        tool('a'),
        { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: 'hint' },
      ]),
    );
    expect(status).toBe(200);
  });
});

describe('the Qwen chat template', () => {
  it('refuses a conversation whose only user messages are tool responses, which plain OpenAI accepts', async () => {
    const body = openai([
      { role: 'system', content: 'rules' },
      { role: 'user', content: '<tool_response>x</tool_response>' },
    ]);
    expect((await post('openai', body)).status).toBe(200);
    const qwen = await post('qwen', body);
    expect(qwen.status).toBe(400);
    expect(qwen.json).toMatchObject({ error: { message: 'No user query found in messages.' } });
  });
});
