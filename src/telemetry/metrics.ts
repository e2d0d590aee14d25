import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';

/** Bucket boundaries (seconds) for model calls and steps: 10 ms … 5 min. */
const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 300];
/** Bucket boundaries for token counts (the GenAI conventions' advice). */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

/** The runtime's instruments (names and attributes are listed in docs/observability.md). */
export interface RuntimeMetrics {
  /** Runs that ended, by final status. */
  runs: Counter;
  /** Tool calls by outcome and error code (every `tool.invoked`). */
  toolCalls: Counter;
  /** Stalls counted by the ReAct loop. */
  stalls: Counter;
  /** Suspensions waiting for a person: +1 when a run suspends, −1 when a person responds. */
  suspensions: UpDownCounter;
  /** Model tokens per call, by `gen_ai.token.type`. */
  tokens: Histogram;
  /** Model call latency. */
  modelDuration: Histogram;
  /** Step latency: one tool call through the guard chain. */
  stepDuration: Histogram;
}

/** Creates the instruments on a meter. */
export function createMetrics(meter: Meter): RuntimeMetrics {
  return {
    runs: meter.createCounter('agent_runtime.runs', {
      description: 'Runs that ended, by final status',
      unit: '{run}',
    }),
    toolCalls: meter.createCounter('agent_runtime.tool.calls', {
      description: 'Tool calls by outcome and error code',
      unit: '{call}',
    }),
    stalls: meter.createCounter('agent_runtime.stalls', {
      description: 'Stalls counted by the ReAct loop',
      unit: '{stall}',
    }),
    suspensions: meter.createUpDownCounter('agent_runtime.suspensions.waiting', {
      description: 'Suspensions waiting for a person (sum over all processes)',
      unit: '{suspension}',
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens used per model call',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    modelDuration: meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'Model call duration',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    stepDuration: meter.createHistogram('agent_runtime.step.duration', {
      description: 'Step latency: one tool call through the guard chain',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
  };
}

/** Attributes without the entries whose value is null or undefined. */
export function defined(
  attributes: Record<string, string | number | boolean | null | undefined>,
): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    if (value !== null && value !== undefined) out[key] = value;
  return out;
}
