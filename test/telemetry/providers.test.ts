/** Telemetry given to the library as the application's own providers (in process, two runtimes on one file). */
import { trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type SumMetricData,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { scriptedModel } from '../../src/model/scripted.js';
import { defineTool } from '../../src/tools/tool.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { call, flow, makeRuntime, script, sqliteUrl, toolKit, turn } from '../runtime/helpers.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });

const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.close();
  spans.reset();
});

function runtime(store: string, kit = toolKit()): Runtime {
  const r = makeRuntime(kit, { store, telemetry: { tracerProvider, meterProvider } });
  runtimes.push(r);
  return r;
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (name: string) => spans.getFinishedSpans().filter((s) => s.name === name);

/** The last exported value of a sum metric per attribute set, as `key=value,…` → value. */
async function sums(name: string): Promise<Record<string, number>> {
  await reader.forceFlush();
  const metric = metrics
    .getMetrics()
    .at(-1)
    ?.scopeMetrics.flatMap((s) => s.metrics)
    .find((m) => m.descriptor.name === name) as SumMetricData | undefined;
  const out: Record<string, number> = {};
  for (const point of metric?.dataPoints ?? []) out[Object.values(point.attributes).join(',')] = point.value;
  return out;
}

describe('telemetry with the application providers', () => {
  it('a run suspended by one runtime and approved by another is one trace; the metrics follow it', async () => {
    const store = sqliteUrl();
    const work = await flow({ id: 'saver', nodes: [{ id: 'work', tools: ['save', 'lookup'] }] });
    const model = script(
      turn([call.tool('save', { name: 'a' })]),
      turn([call.approval('save', 'save a')]),
      turn([call.tool('save', { name: 'a' })]),
      turn([call.finish()]),
    );
    const first = await runtime(store).start(work, { input: { text: 'save a' }, model });
    expect(first.status).toBe('suspended');
    expect(await sums('agent_runtime.suspensions.waiting')).toMatchObject({ 'saver,APPROVAL': 1 });

    const done = await runtime(store).approve(first.runId, { who: 'ann', model });
    expect(done.status).toBe('completed');

    const [a, b] = named('invoke_agent saver');
    expect(a?.attributes).toMatchObject({
      'agent_runtime.segment': 'start',
      'agent_runtime.run.status': 'suspended',
      'gen_ai.conversation.id': first.runId,
    });
    expect(b?.attributes).toMatchObject({
      'agent_runtime.segment': 'approval',
      'agent_runtime.run.status': 'completed',
    });
    expect(b?.spanContext().traceId).toBe(a?.spanContext().traceId);
    expect(parentOf(b as ReadableSpan)).toBe(a?.spanContext().spanId);
    expect(new Set(spans.getFinishedSpans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(b?.events.map((e) => [e.name, e.attributes?.['agent_runtime.who']])).toContainEqual([
      'agent_runtime.approval',
      'ann',
    ]);

    const saves = named('execute_tool save');
    expect(
      saves.map((s) => [s.attributes['agent_runtime.outcome'], s.attributes['agent_runtime.executed']]),
    ).toEqual([
      ['DEFERRED', false],
      ['SUCCESS', true],
    ]);
    expect(saves[0]?.attributes['agent_runtime.error_code']).toBe('APPROVAL_REQUIRED');
    const nodes = named('node work');
    expect(nodes.map((n) => n.attributes['agent_runtime.node.exit'])).toEqual(['suspended', 'completed']);
    expect(parentOf(saves[1] as ReadableSpan)).toBe(nodes[1]?.spanContext().spanId);
    expect(named('chat inline').map((s) => s.attributes['gen_ai.provider.name'])).toEqual([
      'scripted',
      'scripted',
      'scripted',
      'scripted',
    ]);

    expect(await sums('agent_runtime.suspensions.waiting')).toMatchObject({ 'saver,APPROVAL': 0 });
    expect(await sums('agent_runtime.runs')).toMatchObject({ 'saver,completed': 1 });
    expect(await sums('agent_runtime.tool.calls')).toMatchObject({
      'saver,save,DEFERRED,APPROVAL_REQUIRED': 1,
      'saver,save,SUCCESS': 1,
    });
  });

  it('a cancellation is traced as a segment of the run', async () => {
    const store = sqliteUrl();
    const work = await flow({ id: 'saver', nodes: [{ id: 'work', tools: ['save'] }] });
    const model = script(turn([call.ask('which name?')]));
    const first = await runtime(store).start(work, { input: { text: 'save' }, model });
    expect(first.status).toBe('suspended');
    await runtime(store).cancel(first.runId);
    const [start, cancel] = named('invoke_agent saver');
    expect(cancel?.attributes).toMatchObject({
      'agent_runtime.segment': 'cancel',
      'agent_runtime.run.status': 'cancelled',
    });
    expect(cancel?.events.map((e) => e.name)).toEqual(['run.cancelled']);
    expect(parentOf(cancel as ReadableSpan)).toBe(start?.spanContext().spanId);
  });

  it('a span active when the run starts is its parent', async () => {
    const work = await flow({ id: 'saver', nodes: [{ id: 'work', tools: ['lookup'] }] });
    const tracer = tracerProvider.getTracer('app');
    const app = tracer.startSpan('app request');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { context } = await import('@opentelemetry/api');
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      await context.with(trace.setSpan(context.active(), app), () =>
        runtime('memory').start(work, { input: { text: 'x' }, model: script(turn([call.finish()])) }),
      );
    } finally {
      context.disable();
      app.end();
    }
    const [run] = named('invoke_agent saver');
    expect(run?.spanContext().traceId).toBe(app.spanContext().traceId);
    expect(parentOf(run as ReadableSpan)).toBe(app.spanContext().spanId);
  });

  it("a delegated child run joins its parent run's trace, also when approved later", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'otel-delegation-'));
    try {
      writeFileSync(
        join(dir, 'child.yaml'),
        'id: ordering\nlocale: en\nmodel: scripted:./child-turns.yaml\nnodes:\n  - id: order\n    instructions: Order.\n    tools: [order_create]\n',
      );
      const turns = [
        { calls: [{ tool: 'order_create', args: { item: 'tea' } }] },
        { calls: [{ tool: 'builtin_node_approval', args: { tool: 'order_create', summary: 'order tea' } }] },
        { calls: [{ tool: 'order_create', args: { item: 'tea' } }] },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'ordered' } }] },
      ];
      writeFileSync(join(dir, 'child-turns.yaml'), JSON.stringify({ turns }));
      const order = defineTool<{ item: string }>({
        name: 'order_create',
        description: 'Create an order',
        write: true,
        inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
        execute: () => ({ orderId: 'o1' }),
      });
      const store = `sqlite:${join(dir, 'rt.db')}`;
      const parent = await loadFlow(
        {
          id: 'assistant',
          locale: 'en',
          nodes: [{ id: 'main', instructions: 'Delegate.', delegates: ['./child.yaml'] }],
        },
        { baseDir: dir },
      );
      const model = scriptedModel({
        turns: [
          { calls: [{ tool: 'builtin_node_delegate', args: { flow: 'ordering', task: 'order tea' } }] },
          { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
        ],
      });
      const make = () => {
        const r = makeRuntime(
          { tools: [order], calls: {}, count: () => 0 },
          { store, telemetry: { tracerProvider, meterProvider } },
        );
        runtimes.push(r);
        return r;
      };
      const first = await make().start(parent, { input: { text: 'order tea' }, model });
      expect(first.status).toBe('suspended');
      expect((await make().approve(first.runId, { model })).status).toBe('completed');

      const [root] = named('invoke_agent assistant');
      const children = named('invoke_agent ordering');
      expect(children.length).toBeGreaterThanOrEqual(2);
      expect(new Set(spans.getFinishedSpans().map((s) => s.spanContext().traceId))).toEqual(
        new Set([root?.spanContext().traceId]),
      );
      expect(named('execute_tool order_create').map((s) => s.attributes['agent_runtime.outcome'])).toEqual([
        'DEFERRED',
        'SUCCESS',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
