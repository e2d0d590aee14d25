import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { ModelCallContext, ModelRequest, ModelResult } from '../model/model.js';
import type { StoredEvent } from '../store/store.js';
import type { CallInput, CallReport, WatchedCall } from '../tools/call.js';
import { defined, type RuntimeMetrics } from './metrics.js';
import { contextFromTraceparent, toTraceparent } from './traceparent.js';
import type { RunSegment, RunSegmentInfo } from './telemetry.js';
import {
  chatContentAttributes,
  chatResultAttributes,
  label,
  splitModelId,
  toolContentAttributes,
} from './attributes.js';

/** What every segment of one telemetry instance shares. */
export interface SegmentDeps {
  tracer: Tracer;
  metrics: RuntimeMetrics;
  captureContent: boolean;
}

/**
 * One run segment traced with OpenTelemetry: an `invoke_agent <flow id>` span (the child of the
 * run's persisted trace context, so every process's segments form one trace), node spans under it,
 * `chat` and `execute_tool` spans under the node, and the run's suspensions, approvals and answers
 * as span events. Metrics are recorded from the committed trace events.
 */
export class OtelSegment implements RunSegment {
  readonly traceparent: string | null;
  private readonly span: Span;
  private readonly ctx: Context;
  private current: { span: Span; ctx: Context; nodeId: string } | null = null;
  private ended = false;

  private readonly info: RunSegmentInfo;

  constructor(
    private readonly deps: SegmentDeps,
    info: RunSegmentInfo,
  ) {
    // Flow ids and versions come from requests: escaped and capped before they become attributes.
    this.info = { ...info, flowId: label(info.flowId), flowVersion: label(info.flowVersion) };
    info = this.info;
    const parent =
      contextFromTraceparent(info.traceparent) ??
      contextFromTraceparent(info.parentTraceparent) ??
      context.active();
    this.span = deps.tracer.startSpan(
      `invoke_agent ${info.flowId}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': info.flowId,
          'gen_ai.agent.id': info.flowId,
          'gen_ai.agent.version': String(info.flowVersion),
          'gen_ai.conversation.id': info.runId,
          'agent_runtime.run.id': info.runId,
          'agent_runtime.flow.id': info.flowId,
          'agent_runtime.segment': info.reason,
        },
      },
      parent,
    );
    this.ctx = trace.setSpan(parent, this.span);
    // A run without a trace of its own, or whose stored one does not parse, is given this one.
    this.traceparent =
      contextFromTraceparent(info.traceparent) === null ? toTraceparent(this.span.spanContext()) : null;
  }

  onEvent(event: StoredEvent): void {
    const e = event as StoredEvent & Record<string, unknown>;
    const time = new Date(event.ts);
    const flow = { 'agent_runtime.flow.id': this.info.flowId };
    switch (event.type) {
      case 'tool.invoked':
        this.deps.metrics.toolCalls.add(
          1,
          defined({
            ...flow,
            'gen_ai.tool.name': str(e.tool),
            'agent_runtime.outcome': str(e.outcome),
            'agent_runtime.error_code': str(e.errorCode),
          }),
        );
        return;
      case 'react.stall':
        this.deps.metrics.stalls.add(1, defined({ ...flow, 'agent_runtime.node.id': event.nodeId }));
        this.nodeSpan().addEvent(
          'agent_runtime.stall',
          defined({ 'agent_runtime.round': event.round, 'agent_runtime.stalls': num(e.stalls) }),
          time,
        );
        return;
      case 'run.suspended':
        this.suspended(e, time);
        return;
      case 'run.resumed':
        this.resumed(e, time);
        return;
      case 'run.completed':
      case 'run.failed':
      case 'run.cancelled':
        this.ending(e, time);
        return;
    }
  }

  async node<T extends { kind: string; reason?: string }>(nodeId: string, run: () => Promise<T>): Promise<T> {
    const span = this.deps.tracer.startSpan(
      `node ${nodeId}`,
      { attributes: { 'agent_runtime.run.id': this.info.runId, 'agent_runtime.node.id': nodeId } },
      this.ctx,
    );
    this.current = { span, ctx: trace.setSpan(this.ctx, span), nodeId };
    try {
      const exit = await run();
      span.setAttributes(
        defined({ 'agent_runtime.node.exit': exit.kind, 'agent_runtime.node.reason': exit.reason }),
      );
      if (exit.kind === 'failed')
        span.setStatus({ code: SpanStatusCode.ERROR, ...(exit.reason ? { message: exit.reason } : {}) });
      return exit;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
      this.current = null;
    }
  }

  async model(
    modelId: string,
    request: ModelRequest,
    callContext: ModelCallContext,
    call: (r: ModelRequest) => Promise<ModelResult>,
  ): Promise<ModelResult> {
    const { provider, model } = splitModelId(modelId);
    const common = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider,
      'gen_ai.request.model': model,
    };
    const span = this.deps.tracer.startSpan(
      `chat ${model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          ...common,
          'agent_runtime.node.id': callContext.nodeId,
          'agent_runtime.model.call_index': callContext.callIndex,
        },
      },
      this.parentOf(callContext.nodeId),
    );
    if (this.deps.captureContent) span.setAttributes(chatContentAttributes(request));
    const started = performance.now();
    let result: ModelResult;
    try {
      result = await call(request);
    } catch (error) {
      failSpan(span, error);
      span.end();
      throw error;
    }
    const seconds = (performance.now() - started) / 1000;
    this.deps.metrics.modelDuration.record(
      seconds,
      result.ok ? common : { ...common, 'error.type': 'MODEL_FAILED' },
    );
    span.setAttributes(chatResultAttributes(result, this.deps.captureContent));
    if (result.ok) {
      this.deps.metrics.tokens.record(result.usage.inputTokens, { ...common, 'gen_ai.token.type': 'input' });
      this.deps.metrics.tokens.record(result.usage.outputTokens, {
        ...common,
        'gen_ai.token.type': 'output',
      });
    } else {
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.message });
    }
    span.end();
    return result;
  }

  readonly tool = (ctx: CallInput): WatchedCall => {
    const span = this.deps.tracer.startSpan(
      `execute_tool ${ctx.call.tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': ctx.call.tool,
          'gen_ai.tool.call.id': ctx.call.callId,
          'gen_ai.tool.type': 'function',
          'agent_runtime.node.id': ctx.nodeId,
        },
      },
      this.parentOf(ctx.nodeId),
    );
    const started = performance.now();
    return {
      ended: (report) => this.toolEnded(ctx, span, started, report),
      threw: (error) => {
        failSpan(span, error);
        span.end();
      },
    };
  };

  private toolEnded(ctx: CallInput, span: Span, started: number, report: CallReport): void {
    const obs = report.observation;
    const outcome = obs.outcome.name;
    this.deps.metrics.stepDuration.record((performance.now() - started) / 1000, {
      'gen_ai.tool.name': ctx.call.tool,
      'agent_runtime.outcome': outcome,
    });
    span.setAttributes(
      defined({
        'agent_runtime.outcome': outcome,
        'agent_runtime.error_code': obs.errorCode,
        'agent_runtime.executed': report.executed,
        'agent_runtime.evidence_id': obs.evidenceId,
        'agent_runtime.tool.kind': report.descriptor?.kind,
        'agent_runtime.tool.write': report.isWrite,
        'agent_runtime.suspends': report.effect?.kind === 'suspend' ? true : undefined,
      }),
    );
    if (this.deps.captureContent) span.setAttributes(toolContentAttributes(ctx.call.rawArgs, obs));
    if (outcome === 'FAILED')
      span.setStatus({ code: SpanStatusCode.ERROR, message: obs.errorCode ?? 'FAILED' });
    span.end();
  }

  end(status: string): void {
    if (this.ended) return;
    this.ended = true;
    this.current?.span.end();
    this.span.setAttribute('agent_runtime.run.status', status);
    if (status === 'failed') this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }

  /** The node span when the call belongs to the node being traced, else the segment span. */
  private parentOf(nodeId: string): Context {
    return this.current?.nodeId === nodeId ? this.current.ctx : this.ctx;
  }

  private nodeSpan(): Span {
    return this.current?.span ?? this.span;
  }

  private suspended(e: Record<string, unknown>, time: Date): void {
    const kind = str(e.kind);
    const pending = (e.pending ?? {}) as Record<string, unknown>;
    this.deps.metrics.suspensions.add(
      1,
      defined({ 'agent_runtime.flow.id': this.info.flowId, 'agent_runtime.suspension.kind': kind }),
    );
    const attributes = defined({
      'agent_runtime.suspension.kind': kind,
      'agent_runtime.node.id': str(e.nodeId),
      'gen_ai.tool.name': str(pending.tool),
      ...(this.deps.captureContent ? { 'agent_runtime.pending': JSON.stringify(pending) } : {}),
    });
    this.span.addEvent('agent_runtime.suspended', attributes, time);
  }

  private resumed(e: Record<string, unknown>, time: Date): void {
    const kind = str(e.kind);
    if (kind === 'APPROVAL' || kind === 'FOLLOW_UP') {
      this.deps.metrics.suspensions.add(
        -1,
        defined({ 'agent_runtime.flow.id': this.info.flowId, 'agent_runtime.suspension.kind': kind }),
      );
    }
    const name =
      kind === 'APPROVAL'
        ? 'agent_runtime.approval'
        : kind === 'FOLLOW_UP'
          ? 'agent_runtime.answer'
          : 'agent_runtime.recovery';
    const content = this.deps.captureContent
      ? { 'agent_runtime.comment': str(e.comment), 'agent_runtime.answer': str(e.answer) }
      : {};
    this.span.addEvent(
      name,
      defined({
        'agent_runtime.decision': str(e.decision),
        'agent_runtime.who': str(e.who),
        'agent_runtime.node.id': str(e.nodeId),
        ...content,
      }),
      time,
    );
  }

  private ending(e: Record<string, unknown>, time: Date): void {
    const status =
      e.type === 'run.completed' ? 'completed' : e.type === 'run.failed' ? 'failed' : 'cancelled';
    this.deps.metrics.runs.add(1, {
      'agent_runtime.flow.id': this.info.flowId,
      'agent_runtime.run.status': status,
    });
    this.span.addEvent(
      e.type as string,
      defined({ 'agent_runtime.reason': str(e.reason), 'agent_runtime.failed_node': str(e.failedNode) }),
      time,
    );
    if (status === 'failed')
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: str(e.reason) ?? 'failed' });
  }
}

function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
