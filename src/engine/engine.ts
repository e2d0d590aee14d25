import type { Logger } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import { withExpressionSandbox } from '../tools/expressions.js';
import type { ModelSpec } from '../model/resolve.js';
import { isVersionConflict, type RunRecord, type Store, type StoredEvent } from '../store/store.js';
import type { DelegateService } from '../tools/call.js';
import type { EventHub } from '../trace/event-hub.js';
import { runConflict, runNotFound } from '../domain/run-error.js';
import { summarize, type RunSummary } from '../records/summary.js';
import { cancelRun, endCancelled, settlingModel, type CancelHost } from './cancel.js';
import { delegateService, existingChild, type StartChild } from './delegation.js';
import type { Ablation } from './ablation.js';
import type { CodeRegistry } from './code-registry.js';
import { drive } from './driver.js';
import type { RunModels } from './models.js';
import { loggedModel, type RunObservers, type SegmentReason } from './observe.js';
import type { Clock, IdSource } from './seams.js';
import { RunSession, type EventSink } from './session.js';
import { flowRefOf, type FlowRef, type Toolbox } from './toolbox.js';

/** The reason a run's signal aborts with at shutdown (logged for a call it cut: "interrupted by shutdown"). */
const SHUTDOWN = new DOMException('interrupted by shutdown', 'AbortError');
/** The reason a run's signal aborts with when the run is cancelled. */
const CANCELLED = new DOMException('interrupted by cancel', 'AbortError');

/** What the engine is built from (the facade composes it from the runtime's options). */
export interface EngineOptions {
  store: Promise<Store>;
  toolbox: Toolbox;
  logger: Logger;
  hub: EventHub;
  observers: RunObservers;
  models: RunModels;
  leaseMs: number;
  /** The bound of traced tool results (bytes of JSON; 0: none). */
  resultBytes: number;
  clock: Clock;
  ids: IdSource;
  /** The folder a flow without one of its own resolves against (its delegates). */
  cwd: string;
  /** The size cap of files read while driving (delegate flows), from the runtime's env. */
  maxFileBytes: number;
  /** Receives every committed event of the top-level runs driven here (e.g. `--trace FILE`). */
  onEvent?: EventSink;
  /** Queue mode: a top-level run is handed here instead of being driven (docs/scale-out.md). */
  enqueue?: (runId: string) => Promise<void>;
  /** Starts a child run through the facade (its input checks and model resolution) and drives it. */
  startChild: StartChild;
  /** Eval switches for every run driven here (docs/evals.md); default: the full runtime. */
  ablation?: Ablation;
  /** Where code nodes' functions come from. */
  code: CodeRegistry;
  /** `suspend`: a run waits for a person to authorize an MCP server instead of failing (docs/mcp.md, "Connect"). */
  mcpAuthorization?: 'fail' | 'suspend';
}

/** How `takeOver` treats the run: `resume` always traces a recovery, a worker's `drive` only after a dead driver. */
export interface TakeOver {
  model?: ModelSpec;
  /** The model when the run has none of its own (a child run started with its parent's model object). */
  inherited?: ModelClient;
  recovery: 'always' | 'when-leased';
}

/**
 * The run engine of one runtime instance: holds the leases of the runs it drives (one owner id),
 * opens their sessions, drives them (or hands them to the queue), takes over runs of dead drivers and
 * stops its drivers on close. The facade (src/runtime/runtime.ts) checks the caller's input and calls in.
 */
export class RunEngine {
  readonly owner: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly leaseMs: number;
  readonly models: RunModels;
  readonly hub: EventHub;
  private readonly active = new Map<string, AbortController>();
  private readonly driving = new Map<string, Promise<unknown>>();
  private readonly continuing = new Set<string>();
  /** Set by `stopDriving()`: running drivers stop at their next step, later ones at once. */
  private closing = false;

  constructor(private readonly options: EngineOptions) {
    this.owner = options.ids.owner();
    this.clock = options.clock;
    this.ids = options.ids;
    this.logger = options.logger;
    this.leaseMs = options.leaseMs;
    this.models = options.models;
    this.hub = options.hub;
  }

  /** The tools of the runs this engine drives (a person's edited arguments go through its guards). */
  get toolbox(): Toolbox {
    return this.options.toolbox;
  }

  /** The store, once open. */
  db(): Promise<Store> {
    return this.options.store;
  }

  /** The stored run, or RunError RUN_NOT_FOUND. */
  async require(runId: string): Promise<RunRecord> {
    const record = await (await this.db()).getRun(runId);
    if (!record) throw runNotFound(runId);
    return record;
  }

  /** Whether this engine drives the run now. */
  isDriving(runId: string): boolean {
    return this.active.has(runId);
  }

  /** Takes the run's lease for this engine unless a live lease holds it (then null). */
  async acquire(runId: string): Promise<RunRecord | null> {
    const now = this.clock();
    return (await this.db()).acquireLease(runId, this.owner, now + this.leaseMs, now);
  }

  /** Gives up a lease taken by `acquire` (a run that moved on meanwhile is left as it is). */
  async release(record: RunRecord): Promise<void> {
    try {
      await (
        await this.db()
      ).commit({
        runId: record.runId,
        expectedVersion: record.version,
        patch: { leaseOwner: null, leaseExpiresAt: null },
      });
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
    }
  }

  /**
   * Runs `task` as the only continuation of the run in this process. Two responses racing in one
   * process share this engine's lease owner, so the lease alone cannot tell them apart: the first one
   * in holds the run until it is accepted; the other gets RunError RUN_CONFLICT.
   */
  async exclusive<T>(runId: string, task: () => Promise<T>): Promise<T> {
    if (this.continuing.has(runId))
      throw runConflict(runId, `run ${runId} is already being continued by another request`);
    this.continuing.add(runId);
    try {
      return await task();
    } finally {
      this.continuing.delete(runId);
    }
  }

  /** Delivers the events a run was created with (the sessions deliver every later commit's). */
  announce(record: RunRecord, events: readonly StoredEvent[]): void {
    for (const sink of this.sinksOf(record)) for (const event of events) sink(event);
    this.hub.publish(events);
  }

  /** Opens a session on a run whose lease this engine holds, with its telemetry segment. */
  async openSession(record: RunRecord, reason: SegmentReason): Promise<RunSession> {
    const store = await this.db();
    const { segment, sink } = await this.options.observers.open(store, record, reason);
    const sinks = this.sinksOf(record);
    const session = await RunSession.open(store, this.hub, record, sink ? [...sinks, sink] : sinks, {
      clock: this.clock,
    });
    session.resultBytes = this.options.resultBytes;
    this.options.observers.attach(session, segment);
    return session;
  }

  /** Ends a session's telemetry segment when the session ends without being driven. */
  end(session: RunSession): void {
    this.options.observers.end(session);
    // A completed or cancelled run is never continued: its model object need not be kept (a failed one may be retried).
    const status = session.current.status;
    if (status === 'completed' || status === 'cancelled') this.models.forget(session.runId);
  }

  /**
   * Continues a run whose session holds its lease: in queue mode a top-level run is committed with
   * its lease released and handed to the queue; otherwise it is driven here. What is staged is
   * committed first when `commit` is set (always in queue mode); `onAccepted` hears the run then.
   */
  async proceed(
    session: RunSession,
    ref: FlowRef,
    model: ModelClient,
    options: { commit: boolean; onAccepted?: ((summary: RunSummary) => void) | undefined },
  ): Promise<RunSummary> {
    const queued = this.options.enqueue !== undefined && session.current.parentRunId === null;
    if (queued) session.update({ leaseOwner: null, leaseExpiresAt: null });
    if (queued || options.commit) await session.checkpoint();
    options.onAccepted?.(summarize(session.current));
    if (!queued) return this.drive(session, ref, model);
    this.end(session);
    await this.options.enqueue?.(session.runId);
    return summarize(session.current);
  }

  /**
   * Takes up a `running` run that no live lease holds and drives it: `resume` after its driver died,
   * a queue worker's `drive` of a run handed off or left by a dead driver. A recovery is traced
   * (`run.resumed` RECOVERY) before the run goes on. RunError RUN_CONFLICT, nothing changed, when the run is
   * not running, is driven here, or a live lease holds it; a bad model fails before anything changes.
   */
  async takeOver(runId: string, how: TakeOver): Promise<RunSummary> {
    const before = await this.require(runId);
    if (before.status !== 'running')
      throw runConflict(runId, `run ${runId} is ${before.status}, not running`);
    if (this.active.has(runId)) throw runConflict(runId, `run ${runId} is being driven by this process`);
    const model = this.models.forRun(before, how.model, how.inherited);
    const record = await this.acquire(runId);
    if (!record || record.status !== 'running') {
      if (record) await this.release(record);
      throw runConflict(runId, `run ${runId} is driven by another process (its lease has not expired)`);
    }
    const recovery = how.recovery === 'always' || before.leaseOwner !== null;
    const session = await this.openSession(record, recovery ? 'recovery' : 'drive');
    if (typeof how.model === 'string') session.update({ model: how.model });
    if (recovery) {
      const nodeId = session.doc.nodeId;
      session.emit({ type: 'run.resumed', kind: 'RECOVERY', ...(nodeId ? { nodeId } : {}) });
      await session.checkpoint();
    }
    return this.drive(session, flowRefOf(record), model);
  }

  /** Cancels a run that has not ended (src/engine/cancel.ts). */
  cancel(runId: string): Promise<RunSummary> {
    return cancelRun(this.cancelHost(), runId);
  }

  /**
   * Stops every run driven here from starting anything new and waits for them (a write in flight is
   * waited for and recorded); drives asked for later stop at once.
   */
  async stopDriving(): Promise<void> {
    this.closing = true;
    for (const controller of this.active.values()) controller.abort(SHUTDOWN);
    await Promise.allSettled([...this.driving.values()]);
  }

  /**
   * Gives up the lease of a run this engine stopped driving at shutdown, still `running`: its lease
   * is made to expire now (the owner kept, so the next driver traces the recovery), and any other
   * process takes the run at once instead of after a whole lease. A run that moved on is left alone.
   */
  private async leaveAtShutdown(runId: string): Promise<RunRecord> {
    const record = await this.require(runId);
    if (record.status !== 'running' || record.leaseOwner !== this.owner) return record;
    try {
      const store = await this.db();
      const left = await store.commit({
        runId,
        expectedVersion: record.version,
        patch: { leaseExpiresAt: this.clock() },
      });
      this.logger.info('RUN lease released at shutdown', { runId });
      return left;
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
      return this.require(runId);
    }
  }

  private drive(session: RunSession, ref: FlowRef, model: ModelClient): Promise<RunSummary> {
    const controller = new AbortController();
    if (this.closing) controller.abort(SHUTDOWN);
    else if (session.doc.cancelRequested) controller.abort(CANCELLED);
    session.onCancelRequested = () => controller.abort(CANCELLED);
    this.active.set(session.runId, controller);
    const done = this.driveWith(session, ref, model, controller.signal).finally(() => {
      this.active.delete(session.runId);
      this.driving.delete(session.runId);
      this.end(session);
    });
    this.driving.set(session.runId, done);
    return done;
  }

  private async driveWith(
    session: RunSession,
    ref: FlowRef,
    model: ModelClient,
    signal: AbortSignal,
  ): Promise<RunSummary> {
    try {
      const driving = await this.options.observers.driving(session, model);
      // A flow sent over HTTP has its expressions evaluated in the sandbox (src/tools/expression-sandbox.ts).
      await withExpressionSandbox(ref.flow.sandboxExpressions === true, session.current.tenant, () =>
        drive(session, ref, loggedModel(driving.model, this.logger), {
          ...(driving.traceNode ? { traceNode: driving.traceNode } : {}),
          toolbox: this.options.toolbox,
          logger: this.logger,
          owner: this.owner,
          leaseMs: this.leaseMs,
          clock: this.clock,
          signal,
          services: {
            delegate: this.delegation(session, ref, model),
            ...(driving.telemetry ? { telemetry: driving.telemetry } : {}),
            ...(this.options.mcpAuthorization ? { authorization: this.options.mcpAuthorization } : {}),
          },
          code: this.options.code,
          ...(this.options.ablation ? { ablation: this.options.ablation } : {}),
          readMessages: async (id, after) => (await this.db()).runMessages?.(id, after) ?? [],
        }),
      );
      // A cancel arrived while a write was in flight: its result is recorded; now the run ends.
      if (session.doc.cancelRequested) return await endCancelled(this.cancelHost(), session.runId);
      // Stopped by a shutdown: its lease is given up for another process to take the run at once.
      if (signal.aborted && this.closing) return summarize(await this.leaveAtShutdown(session.runId));
      // Stopped by a cancel before its next commit: what is stored says how it stands.
      if (signal.aborted) return summarize(await this.require(session.runId));
      return summarize(session.current);
    } catch (error) {
      if (isVersionConflict(error)) return summarize(await this.require(session.runId));
      throw error;
    }
  }

  /** builtin_node_delegate's service for one parent run driven here. */
  private delegation(session: RunSession, ref: FlowRef, model: ModelClient): DelegateService {
    return delegateService({
      ref,
      cwd: this.options.cwd,
      maxFileBytes: this.options.maxFileBytes,
      runId: session.runId,
      tenant: session.current.tenant,
      model: session.current.model ?? model,
      // A child inherits the parent's provider declarations (its own win), so a model named by the
      // parent resolves in the child too.
      startChild: (child, options) =>
        this.options.startChild(
          {
            ...child,
            flow: { ...child.flow, providers: { ...ref.flow.providers, ...child.flow.providers } },
          },
          options,
        ),
      existingChild: async (parentRunId, parentCallId) =>
        existingChild(await this.db(), parentRunId, parentCallId, {
          resume: (id) => this.takeOver(id, { recovery: 'always', inherited: model }),
          waitMs: Math.max(50, Math.floor(this.leaseMs / 4)),
        }),
    });
  }

  private cancelHost(): CancelHost {
    return {
      store: () => this.db(),
      read: (runId) => this.require(runId),
      localDriver: (runId) => {
        const controller = this.active.get(runId);
        const done = this.driving.get(runId);
        return controller && done ? { stop: () => controller.abort(), done } : undefined;
      },
      // The settling drive is stopped from its start: the model is not asked again.
      takeOver: (runId) => this.takeOver(runId, { model: settlingModel, recovery: 'always' }),
      endRun: (record) => this.endCancelledAt(record),
      clock: this.clock,
      pollMs: Math.min(100, Math.max(10, Math.floor(this.leaseMs / 10))),
      waitMs: this.leaseMs + 60_000,
    };
  }

  /**
   * Ends a run `cancelled` at the version read, through a session that reads no journal (the run does
   * nothing more); the cancellation is traced as a telemetry segment of its own once committed.
   */
  private async endCancelledAt(record: RunRecord): Promise<RunSummary> {
    const store = await this.db();
    const session = await RunSession.open(store, this.hub, record, this.sinksOf(record), {
      clock: this.clock,
      journal: false,
    });
    const event = await session.endCancelled();
    await this.options.observers.aside(store, session.current, 'cancel', [event]);
    return summarize(session.current);
  }

  /** A child run's events are its own trace: they do not reach the parent's `--trace` sink. */
  private sinksOf(record: RunRecord): EventSink[] {
    return this.options.onEvent && record.parentRunId === null ? [this.options.onEvent] : [];
  }
}
