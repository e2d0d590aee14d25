import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { TOKENS, startServer, tempDir, type TestServer } from './helpers.js';

/**
 * Steering through the chat stream (docs/threads.md#usechat): a user message while the thread's last
 * run is running is a steering message to that run, not a new run; the answer streams that run on, and
 * the model's next round has the words.
 */

const FLOW = `id: slow
locale: en
model: scripted:./turns.yaml
nodes:
  - { id: talk, answer: text, tools: [wait] }
`;
const TURNS = `turns:
  - { calls: [{ tool: wait, args: {} }] }
  - { text: Done with the other card. }
`;

let t: TestServer;
let started: () => void = () => undefined;
let release: () => void = () => undefined;
const running = new Promise<void>((resolve) => (started = resolve));
const gate = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  const wait: LocalTool = defineTool({
    name: 'wait',
    description: 'Waits for the back office',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      started();
      await gate;
      return { ok: true };
    },
  });
  const flowsDir = await tempDir({ 'slow/flow.yaml': FLOW, 'slow/turns.yaml': TURNS });
  t = await startServer({ flowsDir, runtime: { store: 'memory', logger: false, tools: [wait] } });
});
afterAll(async () => {
  release();
  await t.stop();
});

const user = (id: string, text: string) => ({ id, role: 'user', parts: [{ type: 'text', text }] });

function chat(messages: unknown[]): Promise<Response> {
  return t.call('POST', '/v1/threads/T1/chat', {
    token: TOKENS.operator,
    json: { id: 'T1', messages, trigger: 'submit-message', flowId: 'slow' },
  });
}

describe('steering through the chat stream', () => {
  it('a message while the run is running reaches its next round and the answer streams that run on', async () => {
    const m1 = user('u1', 'Refund order 1');
    const first = await chat([m1]);
    expect(first.status).toBe(200);
    const firstBody = first.text();
    await running;
    const second = await chat([m1, user('u2', 'use the other card')]);
    expect(second.status).toBe(200);
    const secondBody = second.text();
    release();
    const [a, b] = await Promise.all([firstBody, secondBody]);
    expect(a).toContain('Done with the other card.');
    expect(b).toContain('Done with the other card.');
    expect(b.trimEnd().endsWith('data: [DONE]')).toBe(true);

    const thread = await t.runtime.thread('T1');
    expect(thread?.runs.map((r) => r.status)).toEqual(['completed']);
    const runId = thread?.runs[0]?.runId ?? '';
    const store = await t.runtime.db();
    const events = await store.events(runId);
    expect(events.filter((e) => e.type === 'run.message')).toMatchObject([
      { text: 'use the other card', who: 'olivia', round: 2 },
    ]);
    const messages = (await store.messages(runId, 'talk#1')).map(
      (m) => m.message as { role: string; content?: unknown },
    );
    expect(messages.filter((m) => m.role === 'user' && m.content === 'use the other card')).toHaveLength(1);
  });
});
