import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openApp, reached, settled, tempDir, type TestApp } from './helpers.js';

/**
 * The thread routes (src/server/threads-routes.ts) in process: thread ids at their bounds, the refusals
 * of a message (exact bodies), a thread busy with an approval, new runs after an ended one, a question
 * answered by the next message whatever flow it names, tenants, and the listing's cursor and bounds.
 * threads.test.ts covers the happy conversation and the racing 409; this covers the rest of the contract.
 */

let t: TestApp;
// A clock one millisecond further at each reading: threads are ordered by when they were updated.
let now = Date.parse('2026-03-01T00:00:00.000Z');

beforeAll(async () => {
  t = await openApp({
    flowsDir: await tempDir(FLOW_FILES),
    runtime: { tools: ticketTools().tools, clock: () => (now += 1) },
  });
});
afterAll(async () => {
  await t.stop();
});

const op = TOKENS.operator;

interface ErrorBody {
  status: number;
  code: string;
  message: string;
  problems?: string[];
}

async function errorOf(response: Response): Promise<ErrorBody> {
  const body = (await response.json()) as { error: Omit<ErrorBody, 'status'> };
  return { status: response.status, ...body.error };
}

interface Summary {
  runId: string;
  status: string;
  threadId?: string;
  flowId: string;
}

interface ThreadView {
  threadId: string;
  tenant: string | null;
  state: string;
  messages: { role: string; kind: string; text: string; runId: string }[];
  runs: Summary[];
}

interface ThreadPage {
  threads: { threadId: string; runs: number; lastRunId: string | null }[];
  next: string | null;
}

function post(threadId: string, body: unknown, token: string = op, headers: Record<string, string> = {}) {
  return t.call('POST', `/v1/threads/${threadId}/messages`, { token, json: body, headers });
}

async function sent(threadId: string, body: unknown, token: string = op): Promise<Summary> {
  const response = await post(threadId, body, token);
  expect(response.status, JSON.stringify(body)).toBe(201);
  return (await response.json()) as Summary;
}

async function view(threadId: string, token: string = TOKENS.viewer): Promise<ThreadView> {
  const response = await t.call('GET', `/v1/threads/${threadId}`, { token });
  expect(response.status, threadId).toBe(200);
  return (await response.json()) as ThreadView;
}

async function page(query: string, token: string = TOKENS.viewer): Promise<ThreadPage> {
  const response = await t.call('GET', `/v1/threads${query}`, { token });
  expect(response.status, query).toBe(200);
  return (await response.json()) as ThreadPage;
}

describe('thread ids', () => {
  it('takes 1 to 128 letters, digits and . _ : -; an unknown one is 404 naming it', async () => {
    for (const id of ['a', 'x'.repeat(128), 'Team.42_a:b-c']) {
      expect(await errorOf(await t.call('GET', `/v1/threads/${id}`, { token: TOKENS.viewer })), id).toEqual({
        status: 404,
        code: 'THREAD_NOT_FOUND',
        message: `unknown thread ${id}`,
      });
    }
  });

  it('refuses a longer id or another character with 400 naming path.threadId, on both routes', async () => {
    for (const id of ['x'.repeat(129), 'a%20b', 'a%2Fb', 'caf%C3%A9', 'a+b']) {
      const read = await errorOf(await t.call('GET', `/v1/threads/${id}`, { token: TOKENS.viewer }));
      expect(read, id).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect(read.problems?.[0], id).toMatch(/^path\.threadId: /);
      const write = await errorOf(await post(id, { flowId: 'quick', input: 'x' }));
      expect(write, id).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    }
    expect(await t.runtime.list({})).toEqual([]);
  });
});

describe('POST /v1/threads/{threadId}/messages refusals', () => {
  it('answers the start refusals of POST /v1/runs, and creates no thread', async () => {
    expect(await errorOf(await post('R1', { input: 'x' }))).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'give exactly one of flowId (a registered flow) or flow (an inline flow)',
    });
    expect(await errorOf(await post('R1', { flowId: 'nope', input: 'x' }))).toEqual({
      status: 404,
      code: 'FLOW_NOT_FOUND',
      message: 'unknown flow id nope (GET /v1/flows lists them)',
    });
    expect(await errorOf(await post('R1', { flow: { id: 'i', nodes: [{ id: 'n' }] }, input: 'x' }))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'token olivia may start registered flows only; an inline flow needs role admin',
    });
    expect(await errorOf(await post('R1', { flowId: 'quick', input: 'x' }, TOKENS.viewer))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'token victor has role viewer; this needs operator',
    });
    expect(await errorOf(await post('R1', { flowId: 'quick', input: 'x', thread: 'R2' }))).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'invalid request body: body: Unrecognized key: "thread"',
      problems: ['body: Unrecognized key: "thread"'],
    });
    expect(
      await errorOf(await post('R1', { flowId: 'quick', input: 'x', model: 'scripted:./turns/quick.yaml' })),
    ).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringMatching(/^model: scripted/) });
    expect((await t.call('GET', '/v1/threads/R1', { token: TOKENS.viewer })).status).toBe(404);
  });

  it('refuses an input that does not match the flow with 400 INPUT_INVALID and its problems; keeps no thread', async () => {
    const refused = await errorOf(await post('R3', { flowId: 'tickets', input: { subject: 'x' } }));
    expect(refused).toMatchObject({
      status: 400,
      code: 'INPUT_INVALID',
      message: 'the input does not match the input schema of flow "tickets"',
      problems: [expect.stringMatching(/^text: /)],
    });
    expect((await t.call('GET', '/v1/threads/R3', { token: TOKENS.viewer })).status).toBe(404);
  });
});

describe('where the thread stands', () => {
  it('a message while the last run waits for an approval is 409 THREAD_BUSY naming it; after the decision a new run starts', async () => {
    const first = await sent('B1', { flowId: 'tickets', input: 'printer' });
    expect(first).toMatchObject({ status: 'running', threadId: 'B1', flowId: 'tickets' });
    await reached(t.runtime, first.runId, 'run.suspended');
    expect((await view('B1')).state).toBe('busy');
    for (const flowId of ['quick', 'tickets']) {
      expect(await errorOf(await post('B1', { flowId, input: 'again' }))).toEqual({
        status: 409,
        code: 'THREAD_BUSY',
        message: `thread B1: its last run ${first.runId} waits for an approval (approve or reject it first) (nothing changed)`,
      });
    }
    const busy = await view('B1');
    expect(busy.runs.map((r) => r.runId)).toEqual([first.runId]);
    expect(busy.messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['printer']);

    const rejected = await t.call('POST', `/v1/runs/${first.runId}/approval`, {
      token: op,
      json: { decision: 'reject', comment: 'not this one' },
    });
    expect(rejected.status).toBe(200);
    await settled(t.runtime, first.runId);
    const second = await sent('B1', { flowId: 'quick', input: 'and now?' });
    expect(second.runId).not.toBe(first.runId);
    expect(second.threadId).toBe('B1');
    await settled(t.runtime, second.runId);
    const after = await view('B1');
    expect(after.state).toBe('idle');
    expect(after.runs.map((r) => [r.runId, r.flowId])).toEqual([
      [first.runId, 'tickets'],
      [second.runId, 'quick'],
    ]);
    expect(after.messages.filter((m) => m.kind === 'decision').map((m) => m.runId)).toEqual([first.runId]);
  });

  it('a message while the last run asks is its answer, whatever registered flow it names', async () => {
    const asking = await sent('Q1', { flowId: 'ask', input: 'printer jam' });
    await reached(t.runtime, asking.runId, 'run.suspended');
    expect((await view('Q1')).state).toBe('waiting');
    // An unknown flow is still refused first: the question stays.
    expect((await post('Q1', { flowId: 'nope', input: 'A4' })).status).toBe(404);
    expect((await view('Q1')).state).toBe('waiting');
    const answered = await sent('Q1', { flowId: 'quick', input: 'the A4 one' });
    expect(answered.runId).toBe(asking.runId);
    await settled(t.runtime, asking.runId);
    const done = await view('Q1');
    expect(done.runs.map((r) => [r.runId, r.status, r.flowId])).toEqual([[asking.runId, 'completed', 'ask']]);
    expect(done.messages.map((m) => [m.role, m.kind, m.text])).toEqual([
      ['user', 'input', 'printer jam'],
      ['assistant', 'question', 'Which printer?'],
      ['user', 'answer', 'the A4 one'],
      ['assistant', 'reply', 'done'],
    ]);
  });

  it('a cancelled last run leaves the thread idle: the next message starts a run', async () => {
    const asking = await sent('C1', { flowId: 'ask', input: 'x' });
    await reached(t.runtime, asking.runId, 'run.suspended');
    await t.call('POST', `/v1/runs/${asking.runId}/cancel`, { token: op });
    expect((await view('C1')).state).toBe('idle');
    const next = await sent('C1', { flowId: 'quick', input: 'y' });
    expect(next.runId).not.toBe(asking.runId);
    await settled(t.runtime, next.runId);
    const listed = (await page('?limit=1000')).threads.find((x) => x.threadId === 'C1');
    expect(listed).toMatchObject({ runs: 2, lastRunId: next.runId });
  });

  it('a retried message with the same Idempotency-Key gets the first answer and adds no run', async () => {
    const headers = { 'idempotency-key': 'thread-msg-1' };
    const body = { flowId: 'quick', input: 'once' };
    const first = await post('I1', body, op, headers);
    expect(first.status).toBe(201);
    const { runId } = (await first.json()) as Summary;
    await settled(t.runtime, runId);
    const again = await post('I1', body, op, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`/v1/runs/${runId}`);
    expect(((await again.json()) as Summary).runId).toBe(runId);
    expect((await view('I1')).runs).toHaveLength(1);
    expect((await post('I1', { ...body, input: 'twice' }, op, headers)).status).toBe(400);
  });
});

describe('threads of tenants', () => {
  it('keeps a thread id of one tenant apart from the same id of another', async () => {
    const a = await sent('Shared-1', { flowId: 'quick', input: 'from acme' }, TOKENS.tenantA);
    await settled(t.runtime, a.runId);
    expect(await errorOf(await t.call('GET', '/v1/threads/Shared-1', { token: TOKENS.tenantB }))).toEqual({
      status: 404,
      code: 'THREAD_NOT_FOUND',
      message: 'unknown thread Shared-1',
    });
    const b = await sent('Shared-1', { flowId: 'quick', input: 'from globex' }, TOKENS.tenantB);
    await settled(t.runtime, b.runId);
    const mine = await view('Shared-1', TOKENS.viewerA);
    expect(mine).toMatchObject({ threadId: 'Shared-1', tenant: 'acme' });
    expect(mine.runs.map((r) => r.runId)).toEqual([a.runId]);
    expect(mine.messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['from acme']);
    const theirs = await view('Shared-1', TOKENS.tenantB);
    expect(theirs.runs.map((r) => r.runId)).toEqual([b.runId]);
    expect((await page('', TOKENS.viewerA)).threads.map((x) => x.threadId)).toEqual(['Shared-1']);
    expect((await page('', TOKENS.tenantB)).threads.map((x) => [x.threadId, x.lastRunId])).toEqual([
      ['Shared-1', b.runId],
    ]);
    // The thread's run is the tenant's: another tenant cannot read it either.
    expect((await t.call('GET', `/v1/runs/${a.runId}`, { token: TOKENS.tenantB })).status).toBe(404);
  });
});

describe('GET /v1/threads', () => {
  it('pages through every thread, most recently updated first, without repeats', async () => {
    const all = (await page('?limit=1000')).threads.map((x) => x.threadId);
    expect(all).toHaveLength(4);
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const query: string = next === null ? '?limit=2' : `?limit=2&after=${next}`;
      const got = await page(query);
      seen.push(...got.threads.map((x) => x.threadId));
      next = got.next;
      pages += 1;
    } while (next !== null && pages < 50);
    expect(seen).toEqual(all);
    // The last thread updated (C1's second run, then I1) comes first.
    expect(all.indexOf('I1')).toBeLessThan(all.indexOf('C1'));
    expect(all.indexOf('C1')).toBeLessThan(all.indexOf('Q1'));
  });

  it('gives next when a page is full, and an empty last page with next null', async () => {
    const count = (await page('?limit=1000')).threads.length;
    const full = await page(`?limit=${count}`);
    expect(full.threads).toHaveLength(count);
    expect(full.next).not.toBeNull();
    expect(await page(`?limit=${count}&after=${full.next as string}`)).toEqual({ threads: [], next: null });
    const more = await page(`?limit=${count + 1}`);
    expect(more.next).toBeNull();
  });

  it('refuses an after that is not a cursor, with one message', async () => {
    const encode = (value: string) => Buffer.from(value).toString('base64url');
    for (const after of [
      'zzz',
      encode('{"updatedAt":"x","threadId":"y"}'),
      encode('["only-one"]'),
      encode('[1, 2]'),
      encode('null'),
    ]) {
      expect(
        await errorOf(await t.call('GET', `/v1/threads?after=${after}`, { token: TOKENS.viewer })),
        after,
      ).toEqual({ status: 400, code: 'BAD_REQUEST', message: 'after: not a cursor this server gave out' });
    }
  });

  it('refuses a limit outside 1..1000, naming query.limit', async () => {
    for (const limit of ['0', '1001', '1.5', 'ten']) {
      const refused = await errorOf(
        await t.call('GET', `/v1/threads?limit=${limit}`, { token: TOKENS.viewer }),
      );
      expect(refused, limit).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect(refused.problems?.[0], limit).toMatch(/^query\.limit: /);
    }
  });

  it('needs a token', async () => {
    expect(await errorOf(await t.call('GET', '/v1/threads'))).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
  });
});
