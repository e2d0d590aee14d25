import type { FlowInput } from '../domain/flow.js';
import type { EvidenceRecord } from '../records/run-state.js';
import { RunEngine } from '../engine/engine.js';
import { RunModels } from '../engine/models.js';
import { startRun } from '../engine/new-run.js';
import { RunObservers } from '../engine/observe.js';
import { respondToRun, type PersonResponse } from '../engine/respond.js';
import { retryRun } from '../engine/retry.js';
import { cancelWaitedTask, waitingTask } from '../engine/task-wait.js';
import { awaitTask, startTaskPoller, TASK_POLL_MS, type TaskPoller } from './task-poller.js';
import { acceptMessage } from '../engine/steering.js';
import type { RunMessage } from '../records/run-message.js';
import { forkRun } from '../engine/fork.js';
import { randomIds, systemClock, type Clock } from '../engine/seams.js';
import { refuseToolNameConflicts } from '../engine/tool-names.js';
import type { FlowRef, Toolbox } from '../engine/toolbox.js';
import { validateRunInput } from '../flow/input.js';
import { codeRegistryOf, type CodeRegistry } from '../engine/code-registry.js';
import { loadFlow, type LoadedFlow } from '../flow/load.js';
import { loadFlowOnce } from '../flow/flow-cache.js';
import type { CodeFlowInput, FlowOutputs } from '../flow/typed-outputs.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { absolutizeModel, type ModelSpec } from '../model/resolve.js';
import type { RunFilter, Store, StoredEvent, ThreadFilter } from '../store/store.js';
import { planThread, threadBusy, type ThreadStartSpec } from '../engine/thread-start.js';
import { renderInput } from '../loop/conversation.js';
import { listThreads, viewThread, type ThreadListItem, type ThreadView } from './threads.js';
import { noopTelemetry } from '../telemetry/telemetry.js';
import { EventHub } from '../trace/event-hub.js';
import { EventPoller } from '../trace/event-poller.js';
import { followEvents } from '../trace/follow.js';
import type { ModelDeltaEvent } from '../trace/live.js';
import { runtimeConfig } from './config.js';
import { RunError, runInputError } from '../domain/run-error.js';
import type { ForkOptions, RespondOptions, RuntimeOptions, StartOptions } from './options.js';
import { summarize, type RunSummary } from '../records/summary.js';

export type { RuntimeOptions, StartOptions, RespondOptions, ForkOptions } from './options.js';

/**
 * The embedded runtime: starts runs and continues them after a person responds or a crash. A thin
 * facade: it checks the caller's input and hands the work to the run engine (src/engine/).
 */
export class Runtime {
  private readonly storeReady: Promise<Store>;
  private readonly toolbox: Toolbox;
  private readonly poller: EventPoller;
  private readonly observers: RunObservers;
  private readonly engine: RunEngine;
  private readonly code: CodeRegistry;
  /** The size cap of the files it reads (AGENT_RUNTIME_MAX_FILE_BYTES of its env). */
  private readonly fileBytes: number;
  /** Aborted by `stopDriving`: ends the waits for MCP tasks in this process (`awaitTask`). */
  private readonly waits = new AbortController();

  constructor(private readonly options: RuntimeOptions) {
    this.storeReady = Promise.resolve(options.store);
    this.storeReady.catch(() => undefined);
    this.toolbox = options.toolbox;
    const logger = options.logger ?? silentLogger;
    const env = options.env ?? process.env;
    const config = runtimeConfig(options, env);
    this.fileBytes = config.maxFileBytes;
    const telemetry = options.telemetry ?? noopTelemetry;
    this.code = codeRegistryOf(options.flows ?? [], this.cwd);
    this.observers = new RunObservers(
      typeof telemetry === 'function' ? telemetry : () => Promise.resolve(telemetry),
    );
    this.engine = new RunEngine({
      store: this.storeReady,
      toolbox: this.toolbox,
      logger,
      hub: new EventHub(),
      observers: this.observers,
      models: new RunModels(options.providers, env, options.clock),
      leaseMs: config.leaseMs,
      resultBytes: config.traceResultBytes,
      clock: options.clock ?? systemClock,
      ids: options.ids ?? randomIds,
      cwd: this.cwd,
      maxFileBytes: this.fileBytes,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.enqueue ? { enqueue: options.enqueue } : {}),
      startChild: (ref, start) => this.start(ref, start),
      ...(config.ablation ? { ablation: config.ablation } : {}),
      code: this.code,
      ...(options.mcpAuthorization ? { mcpAuthorization: options.mcpAuthorization } : {}),
    });
    this.poller = new EventPoller(
      () => this.db(),
      (runId) => this.engine.isDriving(runId),
      logger,
    );
  }

  /**
   * Starts a run of a flow and drives it until it completes, fails or suspends. The summary's `outputs`
   * are typed from a code flow's zod output schemas (given directly or through `loadFlow`).
   */
  start<O>(
    source: LoadedFlow<O> & { tenant?: string | null },
    options?: StartOptions,
  ): Promise<RunSummary<O>>;
  start<const F extends CodeFlowInput>(
    source: F,
    options?: StartOptions,
  ): Promise<RunSummary<FlowOutputs<F>>>;
  start(source: FlowRef | FlowInput, options?: StartOptions): Promise<RunSummary>;
  async start(source: FlowRef | CodeFlowInput, options: StartOptions = {}): Promise<RunSummary> {
    // A flow object is loaded once per content and shared by its runs (src/flow/flow-cache.ts).
    const loaded = isFlowRef(source) ? source : await loadFlowOnce(source, { maxFileBytes: this.fileBytes });
    // The run's tenant scopes its MCP connections and tool catalog (never shared across tenants).
    const ref: FlowRef = { ...loaded, tenant: options.tenant ?? null };
    // Its runs may be continued here after they suspend (a stored run's flow has no functions).
    this.code.register(ref.flow, ref.code, ref.conditions);
    const flow = ref.flow;
    const input = options.input ?? {};
    let thread: ThreadStartSpec | undefined;
    if (options.thread !== undefined) {
      const plan = await planThread(await this.db(), options.tenant ?? null, options.thread);
      if (plan.state === 'busy' && plan.last) throw threadBusy(options.thread, plan.last);
      // The last run asks a question: the message is its answer (docs/threads.md).
      if (plan.state === 'answer' && plan.last)
        return this.answer(plan.last.runId, renderInput(input), {
          who: options.who ?? null,
          ...(options.onAccepted ? { onAccepted: options.onAccepted } : {}),
        });
      thread = plan.start;
    }
    const spec = options.model ?? (flow.model ? absolutizeModel(flow.model, ref.dir ?? this.cwd) : undefined);
    if (spec === undefined)
      throw new RunError('REQUEST_INVALID', `flow ${flow.id} names no model and none was given`);
    const model = this.engine.models.resolve(spec, flow);
    const problems = validateRunInput(flow, input);
    if (problems.length > 0)
      throw runInputError(`the input does not match the input schema of flow "${flow.id}"`, problems);
    if (!this.options.enqueue) await refuseToolNameConflicts(this.toolbox, ref);
    return startRun(this.engine, {
      ref,
      spec,
      model,
      input,
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      ...(options.parentRunId !== undefined ? { parentRunId: options.parentRunId } : {}),
      ...(options.parentCallId !== undefined ? { parentCallId: options.parentCallId } : {}),
      ...(options.onAccepted ? { onAccepted: options.onAccepted } : {}),
      ...(thread ? { thread } : {}),
      ...(options.who ? { startedBy: options.who } : {}),
    });
  }

  /** The tenant's thread (docs/threads.md) with its messages and runs, or null; RunError REQUEST_INVALID for a bad id. */
  async thread(threadId: string, options: { tenant?: string | null } = {}): Promise<ThreadView | null> {
    return viewThread(await this.db(), options.tenant ?? null, threadId);
  }

  /** A tenant's threads, most recently updated first (`limit` default 100, `after` the last of the previous page). */
  async threads(filter: Partial<ThreadFilter> = {}): Promise<ThreadListItem[]> {
    return listThreads(await this.db(), { ...filter, tenant: filter.tenant ?? null });
  }

  /**
   * Approves the pending write of a suspended run and continues it — or, when the tool's approval
   * policy needs several approvers and this is not the last, records the approval and keeps waiting
   * (docs/approvals.md). `args` approves edited arguments, once the guards passed them.
   */
  approve(runId: string, options: RespondOptions = {}): Promise<RunSummary> {
    return this.respond(runId, approval('approved', options), options);
  }

  /** Declines the pending write of a suspended run and continues it. */
  reject(runId: string, options: RespondOptions = {}): Promise<RunSummary> {
    return this.respond(runId, approval('rejected', options), options);
  }

  /**
   * Answers the pending follow-up question of a suspended run and continues it; a question of an MCP
   * server takes `action` and, accepted, the form's fields as a JSON object text (docs/mcp.md).
   */
  answer(runId: string, text: string, options: RespondOptions = {}): Promise<RunSummary> {
    const response: PersonResponse = {
      kind: 'FOLLOW_UP',
      answer: text,
      who: options.who ?? null,
      ...(options.action ? { action: options.action } : {}),
    };
    return this.respond(runId, response, options);
  }

  /**
   * Adds a person's words to a running or suspended run (docs/approvals.md, "Steering"): kept at once,
   * read by the run at the start of its next model round as the user's words; a suspended run reads
   * it once it goes on. RunError RUN_ENDED, MESSAGE_TOO_LONG or TOO_MANY_MESSAGES: nothing was kept.
   */
  async say(runId: string, text: string, options: { who?: string | null } = {}): Promise<RunMessage> {
    const deps = {
      store: await this.db(),
      clock: this.options.clock ?? systemClock,
      ids: this.options.ids ?? randomIds,
    };
    return acceptMessage(deps, await this.engine.require(runId), text, options.who ?? null);
  }

  /**
   * Takes a `failed` run up again in its failed node (src/engine/retry.ts says how), then drives it
   * like `resume`. Throws RunError RUN_CONFLICT, nothing changed, when the run has not failed (or failed
   * outside a node), or another request or process is continuing it.
   */
  retry(runId: string, options: RespondOptions = {}): Promise<RunSummary> {
    return retryRun(this.engine, runId, options);
  }

  /**
   * Forks a run (docs/evals.md, "Fork"): a new run whose state is the run's right after event `at`,
   * continued with `model` (default: the run's) and `flow` (another version; default: the run's own).
   * Nothing before `at` runs again. RunError REQUEST_INVALID names the nearest events a fork can
   * continue from when `at` is not one.
   */
  async fork(runId: string, options: ForkOptions): Promise<RunSummary> {
    const flow =
      options.flow === undefined
        ? undefined
        : isFlowRef(options.flow)
          ? options.flow
          : await loadFlow(options.flow, { maxFileBytes: this.fileBytes });
    return forkRun(this.engine, runId, {
      at: options.at,
      ...(flow ? { ref: flow } : {}),
      ...(options.model !== undefined ? { spec: options.model } : {}),
      ...(options.onAccepted ? { onAccepted: options.onAccepted } : {}),
    });
  }

  /**
   * Continues a run left `running` by a dead process (its lease expired), or waits here for the MCP task
   * a suspended run waits for and goes on once it ended (`awaitTask`).
   */
  async resume(runId: string, options: { model?: ModelSpec } = {}): Promise<RunSummary> {
    if (waitingTask(await this.engine.require(runId))) return this.awaitTask(runId, options);
    return this.engine.takeOver(runId, {
      ...(options.model !== undefined ? { model: options.model } : {}),
      recovery: 'always',
    });
  }

  /**
   * Drives a `running` run that no live lease holds (a queue worker's entry point, docs/scale-out.md): a run
   * handed off in queue mode continues where it stands; one whose driver died (lease expired) is
   * taken over like `resume` (`run.resumed` RECOVERY first). Throws RunError RUN_CONFLICT when the run is
   * not running, a live lease holds it, or this runtime already drives it.
   */
  drive(runId: string): Promise<RunSummary> {
    return this.engine.takeOver(runId, { recovery: 'when-leased' });
  }

  /**
   * Cancels a run that has not ended (src/engine/cancel.ts): nothing new starts; a write in flight is
   * waited for and recorded first, by its driver or, when that driver died, by this cancel.
   */
  async cancel(runId: string): Promise<RunSummary> {
    const before = await this.engine.require(runId);
    const summary = await this.engine.cancel(runId);
    // A run waiting for an MCP task cancels the task (docs/mcp.md, "Tools that run as tasks").
    await cancelWaitedTask(this.engine, before);
    return summary;
  }

  /**
   * Waits in this process for the MCP task a suspended run waits for, looking at it at the server's
   * poll interval, and goes on with the run once the task ended (docs/mcp.md, "Tools that run as
   * tasks"); `stopDriving` ends the wait with the run still waiting. Returns the run's summary.
   */
  awaitTask(runId: string, options: { model?: ModelSpec } = {}): Promise<RunSummary> {
    return awaitTask(this.engine, runId, { signal: this.waits.signal, ...options });
  }

  /** Looks at the tasks suspended runs wait for, now and every `intervalMs` (`serve`, workers). */
  startTaskPoller(options: { intervalMs?: number; logger?: Logger } = {}): TaskPoller {
    return startTaskPoller(this.engine, {
      intervalMs: options.intervalMs ?? TASK_POLL_MS,
      logger: options.logger ?? this.engine.logger,
    });
  }

  /** The summary of a run, or throws RunError RUN_NOT_FOUND. */
  async status(runId: string): Promise<RunSummary> {
    return summarize(await this.engine.require(runId));
  }

  /** The run's evidence records (`ev_1`, `ev_2`, … with full payloads), in id order; RunError RUN_NOT_FOUND for an unknown run. */
  async evidence(runId: string): Promise<EvidenceRecord[]> {
    await this.engine.require(runId);
    return (await this.db()).evidence(runId);
  }

  /** One evidence record of the run, or null when the run has none with this id; RunError RUN_NOT_FOUND for an unknown run. */
  async evidenceRecord(runId: string, evidenceId: string): Promise<EvidenceRecord | null> {
    return (await this.evidence(runId)).find((e) => e.id === evidenceId) ?? null;
  }

  /** Summaries of runs, newest first. */
  async list(filter: RunFilter = {}): Promise<RunSummary[]> {
    // Heads only: a listing never decodes a run's flow, input or state.
    const db = await this.db();
    return (db.listRunHeads ? await db.listRunHeads(filter) : await db.listRuns(filter)).map(summarize);
  }

  /** The run's trace events: replayed from the store, then live until the run ends (or `follow: false`). */
  async *events(
    runId: string,
    options: { after?: number; follow?: boolean; signal?: AbortSignal } = {},
  ): AsyncIterable<StoredEvent> {
    yield* followEvents(await this.db(), this.engine.hub, this.poller, runId, options);
  }

  /**
   * Subscribes to a run's live `model.delta` events (a streaming model's answer while it is written)
   * while this process drives the run; they are not persisted. Returns the unsubscribe function.
   */
  deltas(runId: string, listener: (event: ModelDeltaEvent) => void): () => void {
    return this.observers.live.subscribe(runId, listener);
  }

  /**
   * Stops every run this runtime drives from starting anything new (model calls and reads under way
   * are abandoned) and waits for them: a write in flight is waited for (up to its timeout) and
   * recorded as usual. The runs stay as last committed, for a later takeover; drives asked for later
   * stop at once.
   */
  stopDriving(): Promise<void> {
    this.waits.abort();
    return this.engine.stopDriving();
  }

  /** Stops local drivers (`stopDriving`), then closes MCP connections and the store. */
  async close(): Promise<void> {
    await this.stopDriving();
    await this.toolbox.close();
    const store = await this.storeReady.catch(() => null);
    await store?.close();
    await this.observers.shutdown();
  }

  /** The runtime's clock (`RuntimeOptions.clock`, default `Date.now`): a recoverer or worker beside it reads this one. */
  get clock(): Clock {
    return this.engine.clock;
  }

  /** The folder flows without one of their own resolve against (`RuntimeOptions.cwd`). */
  get cwd(): string {
    return this.options.cwd ?? process.cwd();
  }

  /** The lease length this runtime writes (ms). */
  get leaseLength(): number {
    return this.engine.leaseMs;
  }

  /** The store, once open. */
  db(): Promise<Store> {
    return this.storeReady;
  }

  private respond(runId: string, response: PersonResponse, options: RespondOptions): Promise<RunSummary> {
    return respondToRun(this.engine, runId, response, options);
  }
}

/** A person's decision on a pending write. */
function approval(decision: 'approved' | 'rejected', options: RespondOptions): PersonResponse {
  return {
    kind: 'APPROVAL',
    decision,
    comment: options.comment ?? null,
    who: options.who ?? null,
    ...(options.role !== undefined ? { role: options.role } : {}),
    ...(decision === 'approved' && options.args !== undefined ? { args: options.args } : {}),
  };
}

/** True for a loaded flow (`loadFlow`'s result or `{flow, dir}`), false for a plain flow object. */
function isFlowRef(source: FlowRef | CodeFlowInput): source is FlowRef {
  const flow = (source as { flow?: unknown }).flow;
  return typeof flow === 'object' && flow !== null && Array.isArray((flow as { nodes?: unknown }).nodes);
}
