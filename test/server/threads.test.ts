import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, openApp, tempDir, type TestApp } from './helpers.js';

/** Issue 29: the thread routes over real HTTP, with a scripted model per flow. */

const FLOW = `id: talk
locale: en
model: scripted:./turns.yaml
nodes:
  - { id: talk, answer: text }
`;
// Turns are per run (each run's model calls count from 0): every run of this flow asks, then answers.
const TURNS = `turns:
  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which printer? } }] }
  - { text: The third-floor printer belongs to Dana. }
`;

let t: TestApp;
beforeAll(async () => {
  const flowsDir = await tempDir({ 'talk/flow.yaml': FLOW, 'talk/turns.yaml': TURNS });
  t = await openApp({ flowsDir });
});
afterAll(async () => {
  await t.stop();
});

async function waitFor<T>(probe: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function thread(id: string, token: string = TOKENS.viewer): Promise<Response> {
  return t.call('GET', `/v1/threads/${id}`, { token });
}

describe('thread routes', () => {
  it('a message starts a run; the next answers its question; the reply is in the run summary and the thread', async () => {
    const post = (input: string) =>
      t.call('POST', '/v1/threads/T9/messages', { token: TOKENS.operator, json: { flowId: 'talk', input } });
    const first = await post('Who owns the printer?');
    expect(first.status).toBe(201);
    const started = (await first.json()) as { runId: string; threadId: string };
    expect(started.threadId).toBe('T9');
    expect(first.headers.get('location')).toBe(`/v1/runs/${started.runId}`);
    await waitFor(async () => {
      const view = (await (await thread('T9')).json()) as { state: string };
      return view.state === 'waiting' ? view : null;
    });
    const second = await post('the third-floor one');
    expect(second.status).toBe(201);
    expect(((await second.json()) as { runId: string }).runId).toBe(started.runId);
    const done = await waitFor(async () => {
      const s = (await (
        await t.call('GET', `/v1/runs/${started.runId}`, { token: TOKENS.viewer })
      ).json()) as {
        status: string;
        reply: string | null;
      };
      return s.status === 'completed' ? s : null;
    });
    expect(done.reply).toBe('The third-floor printer belongs to Dana.');
    const view = (await (await thread('T9')).json()) as {
      messages: { role: string; kind: string; text: string }[];
      runs: { runId: string }[];
    };
    expect(view.messages.map((m) => [m.role, m.kind, m.text])).toEqual([
      ['user', 'input', 'Who owns the printer?'],
      ['assistant', 'question', 'Which printer?'],
      ['user', 'answer', 'the third-floor one'],
      ['assistant', 'reply', 'The third-floor printer belongs to Dana.'],
    ]);
    expect(view.runs.map((r) => r.runId)).toEqual([started.runId]);
  });

  it('an unknown thread is 404 THREAD_NOT_FOUND, also for another tenant; a bad id is 400; viewers may not post', async () => {
    const missing = await thread('nope');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('THREAD_NOT_FOUND');
    expect((await thread('T9', TOKENS.tenantA)).status).toBe(404);
    expect((await thread('bad%20id')).status).toBe(400);
    const viewer = await t.call('POST', '/v1/threads/T9/messages', {
      token: TOKENS.viewer,
      json: { flowId: 'talk', input: 'x' },
    });
    expect(viewer.status).toBe(403);
  });

  it('a message while the last run is running is 409 THREAD_BUSY and changes nothing', async () => {
    const post = () =>
      t.call('POST', '/v1/threads/T10/messages', {
        token: TOKENS.operator,
        json: { flowId: 'talk', input: 'hi' },
      });
    const [a, b] = await Promise.all([post(), post()]);
    const statuses = [a.status, b.status].sort();
    // Both may be accepted only if the first had already suspended on its question (then the second answers it).
    if (statuses[0] === 201 && statuses[1] === 409) {
      const refused = a.status === 409 ? a : b;
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('THREAD_BUSY');
    } else {
      expect(statuses).toEqual([201, 201]);
    }
    const view = (await (await thread('T10')).json()) as { runs: unknown[] };
    expect(view.runs).toHaveLength(1);
  });

  it('lists the tenant’s threads, most recently updated first, paged with next', async () => {
    const page = (await (await t.call('GET', '/v1/threads?limit=1', { token: TOKENS.viewer })).json()) as {
      threads: { threadId: string }[];
      next: string | null;
    };
    expect(page.threads).toHaveLength(1);
    expect(page.next).not.toBeNull();
    const rest = (await (
      await t.call('GET', `/v1/threads?limit=10&after=${page.next as string}`, { token: TOKENS.viewer })
    ).json()) as { threads: { threadId: string }[]; next: string | null };
    expect([...page.threads, ...rest.threads].map((x) => x.threadId).sort()).toEqual(['T10', 'T9']);
    expect(rest.next).toBeNull();
    const other = (await (await t.call('GET', '/v1/threads', { token: TOKENS.tenantA })).json()) as {
      threads: unknown[];
    };
    expect(other.threads).toEqual([]);
    expect((await t.call('GET', '/v1/threads?after=zzz', { token: TOKENS.viewer })).status).toBe(400);
  });
  // Last in the file: the listing above counts the tenantless threads of the tests before it.
  it('thread ids are per tenant: a tenant’s T12 is not the T12 of runs without a tenant (docs/threads.md)', async () => {
    const post = async (token: string, input: string): Promise<string> => {
      const posted = await t.call('POST', '/v1/threads/T12/messages', {
        token,
        json: { flowId: 'talk', input },
      });
      expect(posted.status).toBe(201);
      const { runId } = (await posted.json()) as { runId: string };
      // Each run asks its question and waits: nothing of it still runs when the test ends.
      await waitFor(async () => {
        const s = (await (await t.call('GET', `/v1/runs/${runId}`, { token: TOKENS.admin })).json()) as {
          status: string;
        };
        return s.status === 'suspended' ? s : null;
      });
      return runId;
    };
    const tenantless = await post(TOKENS.operator, 'Who owns the printer?');
    const acme = await post(TOKENS.tenantA, 'Who owns the scanner?');
    const own = (await (await thread('T12', TOKENS.viewerA)).json()) as {
      tenant: string;
      runs: { runId: string }[];
    };
    expect(own.tenant).toBe('acme');
    expect(own.runs.map((r) => r.runId)).toEqual([acme]);
    // A token without a tenant sees the tenant's run, with its thread id, but its T12 is the tenantless one.
    const noTenant = (await (await thread('T12', TOKENS.admin)).json()) as {
      tenant: null;
      runs: { runId: string }[];
    };
    expect(noTenant.tenant).toBeNull();
    expect(noTenant.runs.map((r) => r.runId)).toEqual([tenantless]);
    const run = (await (await t.call('GET', `/v1/runs/${acme}`, { token: TOKENS.viewer })).json()) as {
      threadId: string;
    };
    expect(run.threadId).toBe('T12');
    const listed = (await (await t.call('GET', '/v1/threads', { token: TOKENS.viewerA })).json()) as {
      threads: { threadId: string }[];
    };
    expect(listed.threads.map((x) => x.threadId)).toEqual(['T12']);
  });
});
