import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { code } from '../../src/domain/error-codes.js';
import { Observation } from '../../src/domain/observation.js';
import type { ModelRequest, ModelResult } from '../../src/model/model.js';
import type { StoredEvent } from '../../src/store/store.js';
import { OtelSegment } from '../../src/telemetry/segment.js';
import type { RuntimeMetrics } from '../../src/telemetry/metrics.js';
import type { RunSegmentInfo } from '../../src/telemetry/telemetry.js';
import type { CallInput, CallReport } from '../../src/tools/call.js';

/**
 * The OpenTelemetry segment of one run, driven directly (src/telemetry/segment.ts): its span tree
 * (`invoke_agent` → `node` → `chat` / `execute_tool`), the span events of suspensions, decisions and
 * the end, the metrics recorded from committed trace events, and content kept out unless captured.
 */

const spans = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const tracer = provider.getTracer('segment-test');

afterEach(() => spans.reset());

type Recorded = { value: number; attributes: Attributes | undefined };

/** Instruments that keep what they were given. */
function recordingMetrics(): RuntimeMetrics & { seen: Record<string, Recorded[]> } {
  const seen: Record<string, Recorded[]> = {};
  const instrument = (name: string) => {
    seen[name] = [];
    const keep = (value: number, attributes?: Attributes) => {
      seen[name]?.push({ value, attributes });
    };
    return { add: keep, record: keep };
  };
  return {
    seen,
    runs: instrument('runs'),
    toolCalls: instrument('toolCalls'),
    stalls: instrument('stalls'),
    suspensions: instrument('suspensions'),
    tokens: instrument('tokens'),
    modelDuration: instrument('modelDuration'),
    stepDuration: instrument('stepDuration'),
  };
}

const INFO: RunSegmentInfo = {
  runId: 'run_1',
  flowId: 'refunds',
  flowVersion: 3,
  traceparent: null,
  parentTraceparent: null,
  reason: 'start',
};

function segment(
  info: Partial<RunSegmentInfo> = {},
  captureContent = false,
): { seg: OtelSegment; metrics: ReturnType<typeof recordingMetrics> } {
  const metrics = recordingMetrics();
  return { seg: new OtelSegment({ tracer, metrics, captureContent }, { ...INFO, ...info }), metrics };
}

function finished(): ReadableSpan[] {
  return spans.getFinishedSpans();
}

function named(name: string): ReadableSpan {
  const span = finished().find((s) => s.name === name);
  if (!span)
    throw new Error(
      `no span ${name} among ${finished()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return span;
}

let seq = 0;
function event(type: string, fields: Record<string, unknown> = {}): StoredEvent {
  seq += 1;
  return { seq, ts: '2026-01-02T03:04:05.000Z', runId: 'run_1', type, ...fields };
}

const REQUEST = {
  system: 'be brief',
  messages: [{ role: 'user', content: 'refund o1' }],
  tools: [],
} as unknown as ModelRequest;

function callInput(tool: string, nodeId = 'work'): CallInput {
  return { call: { callId: 'call_7', tool, rawArgs: '{"orderId":"o1"}' }, nodeId } as unknown as CallInput;
}

function report(observation: Observation, extra: Partial<CallReport> = {}): CallReport {
  return {
    observation,
    executed: true,
    isWrite: false,
    descriptor: { kind: 'local' },
    effect: null,
    ...extra,
  } as unknown as CallReport;
}

describe('OtelSegment: the run span', () => {
  it('starts invoke_agent <flow id> with the GenAI agent attributes and ends it with the status', () => {
    const { seg } = segment();
    seg.end('completed');
    const span = named('invoke_agent refunds');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'refunds',
      'gen_ai.agent.id': 'refunds',
      'gen_ai.agent.version': '3',
      'gen_ai.conversation.id': 'run_1',
      'agent_runtime.run.id': 'run_1',
      'agent_runtime.flow.id': 'refunds',
      'agent_runtime.segment': 'start',
      'agent_runtime.run.status': 'completed',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('gives a run without a trace context a traceparent of its own span, and none when it has one', () => {
    const { seg } = segment();
    expect(seg.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    seg.end('completed');
    const span = named('invoke_agent refunds');
    expect(seg.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);

    const persisted = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { seg: again } = segment({ traceparent: persisted, reason: 'approval' });
    expect(again.traceparent).toBeNull();
    again.end('suspended');
    const second = finished().find((s) => s.attributes['agent_runtime.segment'] === 'approval');
    expect(second?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(second?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  });

  it("continues a child run's parent trace when the child has none, and ignores a malformed one", () => {
    const parent = '00-11111111111111111111111111111111-2222222222222222-01';
    const { seg } = segment({ parentTraceparent: parent });
    seg.end('completed');
    expect(named('invoke_agent refunds').spanContext().traceId).toBe('11111111111111111111111111111111');
    spans.reset();

    const { seg: broken } = segment({ traceparent: '00-zz-not-a-trace-01' });
    // A malformed persisted context is no context: the run is given this segment's, so later ones join it.
    expect(broken.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    broken.end('completed');
    expect(named('invoke_agent refunds').parentSpanContext).toBeUndefined();
  });

  it('escapes control characters of flow ids and versions before they become names and attributes', () => {
    const { seg } = segment({ flowId: 'evil\nflow', flowVersion: 'v\u00071' });
    seg.end('completed');
    const span = named('invoke_agent evil\\u{a}flow');
    expect(span.attributes['gen_ai.agent.version']).toBe('v\\u{7}1');
    expect(span.attributes['agent_runtime.flow.id']).toBe('evil\\u{a}flow');
  });

  it('marks a failed run as an error, and ends only once', () => {
    const { seg } = segment();
    seg.end('failed');
    seg.end('completed');
    expect(finished()).toHaveLength(1);
    const span = named('invoke_agent refunds');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['agent_runtime.run.status']).toBe('failed');
  });
});

describe('OtelSegment: node, chat and tool spans', () => {
  it('nests node spans under the run span and chat/tool spans under their node', async () => {
    const { seg } = segment();
    await seg.node('work', async () => {
      await seg.model('openai:gpt-4.1', REQUEST, { runId: 'run_1', nodeId: 'work', callIndex: 2 }, () =>
        Promise.resolve({
          ok: true,
          text: '',
          toolCalls: [],
          usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 },
        } as ModelResult),
      );
      seg.tool(callInput('order_get')).ended(report(Observation.success('found')));
      // A call of another node (a parallel branch) hangs under the run span, not this node.
      seg.tool(callInput('other_tool', 'elsewhere')).ended(report(Observation.success('x')));
      return { kind: 'completed' };
    });
    seg.end('completed');
    const run = named('invoke_agent refunds');
    const node = named('node work');
    expect(node.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(node.attributes).toEqual({
      'agent_runtime.run.id': 'run_1',
      'agent_runtime.node.id': 'work',
      'agent_runtime.node.exit': 'completed',
    });
    expect(named('chat gpt-4.1').parentSpanContext?.spanId).toBe(node.spanContext().spanId);
    expect(named('execute_tool order_get').parentSpanContext?.spanId).toBe(node.spanContext().spanId);
    expect(named('execute_tool other_tool').parentSpanContext?.spanId).toBe(run.spanContext().spanId);
  });

  it('marks a node that exits failed with its reason, and one that throws with the exception', async () => {
    const { seg } = segment();
    await seg.node('a', () => Promise.resolve({ kind: 'failed', reason: 'STALLED' }));
    await expect(seg.node('b', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    seg.end('failed');
    const a = named('node a');
    expect(a.status).toEqual({ code: SpanStatusCode.ERROR, message: 'STALLED' });
    expect(a.attributes['agent_runtime.node.reason']).toBe('STALLED');
    const b = named('node b');
    expect(b.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(b.events.map((e) => e.name)).toEqual(['exception']);
    expect(b.attributes['agent_runtime.node.exit']).toBeUndefined();
  });

  it('a chat span names provider and model, records tokens and duration, and keeps the prompt out', async () => {
    const { seg, metrics } = segment();
    const result = await seg.model(
      'anthropic:claude-sonnet',
      REQUEST,
      { runId: 'run_1', nodeId: 'work', callIndex: 0 },
      () =>
        Promise.resolve({
          ok: true,
          text: 'done',
          toolCalls: [{ callId: 'c1', tool: 'order_get', rawArgs: '{"orderId":"o1"}' }],
          usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
        } as ModelResult),
    );
    expect(result.ok).toBe(true);
    const span = named('chat claude-sonnet');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet',
      'agent_runtime.node.id': 'work',
      'agent_runtime.model.call_index': 0,
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const common = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet',
    };
    expect(metrics.seen.tokens).toEqual([
      { value: 120, attributes: { ...common, 'gen_ai.token.type': 'input' } },
      { value: 30, attributes: { ...common, 'gen_ai.token.type': 'output' } },
    ]);
    expect(metrics.seen.modelDuration).toHaveLength(1);
    expect(metrics.seen.modelDuration?.[0]?.attributes).toEqual(common);
    expect(metrics.seen.modelDuration?.[0]?.value).toBeGreaterThanOrEqual(0);
  });

  it('a scripted model is named by its file name, not its path', async () => {
    const { seg } = segment();
    await seg.model(
      'scripted:/home/me/flows/turns.yaml',
      REQUEST,
      { runId: 'r', nodeId: 'n', callIndex: 0 },
      () => Promise.resolve({ ok: false, message: 'no turn left' } as ModelResult),
    );
    const span = named('chat turns.yaml');
    expect(span.attributes['gen_ai.provider.name']).toBe('scripted');
  });

  it('a failed model answer is an error span with its message, no tokens, and MODEL_FAILED duration', async () => {
    const { seg, metrics } = segment();
    await seg.model('openai:gpt-4.1', REQUEST, { runId: 'r', nodeId: 'n', callIndex: 1 }, () =>
      Promise.resolve({ ok: false, message: 'rate limited', detail: 'host api.x:443' } as ModelResult),
    );
    const span = named('chat gpt-4.1');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'rate limited' });
    expect(span.attributes['error.type']).toBe('MODEL_FAILED');
    expect(JSON.stringify(span.attributes)).not.toContain('api.x');
    expect(metrics.seen.tokens).toEqual([]);
    expect(metrics.seen.modelDuration?.[0]?.attributes?.['error.type']).toBe('MODEL_FAILED');
  });

  it('a model call that throws ends its span with the exception and rethrows', async () => {
    const { seg, metrics } = segment();
    await expect(
      seg.model('openai:gpt-4.1', REQUEST, { runId: 'r', nodeId: 'n', callIndex: 0 }, () =>
        Promise.reject(new Error('socket closed')),
      ),
    ).rejects.toThrow('socket closed');
    const span = named('chat gpt-4.1');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'socket closed' });
    expect(metrics.seen.modelDuration).toEqual([]);
  });

  it('captures the prompt and the answer only with captureContent', async () => {
    const { seg } = segment({}, true);
    await seg.model('openai:gpt-4.1', REQUEST, { runId: 'r', nodeId: 'n', callIndex: 0 }, () =>
      Promise.resolve({
        ok: true,
        text: 'the answer',
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      } as ModelResult),
    );
    const span = named('chat gpt-4.1');
    expect(String(span.attributes['gen_ai.output.messages'])).toContain('the answer');
    expect(span.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(span.attributes['gen_ai.system_instructions']).toBe('[{"type":"text","content":"be brief"}]');
    expect(String(span.attributes['gen_ai.input.messages'])).toContain('refund o1');
    expect(span.attributes['gen_ai.tool.definitions']).toBe('[]');
  });

  it('an execute_tool span carries the outcome attributes and step duration', () => {
    const { seg, metrics } = segment();
    const watched = seg.tool(callInput('refund'));
    watched.ended(
      report(Observation.deferred(code('APPROVAL_REQUIRED'), 'needs approval', 'ask'), {
        executed: false,
        isWrite: true,
        descriptor: { kind: 'mcp' },
      } as Partial<CallReport>),
    );
    const span = named('execute_tool refund');
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'refund',
      'gen_ai.tool.call.id': 'call_7',
      'gen_ai.tool.type': 'function',
      'agent_runtime.node.id': 'work',
      'agent_runtime.outcome': 'DEFERRED',
      'agent_runtime.error_code': 'APPROVAL_REQUIRED',
      'agent_runtime.executed': false,
      'agent_runtime.tool.kind': 'mcp',
      'agent_runtime.tool.write': true,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(metrics.seen.stepDuration?.map((r) => r.attributes)).toEqual([
      { 'gen_ai.tool.name': 'refund', 'agent_runtime.outcome': 'DEFERRED' },
    ]);
  });

  it('a FAILED tool call is an error span with its code; a suspending one is marked; content only when captured', () => {
    const { seg } = segment();
    seg
      .tool(callInput('order_get'))
      .ended(
        report(Observation.failed(code('TOOL_TIMEOUT'), 'took too long', 'try again').withEvidence('ev_3')),
      );
    const failed = named('execute_tool order_get');
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TOOL_TIMEOUT' });
    expect(failed.attributes['agent_runtime.evidence_id']).toBe('ev_3');
    expect(failed.attributes['gen_ai.tool.call.arguments']).toBeUndefined();

    const { seg: capturing } = segment({}, true);
    capturing
      .tool(callInput('builtin_node_approval'))
      .ended(report(Observation.success('waiting'), { effect: { kind: 'suspend' } } as Partial<CallReport>));
    const suspending = named('execute_tool builtin_node_approval');
    expect(suspending.attributes['agent_runtime.suspends']).toBe(true);
    expect(suspending.attributes['gen_ai.tool.call.arguments']).toBe('{"orderId":"o1"}');
  });

  it('a tool call that threw ends its span with the exception (a thrown string too)', () => {
    const { seg } = segment();
    seg.tool(callInput('order_get')).threw('plain text');
    const span = named('execute_tool order_get');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'plain text' });
    expect(span.events[0]?.name).toBe('exception');
  });

  it('ending the run ends a node span still open', async () => {
    const { seg } = segment();
    let release = () => undefined as void;
    const node = seg.node(
      'work',
      () => new Promise<{ kind: string }>((r) => (release = () => r({ kind: 'x' }))),
    );
    seg.end('cancelled');
    expect(
      finished()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['invoke_agent refunds', 'node work']);
    release();
    await node;
  });
});

describe('OtelSegment: trace events', () => {
  it('counts tool calls by tool, outcome and error code, leaving out what is absent', () => {
    const { seg, metrics } = segment();
    seg.onEvent(
      event('tool.invoked', { tool: 'refund', outcome: 'DEFERRED', errorCode: 'APPROVAL_REQUIRED' }),
    );
    seg.onEvent(event('tool.invoked', { tool: 'order_get', outcome: 'SUCCESS', errorCode: null }));
    expect(metrics.seen.toolCalls).toEqual([
      {
        value: 1,
        attributes: {
          'agent_runtime.flow.id': 'refunds',
          'gen_ai.tool.name': 'refund',
          'agent_runtime.outcome': 'DEFERRED',
          'agent_runtime.error_code': 'APPROVAL_REQUIRED',
        },
      },
      {
        value: 1,
        attributes: {
          'agent_runtime.flow.id': 'refunds',
          'gen_ai.tool.name': 'order_get',
          'agent_runtime.outcome': 'SUCCESS',
        },
      },
    ]);
  });

  it('a stall is counted and becomes an event of the node span being traced', async () => {
    const { seg, metrics } = segment();
    await seg.node('work', () => {
      seg.onEvent(event('react.stall', { nodeId: 'work', round: 4, stalls: 2 }));
      return Promise.resolve({ kind: 'completed' });
    });
    seg.end('completed');
    expect(metrics.seen.stalls).toEqual([
      { value: 1, attributes: { 'agent_runtime.flow.id': 'refunds', 'agent_runtime.node.id': 'work' } },
    ]);
    const stall = named('node work').events.find((e) => e.name === 'agent_runtime.stall');
    expect(stall?.attributes).toEqual({ 'agent_runtime.round': 4, 'agent_runtime.stalls': 2 });
    expect(stall?.time).toEqual([Date.parse('2026-01-02T03:04:05.000Z') / 1000, 0]);
  });

  it('a suspension adds one waiting item and a decision takes it back; recovery is not counted', () => {
    const { seg, metrics } = segment();
    seg.onEvent(
      event('run.suspended', {
        kind: 'APPROVAL',
        nodeId: 'work',
        pending: { tool: 'refund', args: { a: 1 } },
      }),
    );
    seg.onEvent(
      event('run.resumed', { kind: 'APPROVAL', decision: 'approved', who: 'olivia', nodeId: 'work' }),
    );
    seg.onEvent(event('run.resumed', { kind: 'FOLLOW_UP', answer: 'yes', who: 'sam', nodeId: 'work' }));
    seg.onEvent(event('run.resumed', { kind: 'RECOVERY', nodeId: 'work' }));
    seg.end('suspended');
    expect(
      metrics.seen.suspensions?.map((r) => [r.value, r.attributes?.['agent_runtime.suspension.kind']]),
    ).toEqual([
      [1, 'APPROVAL'],
      [-1, 'APPROVAL'],
      [-1, 'FOLLOW_UP'],
    ]);
    const events = named('invoke_agent refunds').events;
    expect(events.map((e) => e.name)).toEqual([
      'agent_runtime.suspended',
      'agent_runtime.approval',
      'agent_runtime.answer',
      'agent_runtime.recovery',
    ]);
    expect(events[0]?.attributes).toEqual({
      'agent_runtime.suspension.kind': 'APPROVAL',
      'agent_runtime.node.id': 'work',
      'gen_ai.tool.name': 'refund',
    });
    expect(events[1]?.attributes).toEqual({
      'agent_runtime.decision': 'approved',
      'agent_runtime.who': 'olivia',
      'agent_runtime.node.id': 'work',
    });
    // Without content capture the person's answer stays out of the span.
    expect(events[2]?.attributes).toEqual({ 'agent_runtime.who': 'sam', 'agent_runtime.node.id': 'work' });
  });

  it('with captureContent the pending item, comment and answer are kept', () => {
    const { seg } = segment({}, true);
    seg.onEvent(
      event('run.suspended', { kind: 'FOLLOW_UP', nodeId: 'work', pending: { question: 'which?' } }),
    );
    seg.onEvent(event('run.resumed', { kind: 'APPROVAL', decision: 'rejected', comment: 'too much' }));
    seg.onEvent(event('run.resumed', { kind: 'FOLLOW_UP', answer: 'the blue one' }));
    seg.end('suspended');
    const events = named('invoke_agent refunds').events;
    expect(events[0]?.attributes?.['agent_runtime.pending']).toBe('{"question":"which?"}');
    expect(events[1]?.attributes?.['agent_runtime.comment']).toBe('too much');
    expect(events[2]?.attributes?.['agent_runtime.answer']).toBe('the blue one');
  });

  it('the end events count the run by status and a failure sets the error with its reason', () => {
    const { seg, metrics } = segment();
    seg.onEvent(event('run.failed', { reason: 'STALLED', failedNode: 'work' }));
    seg.end('failed');
    expect(metrics.seen.runs).toEqual([
      { value: 1, attributes: { 'agent_runtime.flow.id': 'refunds', 'agent_runtime.run.status': 'failed' } },
    ]);
    const span = named('invoke_agent refunds');
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      ['run.failed', { 'agent_runtime.reason': 'STALLED', 'agent_runtime.failed_node': 'work' }],
    ]);
    // end('failed') sets the status again without a message; the span keeps an error status.
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('completed and cancelled runs are counted under their own status and stay OK', () => {
    const { seg, metrics } = segment();
    seg.onEvent(event('run.completed'));
    seg.onEvent(event('run.cancelled', { reason: 'by sam' }));
    seg.end('cancelled');
    expect(metrics.seen.runs?.map((r) => r.attributes?.['agent_runtime.run.status'])).toEqual([
      'completed',
      'cancelled',
    ]);
    expect(named('invoke_agent refunds').status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ignores event types it does not trace', () => {
    const { seg, metrics } = segment();
    seg.onEvent(event('react.round', { nodeId: 'work', round: 1 }));
    seg.onEvent(event('node.started', { nodeId: 'work' }));
    seg.end('completed');
    expect(Object.values(metrics.seen).flat()).toEqual([]);
    expect(named('invoke_agent refunds').events).toEqual([]);
  });
});
