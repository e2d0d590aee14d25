import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelClient } from '../../src/model/model.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { MAX_LABEL, label } from '../../src/telemetry/attributes.js';
import { call, flow, makeRuntime, script, toolKit, turn } from '../runtime/helpers.js';

/**
 * Issue 27, finding 6: a model id, flow id or version from a request became a metric attribute as
 * it was (after 80 runs with 400 KB model ids every metrics export was 49 MB), and a span attribute
 * with raw control characters. Now they are labels: escaped and cut to 128 characters.
 */

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

describe('labels from requests in telemetry', () => {
  it('caps and escapes model ids, flow ids and versions in spans and metrics', async () => {
    const runtime = makeRuntime(toolKit(), { store: 'memory', telemetry: { tracerProvider, meterProvider } });
    runtimes.push(runtime);
    const longId = `f${'x'.repeat(5_000)}`;
    const work = await flow({
      id: longId,
      version: 'v1\u001b]0;owned\u0007\u2028next',
      nodes: [{ id: 'main' }],
    });
    for (let i = 0; i < 3; i++) {
      const inner = script(turn([call.finish()]));
      const model: ModelClient = {
        id: `openai:${String(i)}${'m'.repeat(400_000)}`,
        call: (r, c) => inner.call(r, c),
      };
      expect((await runtime.start(work, { input: { text: 'go' }, model })).status).toBe('completed');
    }
    await reader.forceFlush();
    const exported = JSON.stringify(metrics.getMetrics());
    expect(exported.length).toBeLessThan(64 * 1024);
    const finished = spans.getFinishedSpans();
    const agent = finished.find((s) => s.name.startsWith('invoke_agent '));
    expect(String(agent?.attributes['agent_runtime.flow.id']).length).toBeLessThanOrEqual(MAX_LABEL);
    expect(agent?.attributes['gen_ai.agent.version']).toBe('v1\\u{1b}]0;owned\\u{7}\\u{2028}next');
    const chat = finished.find((s) => s.name.startsWith('chat '));
    expect(String(chat?.attributes['gen_ai.request.model']).length).toBeLessThanOrEqual(MAX_LABEL);
    expect(chat?.name.length).toBeLessThanOrEqual(MAX_LABEL + 5);
  });

  it('never ends a cut label on half of a surrogate pair, and escapes lone ones', () => {
    expect(label(`${'a'.repeat(126)}😀tail`)).toBe(`${'a'.repeat(126)}…`);
    expect(label('x\ud800y')).toBe('x\\u{d800}y');
    expect(label(42)).toBe('42');
  });
});
