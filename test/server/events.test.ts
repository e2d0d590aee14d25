import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import {
  TOKENS,
  openEvents,
  reached,
  settled,
  startRun,
  startServer,
  tempDir,
  type TestServer,
} from './helpers.js';

/** The SSE stream of a run: ids, replay after reconnect, heartbeats, closing. */

let t: TestServer;
const tools = ticketTools();

beforeAll(async () => {
  t = await startServer({
    flowsDir: await tempDir(FLOW_FILES),
    runtime: { tools: tools.tools },
    server: { heartbeatMs: 20 },
  });
});
afterAll(async () => {
  await t.stop();
});

const op = TOKENS.operator;

describe('GET /v1/runs/{id}/events', () => {
  it('replays from Last-Event-ID after a reconnect, without gaps or repeats, then streams live to the end', async () => {
    const runId = await startRun(t, op, { flowId: 'tickets', input: 'printer' });
    const first = await openEvents(t.url, runId, { token: op });
    expect(first.status).toBe(200);
    const seen = await first.events((e) => e.type === 'tool.invoked');
    first.close();
    const lastId = String(seen.at(-1)?.seq);

    await reached(t.runtime, runId, 'run.suspended');
    const second = await openEvents(t.url, runId, { token: op, lastEventId: lastId });
    const replayed = await second.events((e) => e.type === 'run.suspended');
    expect(replayed[0]?.seq).toBe(Number(lastId) + 1);

    expect(
      (await t.call('POST', `/v1/runs/${runId}/approval`, { token: op, json: { decision: 'approve' } }))
        .status,
    ).toBe(200);
    const live = await second.events();
    expect(live.at(-1)?.type).toBe('run.completed');
    expect(await second.next()).toBeNull();

    const all = [...seen, ...replayed, ...live];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const stored = [];
    for await (const e of t.runtime.events(runId, { follow: false })) stored.push(e);
    expect(all).toEqual(stored);
  });

  it('takes ?after=seq, and Last-Event-ID over it', async () => {
    const runId = await startRun(t, op, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    const after = await openEvents(t.url, runId, { token: op, after: 3 });
    const events = await after.events();
    expect(events[0]?.seq).toBe(4);
    expect(events.at(-1)?.type).toBe('run.completed');
    const both = await openEvents(t.url, runId, { token: op, after: 1, lastEventId: '5' });
    expect((await both.events())[0]?.seq).toBe(6);
  });

  it('closes at once for an ended run when nothing is left to replay', async () => {
    const runId = await startRun(t, op, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    const record = await (await t.runtime.db()).getRun(runId);
    const stream = await openEvents(t.url, runId, { token: op, lastEventId: String(record?.lastSeq) });
    expect(await stream.events()).toEqual([]);
    const beyond = await openEvents(t.url, runId, { token: op, after: 999 });
    expect(await beyond.events()).toEqual([]);
  });

  it('sends keep-alive comments while a run waits, and stops when the client leaves', async () => {
    const runId = await startRun(t, op, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, runId, 'run.suspended');
    const stream = await openEvents(t.url, runId, { token: op });
    await stream.events((e) => e.type === 'run.suspended');
    let message = await stream.next();
    while (message && message.comment === undefined) message = await stream.next();
    expect(message?.comment).toBe('keep-alive');
    stream.close();
    // the run is unaffected by the client leaving
    expect(
      (await t.call('POST', `/v1/runs/${runId}/answer`, { token: op, json: { text: 'A4' } })).status,
    ).toBe(200);
    await settled(t.runtime, runId);
    expect((await t.runtime.status(runId)).status).toBe('completed');
  });
});
