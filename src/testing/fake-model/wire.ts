/**
 * The wire formats of the model providers a fake model speaks (OpenAI Chat Completions, Anthropic
 * Messages), from one answer independent of the format.
 */
/** What a fake provider answers to one request. */
export type Reply =
  | { status?: number; headers?: Record<string, string>; json: unknown }
  /** Server-Sent Events, written one by one; `hangAfter` keeps the response open after that many. */
  | { status?: number; headers?: Record<string, string>; sse: SseEvent[]; hangAfter?: number }
  /** Never answers (the client must time out or cancel). */
  | { hang: true }
  /** Closes the connection without an answer. */
  | { destroy: true };

/** One Server-Sent Event: `data` is JSON-encoded unless it is a string. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** One model answer, independent of the wire format; `args` is the raw argument string. */
export interface Turn {
  text?: string;
  calls?: { id: string; name: string; args: string }[];
  usage?: { input: number; output: number };
}

/** The wire formats the tests speak. */
export type WireFormat = 'openai-json' | 'openai-sse' | 'anthropic-json' | 'anthropic-sse';

/** The reply of a provider speaking `format` for one turn. */
export function reply(format: WireFormat, turn: Turn): Reply {
  switch (format) {
    case 'openai-json':
      return { json: openaiCompletion(turn) };
    case 'openai-sse':
      return { sse: openaiChunks(turn) };
    case 'anthropic-json':
      return { json: anthropicMessage(turn) };
    case 'anthropic-sse':
      return { sse: anthropicEvents(turn) };
  }
}

/** An OpenAI Chat Completions response body. */
export function openaiCompletion(turn: Turn): unknown {
  const calls = turn.calls ?? [];
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.args },
                })),
              }
            : {}),
        },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: openaiUsage(turn),
  };
}

/** OpenAI Chat Completions stream chunks (arguments split in pieces), ending with usage and `[DONE]`. */
export function openaiChunks(turn: Turn): SseEvent[] {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    data: {
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'test-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of split(turn.text ?? '')) events.push(chunk({ content: piece }));
  (turn.calls ?? []).forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of split(call.args))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, (turn.calls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  events.push({
    data: {
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'test-model',
      choices: [],
      usage: openaiUsage(turn),
    },
  });
  events.push({ data: '[DONE]' });
  return events;
}

/**
 * An Anthropic Messages response body. Arguments that are not JSON go out as the raw string (the real
 * API never does that; it lets scripted turns with broken arguments play on Anthropic too).
 */
export function anthropicMessage(turn: Turn): unknown {
  const content: unknown[] = [];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  for (const call of turn.calls ?? [])
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: jsonOrRaw(call.args) });
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'test-model',
    content,
    stop_reason: (turn.calls ?? []).length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: turn.usage?.input ?? 0, output_tokens: turn.usage?.output ?? 0 },
  };
}

/** Anthropic Messages stream events; tool arguments arrive as `input_json_delta` pieces, as sent. */
export function anthropicEvents(turn: Turn): SseEvent[] {
  const ev = (type: string, data: Record<string, unknown>): SseEvent => ({
    event: type,
    data: { type, ...data },
  });
  const events: SseEvent[] = [
    ev('message_start', {
      message: {
        id: 'msg_test',
        type: 'message',
        role: 'assistant',
        model: 'test-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: turn.usage?.input ?? 0, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (turn.text) {
    events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const piece of split(turn.text))
      events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    events.push(ev('content_block_stop', { index }));
    index += 1;
  }
  for (const call of turn.calls ?? []) {
    events.push(
      ev('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    for (const piece of split(call.args))
      events.push(
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
      );
    events.push(ev('content_block_stop', { index }));
    index += 1;
  }
  events.push(
    ev('message_delta', {
      delta: { stop_reason: (turn.calls ?? []).length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: turn.usage?.output ?? 0 },
    }),
  );
  events.push(ev('message_stop', {}));
  return events;
}

function openaiUsage(turn: Turn): unknown {
  const input = turn.usage?.input ?? 0;
  const output = turn.usage?.output ?? 0;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

/** Splits a string in pieces of up to 7 characters (how deltas arrive on the wire). */
function split(text: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += 7) pieces.push(text.slice(i, i + 7));
  return pieces;
}

function jsonOrRaw(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
