import { randomUUID } from 'node:crypto';
import type { Flow, FlowInput } from '../domain/flow.js';
import type { EvidenceRecord } from '../domain/run-state.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { absolutizeModel, isModelClient, resolveModel, type ModelSpec } from '../model/resolve.js';
import { loadFlow } from '../flow/load.js';
import { validateRunInput } from '../flow/input.js';
import type { ModelClient } from '../model/model.js';
import type { RunFilter, RunRecord, Store, StoredEvent } from '../store/store.js';
import { VersionConflictError } from '../store/store.js';
import { drive } from '../engine/driver.js';
import { RunConflictError, RunNotFoundError, RuntimeInputError } from './errors.js';
import { EventHub } from '../trace/event-hub.js';
import { EventPoller } from '../trace/event-poller.js';
import { RunSession } from '../engine/session.js';
import { summarize, type RunSummary } from './summary.js';
import type { FlowRef, Toolbox } from '../engine/toolbox.js';
import { refuseToolNameConflicts } from '../engine/tool-names.js';
import { applyResponse, type PersonResponse } from '../engine/respond.js';
import { followEvents } from '../trace/follow.js';
import { newRun, newRunId } from '../engine/new-run.js';
import { delegateService, existingChild, respondThroughChild } from '../engine/delegation.js';
import { noopTelemetry } from '../telemetry/telemetry.js';
import type { ModelDeltaEvent } from '../trace/live.js';
import { RunObservers, type SegmentReason } from '../engine/observe.js';
import { checkExpected, waitingFor } from '../engine/pending-id.js';
import { cancelRun, endCancelled, settlingModel, type CancelHost } from '../engine/cancel.js';
import { conflictMessage, isFlowRef, leaseFromEnv, traceResultBytes } from './runtime-helpers.js';
import type { RespondOptions, RuntimeOptions, StartOptions } from './options.js';
import { applyRetry, checkRetryable, reopenFailedNode } from '../engine/retry.js';

export type { RuntimeOptions, StartOptions, RespondOptions } from './options.js';

/** The embedded runtime: starts runs and continues them after a person responds or a crash. */
export class Runtime {
  private readonly storeReady: Promise<Store>;
  private readonly toolbox: Toolbox;
  private readonly logger: Logger;
  private readonly leaseMs: number;
  private readonly resultBytes: number;
  private readonly owner = `rt_${randomUUID()}`;
  private readonly hub = new EventHub();
  private readonly poller: EventPoller;
  private readonly models = new Map<string, ModelClient>();
  private readonly active = new Map<string, AbortController>();
  private readonly driving = new Map<string, Promise<unknown>>();
  /** Set by `stopDriving()` (and `close()`): running drivers stop at their next step, later ones at once. */
  private closing = false;
  private readonly responding = new Set<string>();
  private readonly observers: RunObservers;

  constructor(private readonly options: RuntimeOptions) {
    this.storeReady = Promise.resolve(options.store);
    this.storeReady.catch(() => undefined);
    this.toolbox = options.toolbox;
    this.logger = options.logger ?? silentLogger;
    this.leaseMs = options.leaseMs ?? leaseFromEnv();
    const telemetry = options.telemetry ?? noopTelemetry;
    this.observers = new RunObservers(
      typeof telemetry === 'function' ? telemetry : () => Promise.resolve(telemetry),
    );
    this.resultBytes = traceResultBytes(options.traceResultBytes);
    this.poller = new EventPoller(
      () => this.db(),
      (runId) => this.active.has(runId),
      this.logger,
    );
  }

  /** Starts a run of a flow and drives it until it completes, fails or suspends. */
  async start(source: FlowRef | FlowInput, options: StartOptions = {}): Promise<RunSummary> {
    const ref = isFlowRef(source) ? source : await loadFlow(source);
    const flow = ref.flow;
    const modelSpec =
      options.model ?? (flow.model ? absolutizeModel(flow.model, ref.dir ?? process.cwd()) : undefined);
    if (modelSpec === undefined)
      throw new RuntimeInputError(`flow ${flow.id} names no model and none was given`);
    const model = this.model(modelSpec, flow);
    const input = options.input ?? {};
    const problems = validateRunInput(flow, input);
    if (problems.length > 0)
      throw new RuntimeInputError(
        `the input does not match flow ${flow.id}'s input schema: ${problems.join('; ')}`,
      );
    if (!this.options.enqueue) await refuseToolNameConflicts(this.toolbox, ref);
    const store = await this.db();
    const parent = options.parentRunId ? await store.getRun(options.parentRunId) : null;
    const runId = newRunId();
    const { run, events: started } = newRun(runId, {
      flow,
      flowDir: ref.dir,
      input,
      model: typeof modelSpec === 'string' ? modelSpec : null,
      parentRunId: options.parentRunId ?? null,
      rootRunId: parent ? parent.rootRunId : (options.parentRunId ?? null),
      ...(options.parentCallId ? { parentCallId: options.parentCallId } : {}),
      tenant: options.tenant ?? null,
      lease: { owner: this.owner, expiresAt: Date.now() + this.leaseMs },
    });
    const record = await store.createRun(run, started);
    if (isModelClient(modelSpec)) this.models.set(runId, model);
    if (record.parentRunId === null) for (const event of started) this.options.onEvent?.(event);
    this.hub.publish(started);
    const session = await this.session(record, 'start');
    const queued = this.queued(record);
    if (queued) {
      session.update({ leaseOwner: null, leaseExpiresAt: null });
      await session.checkpoint();
    }
    options.onAccepted?.(summarize(session.current));
    if (queued) return this.handOff(session);
    return this.driveSession(session, ref, model);
  }

  /** Approves the pending write of a suspended run and continues it. */
  approve(runId: string, options: RespondOptions = {}): Promise<RunSummary> {
    return this.respond(
      runId,
      { kind: 'APPROVAL', decision: 'approved', comment: options.comment ?? null, who: options.who ?? null },
      options,
    );
  }

  /** Declines the pending write of a suspended run and continues it. */
  reject(runId: string, options: RespondOptions = {}): Promise<RunSummary> {
    return this.respond(
      runId,
      { kind: 'APPROVAL', decision: 'rejected', comment: options.comment ?? null, who: options.who ?? null },
      options,
    );
  }

  /** Answers the pending follow-up question of a suspended run and continues it. */
  answer(runId: string, text: string, options: RespondOptions = {}): Promise<RunSummary> {
    return this.respond(runId, { kind: 'FOLLOW_UP', answer: text, who: options.who ?? null }, options);
  }

  /**
   * Takes a `failed` run up again in its failed node (src/runtime/retry.ts says how), then drives it
   * like `resume`. Throws RunConflictError, nothing changed, when the run has not failed (or failed
   * outside a node), or another request or process is continuing it.
   */
  async retry(runId: string, options: RespondOptions = {}): Promise<RunSummary> {
    if (this.responding.has(runId))
      throw new RunConflictError(runId, `run ${runId} is already being continued by another request`);
    this.responding.add(runId);
    try {
      const before = await this.require(runId);
      checkRetryable(before);
      const model = this.modelFor(before, options.model); // a bad model fails before anything changes
      const record = await (
        await this.db()
      ).acquireLease(runId, this.owner, Date.now() + this.leaseMs, Date.now());
      if (!record || record.status !== 'failed') {
        if (record) await this.release(record);
        throw new RunConflictError(runId, `run ${runId} is being continued by another process`);
      }
      const ref = this.flowRef(record);
      const session = await this.session(reopenFailedNode(record), 'retry');
      applyRetry(
        session,
        ref.flow,
        options.who ?? null,
        typeof options.model === 'string' ? options.model : undefined,
      );
      if (this.queued(record)) session.update({ leaseOwner: null, leaseExpiresAt: null });
      await session.checkpoint();
      options.onAccepted?.(summarize(session.current));
      return this.queued(record) ? await this.handOff(session) : await this.driveSession(session, ref, model);
    } finally {
      this.responding.delete(runId);
    }
  }

  /** Continues a run left `running` by a dead process (its lease expired). */
  async resume(runId: string, options: { model?: ModelSpec } = {}): Promise<RunSummary> {
    const before = await this.require(runId);
    if (before.status !== 'running')
      throw new RunConflictError(runId, `run ${runId} is ${before.status}, not running`);
    if (this.active.has(runId))
      throw new RunConflictError(runId, `run ${runId} is being driven by this process`);
    const model = this.modelFor(before, options.model); // a bad model fails here, before anything changes
    const record = await (
      await this.db()
    ).acquireLease(runId, this.owner, Date.now() + this.leaseMs, Date.now());
    if (!record || record.status !== 'running') {
      throw new RunConflictError(
        runId,
        `run ${runId} is driven by another process (its lease has not expired)`,
      );
    }
    const session = await this.session(record, 'recovery');
    if (typeof options.model === 'string') session.update({ model: options.model });
    session.emit({
      type: 'run.resumed',
      kind: 'RECOVERY',
      ...(session.doc.nodeId ? { nodeId: session.doc.nodeId } : {}),
    });
    await session.checkpoint();
    return this.driveSession(session, this.flowRef(record), model);
  }

  /**
   * Drives a `running` run that no live lease holds (a queue worker's entry point, docs/scale-out.md): a run
   * handed off in queue mode continues where it stands; one whose driver died (lease expired) is
   * taken over like `resume` (`run.resumed` RECOVERY first). Throws RunConflictError when the run is
   * not running, a live lease holds it, or this runtime already drives it.
   */
  async drive(runId: string): Promise<RunSummary> {
    const before = await this.require(runId);
    if (before.status !== 'running' || this.active.has(runId)) {
      throw new RunConflictError(
        runId,
        `run ${runId} is ${this.active.has(runId) ? 'already driven here' : before.status}`,
      );
    }
    const record = await (
      await this.db()
    ).acquireLease(runId, this.owner, Date.now() + this.leaseMs, Date.now());
    if (!record || record.status !== 'running') {
      if (record) await this.release(record);
      throw new RunConflictError(
        runId,
        `run ${runId} is driven by another process (its lease has not expired)`,
      );
    }
    const session = await this.session(record, before.leaseOwner !== null ? 'recovery' : 'drive');
    if (before.leaseOwner !== null) {
      session.emit({
        type: 'run.resumed',
        kind: 'RECOVERY',
        ...(session.doc.nodeId ? { nodeId: session.doc.nodeId } : {}),
      });
      await session.checkpoint();
    }
    return this.driveSession(session, this.flowRef(record), this.modelFor(record, undefined));
  }

  /**
   * Cancels a run that has not ended (runtime/cancel.ts): nothing new starts; a write in flight is
   * waited for and recorded first, by its driver or, when that driver died, by this cancel.
   */
  cancel(runId: string): Promise<RunSummary> {
    return cancelRun(this.cancelHost(), runId);
  }

  /** The summary of a run, or throws RunNotFoundError. */
  async status(runId: string): Promise<RunSummary> {
    return summarize(await this.require(runId));
  }

  /** The run's evidence records (`ev_1`, `ev_2`, … with full payloads), in id order; RunNotFoundError for an unknown run. */
  async evidence(runId: string): Promise<EvidenceRecord[]> {
    await this.require(runId);
    return (await this.db()).evidence(runId);
  }

  /** One evidence record of the run, or null when the run has none with this id; RunNotFoundError for an unknown run. */
  async evidenceRecord(runId: string, evidenceId: string): Promise<EvidenceRecord | null> {
    return (await this.evidence(runId)).find((e) => e.id === evidenceId) ?? null;
  }

  /** Summaries of runs, newest first. */
  async list(filter: RunFilter = {}): Promise<RunSummary[]> {
    return (await (await this.db()).listRuns(filter)).map(summarize);
  }

  /** The run's trace events: replayed from the store, then live until the run ends (or `follow: false`). */
  async *events(
    runId: string,
    options: { after?: number; follow?: boolean; signal?: AbortSignal } = {},
  ): AsyncIterable<StoredEvent> {
    yield* followEvents(await this.db(), this.hub, this.poller, runId, options);
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
  async stopDriving(): Promise<void> {
    this.closing = true;
    for (const controller of this.active.values()) controller.abort();
    await Promise.allSettled([...this.driving.values()]);
  }

  /** Stops local drivers (`stopDriving`), then closes MCP connections and the store. */
  async close(): Promise<void> {
    await this.stopDriving();
    await this.toolbox.close();
    const store = await this.storeReady.catch(() => null);
    await store?.close();
    await this.observers.shutdown();
  }

  /** The lease length this runtime writes (ms). */
  get leaseLength(): number {
    return this.leaseMs;
  }

  /** The store, once open. */
  db(): Promise<Store> {
    return this.storeReady;
  }

  private async respond(
    runId: string,
    response: PersonResponse,
    options: RespondOptions,
  ): Promise<RunSummary> {
    // Two responses racing in one process share this runtime's lease owner, so the lease alone
    // cannot tell them apart: the first one in holds the run until it is accepted.
    if (this.responding.has(runId)) {
      throw new RunConflictError(runId, `run ${runId} is already being continued by another request`);
    }
    this.responding.add(runId);
    try {
      return await this.respondOnce(runId, response, options);
    } finally {
      this.responding.delete(runId);
    }
  }

  private async respondOnce(
    runId: string,
    response: PersonResponse,
    options: RespondOptions,
  ): Promise<RunSummary> {
    const before = await this.require(runId);
    const waiting = (before.suspension as { kind?: string } | null)?.kind;
    if (before.status !== 'suspended' || waiting !== response.kind) {
      throw new RunConflictError(runId, conflictMessage(runId, before.status, waiting, response.kind));
    }
    checkExpected(before, options.expect);
    const model = this.modelFor(before, options.model); // a bad model fails here, before anything changes
    const record = await (
      await this.db()
    ).acquireLease(runId, this.owner, Date.now() + this.leaseMs, Date.now());
    const now = record?.suspension as { kind?: string } | null | undefined;
    if (!record || record.status !== 'suspended' || now?.kind !== response.kind) {
      if (record) await this.release(record);
      throw new RunConflictError(
        runId,
        `run ${runId} is no longer waiting for ${response.kind === 'APPROVAL' ? 'an approval' : 'an answer'}`,
      );
    }
    if (waitingFor(record) !== waitingFor(before)) {
      // It moved on to another item meanwhile (a racing response): this one was meant for the previous.
      await this.release(record);
      throw new RunConflictError(
        runId,
        `run ${runId} now waits for another item (${waitingFor(record) ?? 'none'})`,
      );
    }
    const ref = this.flowRef(record);
    const session = await this.session(record, response.kind === 'APPROVAL' ? 'approval' : 'answer');
    if (typeof options.model === 'string') session.update({ model: options.model });
    const childRunId = session.doc.loop.suspended?.childRunId;
    if (childRunId) {
      const settled = await respondThroughChild(session, ref, childRunId, response, {
        respond: (id, r) =>
          this.respond(id, r, {
            comment: options.comment ?? null,
            who: options.who ?? null,
            ...(options.expect !== undefined ? { expect: options.expect } : {}),
          }),
        release: (record) => this.release(record),
      });
      if (settled) {
        this.observers.end(session);
        options.onAccepted?.(settled);
        return settled;
      }
    } else {
      applyResponse(session, ref.flow, response, this.logger);
    }
    const queued = this.queued(record);
    session.update({
      status: 'running',
      suspension: null,
      ...(queued ? { leaseOwner: null, leaseExpiresAt: null } : {}),
    });
    await session.checkpoint();
    options.onAccepted?.(summarize(session.current));
    if (queued) return this.handOff(session);
    return this.driveSession(session, ref, model);
  }

  /** Whether a run is handed to the queue instead of being driven here (queue mode, top-level runs). */
  private queued(record: RunRecord): boolean {
    return this.options.enqueue !== undefined && record.parentRunId === null;
  }

  /** Passes a persisted, unleased run to the queue; a worker drives it. */
  private async handOff(session: RunSession): Promise<RunSummary> {
    this.observers.end(session);
    await this.options.enqueue?.(session.runId);
    return summarize(session.current);
  }

  private driveSession(session: RunSession, ref: FlowRef, model: ModelClient): Promise<RunSummary> {
    const controller = new AbortController();
    if (this.closing || session.doc.cancelRequested) controller.abort();
    session.onCancelRequested = () => controller.abort();
    this.active.set(session.runId, controller);
    const done = this.driveWith(session, ref, model, controller).finally(() => {
      this.active.delete(session.runId);
      this.driving.delete(session.runId);
      this.observers.end(session);
    });
    this.driving.set(session.runId, done);
    return done;
  }

  private async driveWith(
    session: RunSession,
    ref: FlowRef,
    model: ModelClient,
    controller: AbortController,
  ): Promise<RunSummary> {
    try {
      const driving = await this.observers.driving(session, model, this.toolbox);
      await drive(session, ref, driving.model, {
        ...(driving.traceNode ? { traceNode: driving.traceNode } : {}),
        toolbox: driving.toolbox,
        logger: this.logger,
        owner: this.owner,
        leaseMs: this.leaseMs,
        signal: controller.signal,
        services: {
          delegate: delegateService({
            ref,
            runId: session.runId,
            tenant: session.current.tenant,
            model: session.current.model ?? model,
            // A child inherits the parent's provider declarations (its own win), so a model named
            // by the parent resolves in the child too.
            startChild: (childRef, options) =>
              this.start(
                {
                  ...childRef,
                  flow: {
                    ...childRef.flow,
                    providers: { ...ref.flow.providers, ...childRef.flow.providers },
                  },
                },
                options,
              ),
            existingChild: async (parentRunId, parentCallId) =>
              existingChild(await this.db(), parentRunId, parentCallId, {
                resume: (id) => this.resume(id),
                waitMs: Math.max(50, Math.floor(this.leaseMs / 4)),
              }),
          }),
        },
      });
      // A cancel arrived while a write was in flight: its result is recorded; now the run ends.
      if (session.doc.cancelRequested) return endCancelled(this.cancelHost(), session.runId);
      // Stopped by a cancel before its next commit: what is stored says how it stands.
      if (controller.signal.aborted) return this.status(session.runId);
      return summarize(session.current);
    } catch (error) {
      if (error instanceof VersionConflictError) return this.status(session.runId);
      throw error;
    }
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
      takeOver: (runId) => this.resume(runId, { model: settlingModel }), // the model is not asked again
      publish: async (events, record) => {
        for (const event of events) this.options.onEvent?.(event);
        this.hub.publish(events);
        await this.observers.aside(await this.db(), record, 'cancel', events);
      },
      pollMs: Math.min(100, Math.max(10, Math.floor(this.leaseMs / 10))),
      waitMs: this.leaseMs + 60_000,
    };
  }

  private async session(record: RunRecord, reason: SegmentReason): Promise<RunSession> {
    // A child run's events are its own trace: they do not reach the parent's `--trace` sink (docs/observations.md).
    const sinks = this.options.onEvent && record.parentRunId === null ? [this.options.onEvent] : [];
    const { segment, sink } = await this.observers.open(await this.db(), record, reason);
    const session = await RunSession.open(await this.db(), this.hub, record, sink ? [...sinks, sink] : sinks);
    session.resultBytes = this.resultBytes;
    this.observers.attach(session, segment);
    return session;
  }

  private async release(record: RunRecord): Promise<void> {
    try {
      await (
        await this.db()
      ).commit({
        runId: record.runId,
        expectedVersion: record.version,
        patch: { leaseOwner: null, leaseExpiresAt: null },
      });
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }

  private async require(runId: string): Promise<RunRecord> {
    const record = await (await this.db()).getRun(runId);
    if (!record) throw new RunNotFoundError(runId);
    return record;
  }

  private flowRef(record: RunRecord): FlowRef {
    return { flow: record.flow as Flow, dir: record.flowDir };
  }

  private model(spec: ModelSpec, flow: Flow): ModelClient {
    try {
      return resolveModel(spec, this.options.providers, flow.providers);
    } catch (error) {
      throw new RuntimeInputError((error as Error).message, { cause: error });
    }
  }

  private modelFor(record: RunRecord, override: ModelSpec | undefined): ModelClient {
    if (override !== undefined) return this.model(override, record.flow as Flow);
    const local = this.models.get(record.runId);
    if (local) return local;
    if (record.model) return this.model(record.model, record.flow as Flow);
    throw new RuntimeInputError(
      `run ${record.runId} was started with a model object; pass the model to continue it`,
    );
  }
}
