import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerDeps } from '../../src/server/context.js';
import { claimStream } from '../../src/server/events.js';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openApp, reached, settled, startRun, tempDir, type TestApp } from './helpers.js';

/**
 * `GET /v1/runs/{id}/events` (src/server/events.ts) answered in process: the headers, a whole replay
 * of an ended run, `after` beyond the last event of a live run, the stream ending with the run, HEAD,
 * and the per-token cap (429 with its message; refusals and HEAD take no slot; a slot comes back when
 * the reader leaves). events.test.ts covers reconnecting and keep-alives over a socket.
 */

let t: TestApp;

beforeAll(async () => {
  t = await openApp({
    flowsDir: await tempDir(FLOW_FILES),
    runtime: { tools: ticketTools().tools },
    server: { maxStreamsPerToken: 1 },
  });
});
afterAll(async () => {
  await t.stop();
});

const op = TOKENS.operator;

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Reads SSE frames from an in-process response body. */
function frames(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<Frame | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const text = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: Frame = {};
        for (const line of text.split('\n')) {
          if (line.startsWith(':')) frame.comment = line.slice(1).trim();
          else if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('data: ')) frame.data = line.slice(6);
        }
        return frame;
      }
      const chunk = await reader.read();
      if (chunk.done) return null;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    next,
    /** Trace events until `until` holds for one, or the stream ends (null then). */
    async events(until?: (e: { seq: number; type: string }) => boolean) {
      const out: { seq: number; type: string; runId: string; id: string | undefined }[] = [];
      for (;;) {
        const frame = await next();
        if (frame === null) return { out, ended: true };
        if (frame.data === undefined) continue;
        const event = JSON.parse(frame.data) as { seq: number; type: string; runId: string };
        out.push({ ...event, id: frame.id });
        if (until?.(event)) return { out, ended: false };
      }
    },
    cancel: () => reader.cancel(),
  };
}

function open(runId: string, token: string = op, headers: Record<string, string> = {}, query = '') {
  return t.call('GET', `/v1/runs/${runId}/events${query}`, { token, headers });
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

/** Polls (no fixed sleep) until `probe` holds, up to a deadline. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('an ended run', () => {
  it('replays every event once, id = seq, then closes; with the stream headers', async () => {
    const runId = await startRun(t, op, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    const response = await open(runId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const { out, ended } = await frames(response).events();
    expect(ended).toBe(true);
    const stored = [];
    for await (const e of t.runtime.events(runId, { follow: false })) stored.push(e);
    expect(out.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    expect(out.every((e) => e.id === String(e.seq) && e.runId === runId)).toBe(true);
    expect(out[0]?.type).toBe('run.started');
    expect(out.at(-1)?.type).toBe('run.completed');
  });

  it('Last-Event-ID 0 replays from the first event, like no header', async () => {
    const runId = await startRun(t, op, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    const { out } = await frames(await open(runId, op, { 'last-event-id': '0' })).events();
    expect(out[0]?.seq).toBe(1);
    expect(out.at(-1)?.type).toBe('run.completed');
  });
});

describe('a live run', () => {
  it('clamps an after beyond the last event: the next events come with no gap', async () => {
    const runId = await startRun(t, op, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, runId, 'run.suspended');
    const lastSeq = (await (await t.runtime.db()).getRun(runId))?.lastSeq as number;
    const stream = frames(await open(runId, op, {}, '?after=100000'));
    const answered = await t.call('POST', `/v1/runs/${runId}/answer`, { token: op, json: { text: 'A4' } });
    expect(answered.status).toBe(200);
    const { out, ended } = await stream.events();
    expect(ended).toBe(true);
    expect(out[0]).toMatchObject({ seq: lastSeq + 1, type: 'run.resumed' });
    expect(out.map((e) => e.seq)).toEqual(out.map((_, i) => lastSeq + 1 + i));
    expect(out.at(-1)?.type).toBe('run.completed');
  });

  it('ends the stream when the suspended run is cancelled, after run.cancelled', async () => {
    const runId = await startRun(t, op, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, runId, 'run.suspended');
    const stream = frames(await open(runId));
    const upTo = await stream.events((e) => e.type === 'run.suspended');
    expect(upTo.ended).toBe(false);
    expect((await t.call('POST', `/v1/runs/${runId}/cancel`, { token: op })).status).toBe(200);
    const { out, ended } = await stream.events();
    expect(ended).toBe(true);
    expect(out.map((e) => e.type)).toEqual(['run.cancelled']);
  });
});

describe('the cap of open streams (1 per token here)', () => {
  it('answers 429 naming the token beyond it, counts no HEAD or refusal, and frees the slot when the reader leaves', async () => {
    const runId = await startRun(t, op, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, runId, 'run.suspended');
    // Refusals before the stream opens take no slot.
    expect((await open('run_unknown')).status).toBe(404);
    expect((await open(runId, op, { 'last-event-id': 'x' })).status).toBe(400);
    expect((await open(runId, op, {}, '?after=1.5')).status).toBe(400);

    const held = frames(await open(runId));
    await held.events((e) => e.type === 'run.suspended');
    const head = await t.call('HEAD', `/v1/runs/${runId}/events`, { token: op });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await head.text()).toBe('');
    expect(await errorOf(await open(runId))).toEqual({
      status: 429,
      code: 'TOO_MANY_STREAMS',
      message: 'token olivia already has 1 event streams open (the limit); close one and retry',
    });
    // Another token has its own slot.
    const other = await open(runId, TOKENS.viewer);
    expect(other.status).toBe(200);
    await frames(other).cancel();

    await held.cancel();
    let reopened: Response | null = null;
    await until(async () => {
      const response = await open(runId);
      if (response.status === 200) reopened = response;
      else await response.body?.cancel();
      return response.status === 200;
    }, 'the slot to come back');
    await frames(reopened as unknown as Response).cancel();
    await t.call('POST', `/v1/runs/${runId}/cancel`, { token: op });
  });

  it('a HEAD of an unknown or hidden run is 404, of a visible one 200', async () => {
    const runId = await startRun(t, TOKENS.tenantB, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    expect((await t.call('HEAD', '/v1/runs/run_unknown/events', { token: op })).status).toBe(404);
    expect((await t.call('HEAD', `/v1/runs/${runId}/events`, { token: TOKENS.tenantA })).status).toBe(404);
    expect((await t.call('HEAD', `/v1/runs/${runId}/events`, { token: TOKENS.tenantB })).status).toBe(200);
    expect((await t.call('HEAD', `/v1/runs/${runId}/events`)).status).toBe(401);
  });
});

describe('claimStream', () => {
  function deps(max: number): ServerDeps {
    return { maxStreamsPerToken: max, streamsByToken: new Map() } as unknown as ServerDeps;
  }

  it('counts per tenant and name, and a release counts once however often it is called', () => {
    const d = deps(2);
    const alice = { name: 'alice', role: 'viewer' as const, tenant: 'acme' };
    const first = claimStream(d, alice);
    const second = claimStream(d, alice);
    expect(() => claimStream(d, alice)).toThrow(
      'token alice already has 2 event streams open (the limit); close one and retry',
    );
    // The same name in another tenant, or without one, is another identity.
    const elsewhere = claimStream(d, { ...alice, tenant: 'globex' });
    const untenanted = claimStream(d, { ...alice, tenant: null });
    first();
    first();
    first();
    expect(d.streamsByToken.get(JSON.stringify(['acme', 'alice']))).toBe(1);
    const third = claimStream(d, alice);
    expect(() => claimStream(d, alice)).toThrow(/already has 2/);
    second();
    third();
    elsewhere();
    untenanted();
    expect(d.streamsByToken.size).toBe(0);
  });

  it('refuses every stream with a cap of 0', () => {
    const d = deps(0);
    expect(() => claimStream(d, { name: 'x', role: 'admin', tenant: null })).toThrow(
      'token x already has 0 event streams open (the limit); close one and retry',
    );
    expect(d.streamsByToken.size).toBe(0);
  });
});
