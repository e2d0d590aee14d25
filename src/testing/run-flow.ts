import { resolve } from 'node:path';
import type { FlowInput } from '../domain/flow.js';
import { loadFlow, type LoadedFlow } from '../flow/load.js';
import type { Logger } from '../log/logger.js';
import type { ModelSpec } from '../model/resolve.js';
import { createRuntime, type Runtime } from '../runtime/create.js';
import type { RunSummary } from '../records/summary.js';
import type { Store } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import type { Guard } from '../tools/user-guards/define.js';
import type { TraceEvent } from '../trace/events.js';
import type { Clock, IdSource } from '../engine/seams.js';
import type { Env } from '../runtime/config.js';

/** Options of `runFlow`. */
export interface RunFlowOptions {
  /** The run input: a string is `{ text }`, an object is given as it is. Default `{}`. */
  input?: string | Record<string, unknown>;
  /** The model; default the flow's own `model` (e.g. `scripted:./turns.yaml`, relative to the flow file). */
  model?: ModelSpec;
  /** Local tools the flow may use. */
  tools?: LocalTool[];
  /** User guards (`defineGuard`), asked in this order about every call of a real tool. */
  guards?: readonly Guard[];
  /** The store; default `'memory'`. */
  store?: string | Store;
  /** A logger; default none. */
  logger?: Logger;
  /** The runtime's clock (event times, leases, the stored run's stamps); default `Date.now`. */
  clock?: Clock;
  /** The source of run ids and the lease owner id; default random UUIDs. */
  ids?: IdSource;
  /** Where the runtime reads its settings and provider keys; default `process.env`. */
  env?: Env;
  /** The folder a flow path and relative store paths resolve against; default `process.cwd()`. */
  cwd?: string;
}

/** A run started by `runFlow`: its latest summary and what a test does next. */
export interface TestRun {
  readonly runId: string;
  /** The summary after the latest step (start, approve, reject, answer). */
  readonly summary: RunSummary;
  readonly runtime: Runtime;
  /** Approves the pending write and drives the run to its next end or suspension. */
  approve(options?: { comment?: string }): Promise<RunSummary>;
  /** Rejects the pending write and drives the run to its next end or suspension. */
  reject(options?: { comment?: string }): Promise<RunSummary>;
  /** Answers the pending follow-up and drives the run to its next end or suspension. */
  answer(text: string): Promise<RunSummary>;
  /** Every trace event of the run so far, in order. */
  trace(): Promise<TraceEvent[]>;
  /** Closes the runtime (MCP server processes, the store). */
  close(): Promise<void>;
}

/**
 * Runs a flow (a file path, resolved against the current directory, a flow object, or a loaded flow)
 * until it completes, fails or suspends, on its own runtime (memory store, no log by default). The
 * returned TestRun continues it after a person's response and reads its trace; close it when done.
 * Flow and input errors are thrown as they are by `loadFlow` and `Runtime.start`.
 */
export async function runFlow(
  flow: string | FlowInput | LoadedFlow,
  options: RunFlowOptions = {},
): Promise<TestRun> {
  const cwd = options.cwd ?? process.cwd();
  const loaded = await load(flow, options.tools ?? [], cwd);
  const runtime = createRuntime({
    store: options.store ?? 'memory',
    tools: options.tools ?? [],
    logger: options.logger ?? false,
    cwd,
    ...(options.guards ? { guards: options.guards } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const input = typeof options.input === 'string' ? { text: options.input } : (options.input ?? {});
  let summary: RunSummary;
  try {
    summary = await runtime.start(loaded, {
      input,
      ...(options.model !== undefined ? { model: options.model } : {}),
    });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const runId = summary.runId;
  const step = async (next: Promise<RunSummary>): Promise<RunSummary> => (summary = await next);
  return {
    runId,
    runtime,
    get summary() {
      return summary;
    },
    approve: (o = {}) => step(runtime.approve(runId, { comment: o.comment ?? null, who: 'test' })),
    reject: (o = {}) => step(runtime.reject(runId, { comment: o.comment ?? null, who: 'test' })),
    answer: (text) => step(runtime.answer(runId, text, { who: 'test' })),
    trace: () => readTrace(runtime, runId),
    close: () => runtime.close(),
  };
}

/** Every trace event a runtime has for a run, in order (without waiting for more). */
export async function readTrace(runtime: Runtime, runId: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) events.push(event as TraceEvent);
  return events;
}

/** The events of one type, typed by it: `eventsOf(trace, 'tool.invoked')[0].outcome`. */
export function eventsOf<T extends TraceEvent['type']>(
  events: readonly TraceEvent[],
  type: T,
): Extract<TraceEvent, { type: T }>[] {
  return events.filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type);
}

async function load(
  flow: string | FlowInput | LoadedFlow,
  tools: LocalTool[],
  cwd: string,
): Promise<LoadedFlow> {
  const knownTools = tools.map((t) => t.descriptor.name);
  if (typeof flow === 'string') return loadFlow(resolve(cwd, flow), { knownTools });
  if (isLoaded(flow)) return flow;
  return loadFlow(flow, { knownTools });
}

function isLoaded(value: FlowInput | LoadedFlow): value is LoadedFlow {
  return typeof value === 'object' && value !== null && 'flow' in value && 'dir' in value && 'path' in value;
}
