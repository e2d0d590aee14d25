import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../web/src/api.js';
import { followEvents, SseParser, type StreamState } from '../../web/src/sse.js';
import {
  emptyRun,
  evidenceIndex,
  foldEvents,
  latestSuspension,
  splitMessage,
} from '../../web/src/trace-model.js';
import { markValue } from '../../web/src/highlight.js';
import { SITE_INPUT } from './fixtures.js';
import { startConsoleServer, TOKENS, type ConsoleServer } from './harness.js';

/**
 * The console's logic without a browser: the SSE parser, reading a real run's stream with fetch
 * (reconnecting with Last-Event-ID), and folding the trace into what the run page shows.
 */

describe('SseParser', () => {
  it('parses messages split anywhere, with CRLF, comments and multi-line data', () => {
    const parser = new SseParser();
    const text = ': keep-alive\r\n\r\nid: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 2\nevent: x\ndata: two\n\n';
    const messages = [...text].flatMap((ch) => parser.feed(ch));
    expect(messages).toEqual([
      { id: '1', event: null, data: '{"a":\n1}' },
      { id: '2', event: 'x', data: 'two' },
    ]);
  });

  it('waits for the LF of a CRLF split across chunks', () => {
    const parser = new SseParser();
    expect(parser.feed('data: x\r')).toEqual([]);
    expect(parser.feed('\n\r\n')).toEqual([{ id: null, event: null, data: 'x' }]);
  });
});

describe('markValue', () => {
  const marked = (segments: { text: string; mark: boolean }[]) =>
    segments.filter((s) => s.mark).map((s) => s.text);
  it('marks a string value as the JSON string it is in a payload, not inside a longer one', () => {
    const text = JSON.stringify({ data: [{ spaceId: 's1' }, { spaceId: 's10' }] }, null, 2);
    const segments = markValue(text, 's1', 'json');
    expect(marked(segments)).toEqual(['"s1"']);
    expect(segments.map((s) => s.text).join('')).toBe(text);
  });

  it('marks numbers as whole tokens and every leaf of a structured value', () => {
    const text = JSON.stringify({ a: 12, b: 123, c: 'x' }, null, 2);
    expect(marked(markValue(text, 12, 'json'))).toEqual(['12']);
    expect(marked(markValue(text, { n: 123, s: 'x' }, 'json'))).toEqual(['123', '"x"']);
  });

  it('marks the value in the user’s words, and nothing when it is not there', () => {
    expect(marked(markValue('在默认空间创建一个名为 官网 的站点', '官网', 'text'))).toEqual(['官网']);
    expect(markValue('hello', 'bye', 'text')).toEqual([{ text: 'hello', mark: false }]);
  });
});

describe('old traces', () => {
  it('read without results, limits or usage: shown as not recorded / unknown', () => {
    const base = { runId: 'run_old', ts: '2026-01-01T00:00:00.000Z' };
    const view = foldEvents(emptyRun(), [
      { ...base, seq: 1, type: 'run.started', flowId: 'f', flowVersion: '1', input: {} },
      { ...base, seq: 2, type: 'node.started', nodeId: 'a' },
      { ...base, seq: 3, type: 'react.round', nodeId: 'a', round: 1 },
      {
        ...base,
        seq: 4,
        type: 'model.response',
        nodeId: 'a',
        round: 1,
        toolCalls: [{ callId: 'c1', tool: 'q' }],
        text: '',
      },
      {
        ...base,
        seq: 5,
        type: 'tool.invoked',
        nodeId: 'a',
        round: 1,
        callId: 'c1',
        tool: 'q',
        args: {},
        outcome: 'SUCCESS',
        errorCode: null,
        message: 'ok',
        evidenceId: 'ev_1',
        executed: true,
        level: 'info',
        lookBack: false,
      },
    ]);
    const node = view.nodes[0]!;
    expect([node.maxStalls, node.maxRounds, node.usage.totalTokens]).toEqual([null, null, 0]);
    const round = node.items[0]!;
    expect(round.kind === 'round' && round.calls[0]).toMatchObject({
      hasResult: false,
      result: null,
      evidenceId: 'ev_1',
    });
  });
});

describe('splitMessage', () => {
  it('splits at the zh-CN and en markers of a hint text', () => {
    expect(splitMessage('缺少必填参数 [buyer]。下一步：补齐后再调用。')).toEqual({
      reason: '缺少必填参数 [buyer]。',
      next: '补齐后再调用。',
    });
    expect(splitMessage('Missing parameter [buyer]. Next: add it.')).toEqual({
      reason: 'Missing parameter [buyer].',
      next: 'add it.',
    });
    expect(splitMessage('调用 space_list 成功')).toEqual({ reason: '调用 space_list 成功', next: null });
  });
});

describe('a real run read over SSE', () => {
  let t: ConsoleServer;
  beforeAll(async () => {
    t = await startConsoleServer();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('reconnects with Last-Event-ID after a dropped stream: every event once, in order; the view matches the trace', async () => {
    const runId = await t.startSuspendedRun(SITE_INPUT);
    const headers = { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' };
    const sent: (string | null)[] = [];
    // The first connection is cut after its first chunk, as a proxy or a network change would.
    const cutting: typeof fetch = async (input, init) => {
      sent.push(new Headers(init?.headers).get('last-event-id'));
      const response = await fetch(input, init);
      if (sent.length > 1) return response;
      const reader = response.body!.getReader();
      const first = await reader.read();
      await reader.cancel();
      return new Response(first.value, { status: response.status, headers: response.headers });
    };
    const events: TraceEvent[] = [];
    const states: StreamState[] = [];
    const controller = new AbortController();
    const following = followEvents({
      runId,
      token: TOKENS.operator,
      base: t.url,
      fetch: cutting,
      backoff: () => 0,
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'run.suspended' && e.kind === 'APPROVAL') {
          void fetch(`${t.url}/v1/runs/${runId}/approval`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ decision: 'approve', comment: 'ok' }),
          });
        }
        if (e.type === 'run.suspended' && e.kind === 'FOLLOW_UP') {
          void fetch(`${t.url}/v1/runs/${runId}/answer`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ text: 'English' }),
          });
        }
      },
      onState: (s) => states.push(s),
    });
    await following;
    expect(sent[0]).toBeNull();
    expect(Number(sent[1])).toBeGreaterThan(0);
    expect(states).toContain('reconnecting');
    expect(states.at(-1)).toBe('ended');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.type).toBe('run.completed');

    const view = foldEvents(emptyRun(), events);
    expect(view.nodes.map((n) => [n.id, n.status, n.stalls, n.maxStalls])).toEqual([
      ['query', 'completed', 0, 5],
      ['create', 'completed', 0, 5],
    ]);
    const outcomes = view.nodes.flatMap((n) =>
      n.items.flatMap((i) => (i.kind === 'round' ? i.calls.map((c) => c.outcome) : [])),
    );
    expect(new Set(outcomes)).toEqual(new Set(['SUCCESS', 'FAILED', 'REJECTED', 'DEFERRED']));
    const suspension = latestSuspension(view);
    expect(suspension).toMatchObject({
      suspension: 'FOLLOW_UP',
      resolution: { answer: 'English', who: 'olivia', decision: null },
    });
    const approval = view.nodes[1]!.items.find((i) => i.kind === 'suspension' && i.suspension === 'APPROVAL');
    expect(approval).toMatchObject({
      pending: { tool: 'web_site_create', provenance: { spaceId: 'ev_1' } },
      resolution: { decision: 'approved', who: 'olivia', comment: 'ok' },
    });
    expect(evidenceIndex(view).get('ev_1')?.tool).toBe('space_list');
    // Results, limits and tokens as the run page shows them.
    const calls = view.nodes.flatMap((n) => n.items.flatMap((i) => (i.kind === 'round' ? i.calls : [])));
    const spaceList = calls.find((c) => c.tool === 'space_list');
    expect(spaceList).toMatchObject({ hasResult: true, resultTruncated: false, builtin: false });
    expect(JSON.stringify(spaceList?.result)).toContain('默认空间');
    const rejected = calls.find((c) => c.outcome === 'REJECTED');
    expect(rejected).toMatchObject({ hasResult: false, executed: false });
    const finish = calls.find((c) => c.tool === 'builtin_node_finish');
    expect(finish).toMatchObject({ builtin: true, outcome: 'SUCCESS', hasResult: true });
    expect(view.nodes.map((n) => n.maxRounds)).toEqual([30, 30]);
    const rounds = view.nodes.flatMap((n) => n.items.filter((i) => i.kind === 'round'));
    expect(rounds.every((r) => r.kind === 'round' && r.usage !== null)).toBe(true);
    expect(view.ending).toMatchObject({ type: 'run.completed' });
    // Folding again in two halves gives the same view (duplicates are ignored).
    const half = foldEvents(emptyRun(), events.slice(0, 30));
    expect(foldEvents(half, events)).toEqual(view);
  }, 60_000);

  it('stops without retrying when the token is refused', async () => {
    const states: StreamState[] = [];
    await followEvents({
      runId: 'run_x',
      token: 'wrong-token-wrong-token',
      base: t.url,
      signal: new AbortController().signal,
      onEvent: () => undefined,
      onState: (s) => states.push(s),
    });
    expect(states).toEqual(['connecting', 'error']);
  });
});
