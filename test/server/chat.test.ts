import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolKit, type ToolKit } from '../runtime/helpers.js';
import { TOKENS, startServer, tempDir, type TestServer } from './helpers.js';

/**
 * Issue 29: `POST /v1/threads/{threadId}/chat` speaks what useChat speaks — checked with the `ai`
 * package's own transport (the request) and reader (the UI message stream), over real HTTP.
 */

const ASK = `id: ask
locale: en
model: scripted:./turns.yaml
nodes:
  - { id: talk, answer: text, tools: [lookup] }
`;
const ASK_TURNS = `turns:
  - { calls: [{ tool: lookup, args: { id: 7 } }] }
  - { text: item-7 owns the printer ticket. }
`;
const SAVE = `id: save
locale: en
model: scripted:./turns.yaml
tools:
  save: { write: true, params: { name: { source: user } } }
nodes:
  - { id: talk, answer: text, tools: [save] }
`;
const SAVE_TURNS = `turns:
  - { calls: [{ tool: save, args: { name: kiosk } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: save, summary: Save kiosk } }] }
  - { calls: [{ tool: save, args: { name: kiosk } }] }
  - { text: Saved as kiosk. }
`;

let t: TestServer;
let kit: ToolKit;
beforeAll(async () => {
  kit = toolKit();
  const flowsDir = await tempDir({
    'ask/flow.yaml': ASK,
    'ask/turns.yaml': ASK_TURNS,
    'save/flow.yaml': SAVE,
    'save/turns.yaml': SAVE_TURNS,
  });
  t = await startServer({ flowsDir, runtime: { store: 'memory', logger: false, tools: kit.tools } });
});
afterAll(async () => {
  await t.stop();
});

function transport(threadId: string, flowId: string): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport<UIMessage>({
    api: `${t.url}/v1/threads/${threadId}/chat`,
    headers: { authorization: `Bearer ${TOKENS.operator}` },
    body: { flowId },
  });
}

/** Sends like useChat and reads the answer with the ai package's reader; the last message state. */
async function send(
  threadId: string,
  flowId: string,
  messages: UIMessage[],
  continuing?: UIMessage,
): Promise<UIMessage> {
  const stream = await transport(threadId, flowId).sendMessages({
    chatId: threadId,
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({
    stream,
    ...(continuing ? { message: continuing } : {}),
    terminateOnError: true,
  }))
    last = message;
  if (!last) throw new Error('no message in the stream');
  return structuredClone(last);
}

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const texts = (m: UIMessage) =>
  m.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);

describe('POST /v1/threads/{threadId}/chat', () => {
  it('answers a v1 UI message stream whose text holds the reply, tool parts carrying our outcome', async () => {
    const res = await t.call('POST', '/v1/threads/T2/chat', {
      token: TOKENS.operator,
      json: {
        id: 'T2',
        messages: [user('u0', 'Who owns the printer ticket?')],
        trigger: 'submit-message',
        flowId: 'ask',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const body = await res.text();
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);

    const reply = await send('T3', 'ask', [user('u1', 'Who owns the printer ticket?')]);
    expect(reply.role).toBe('assistant');
    expect(texts(reply)).toEqual(['item-7 owns the printer ticket.']);
    const tool = reply.parts.find((p) => p.type === 'dynamic-tool') as Record<string, unknown> | undefined;
    expect(tool).toMatchObject({
      toolName: 'lookup',
      state: 'output-available',
      input: { id: 7 },
      output: { id: 7, name: 'item-7' },
      toolMetadata: { outcome: 'SUCCESS', evidenceId: 'ev_1' },
    });
  });

  it('two messages, then the approval given in the UI approves exactly the pending write', async () => {
    const m1 = user('u1', 'Who owns the printer ticket? Save it as kiosk.');
    const a1 = await send('T4', 'ask', [m1]);
    expect(texts(a1)).toEqual(['item-7 owns the printer ticket.']);
    const m2 = user('u2', 'Save it now');
    const a2 = await send('T4', 'save', [m1, a1, m2]);
    const gated = a2.parts.find((p) => p.type === 'dynamic-tool') as Record<string, unknown> | undefined;
    expect(gated).toMatchObject({ toolName: 'save', state: 'approval-requested', input: { name: 'kiosk' } });
    const approval = gated?.approval as { id: string };
    expect(approval.id).toMatch(/^pnd_/);
    expect(kit.count('save')).toBe(0);

    // What useChat's addToolApprovalResponse does to the part, then sends again.
    const responded = structuredClone(a2);
    const part = responded.parts.find((p) => p.type === 'dynamic-tool') as Record<string, unknown>;
    part.state = 'approval-responded';
    part.approval = { id: approval.id, approved: true };
    // An approval for another pending item is refused, nothing changed.
    const wrong = structuredClone(responded);
    (
      (wrong.parts.find((p) => p.type === 'dynamic-tool') as Record<string, unknown>).approval as {
        id: string;
      }
    ).id = 'pnd_0000000000000000';
    const refused = await t.call('POST', '/v1/threads/T4/chat', {
      token: TOKENS.operator,
      json: { id: 'T4', messages: [m1, a1, m2, wrong], trigger: 'submit-message', flowId: 'save' },
    });
    expect(refused.status, await refused.clone().text()).toBe(409);
    expect(kit.count('save')).toBe(0);

    const a3 = await send('T4', 'save', [m1, a1, m2, responded], structuredClone(responded));
    const saved = a3.parts.find((p) => p.type === 'dynamic-tool') as Record<string, unknown>;
    expect(saved).toMatchObject({ toolName: 'save', state: 'output-available', output: { saved: 'kiosk' } });
    expect(texts(a3)).toContain('Saved as kiosk.');
    expect(kit.count('save')).toBe(1);

    // The same approval again is single use: the run no longer waits for it.
    const again = await t.call('POST', '/v1/threads/T4/chat', {
      token: TOKENS.operator,
      json: { id: 'T4', messages: [m1, a1, m2, responded], trigger: 'submit-message', flowId: 'save' },
    });
    expect(again.status, await again.clone().text()).toBe(409);
    const thread = (await (await t.call('GET', '/v1/threads/T4', { token: TOKENS.viewer })).json()) as {
      messages: { kind: string; text: string }[];
    };
    expect(thread.messages.filter((m) => m.kind === 'reply').map((m) => m.text)).toEqual([
      'item-7 owns the printer ticket.',
      'Saved as kiosk.',
    ]);
  });
});
