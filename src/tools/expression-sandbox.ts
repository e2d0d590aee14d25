import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { Worker } from 'node:worker_threads';

/**
 * Evaluates JSONata expressions that nobody trusted (a flow sent over HTTP, a path the model wrote) in a
 * worker thread with a memory ceiling and a hard deadline. In the process itself a budget is checked only
 * between evaluation steps, and one step — a built-in such as `$distinct` (quadratic), `$pad` or `$replace`
 * (any size), a regex built with `$eval` — can run for minutes or take gigabytes. Here such an
 * expression is stopped (its worker terminated and replaced) and is an expression error; the server's
 * event loop and heap never see it. `$eval` is not available to these expressions.
 */

/** Wall time one sandboxed evaluation may take, from the moment the worker starts it (ms). */
export const SANDBOX_TIMEOUT_MS = 1_000;
/**
 * Wall time a new worker may take to load its file and say it is ready (ms). Not counted against the
 * evaluation it was started for: on a loaded machine loading a module takes longer than evaluating.
 */
const STARTUP_TIMEOUT_MS = 10_000;
/** Heap limits of the sandbox worker. */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
/** Evaluations one tenant may have waiting for the worker; one more is refused at once. */
const MAX_WAITING_PER_TENANT = 64;
/** The largest value (characters of JSON) a sandboxed expression may give back. */
export const SANDBOX_MAX_RESULT = 1024 * 1024;
/** Characters of expression text whose compiled forms the worker keeps (about 35× that in memory). */
const MAX_CACHED_TEXT = 256 * 1024;

/**
 * The worker's file: compiled `.js` beside this module in `dist/`, the `.ts` source when this module
 * itself runs from `src/` (tests, under Node's type stripping).
 */
const THREAD = new URL(
  `./expression-sandbox-thread.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

/** Why a sandboxed evaluation gave no value (the caller turns it into its ExpressionError). */
export class SandboxError extends AgentRuntimeError {
  override readonly name = 'SandboxError';
  declare readonly code: 'SANDBOX_FAILED';
  constructor(message: string, options?: ErrorOptions) {
    super('SANDBOX_FAILED', message, options);
  }
}

interface Job {
  readonly id: number;
  readonly tenant: string | null;
  readonly expression: string;
  readonly input: unknown;
  readonly resolve: (value: SandboxValue) => void;
  readonly reject: (error: SandboxError) => void;
}

/** A sandboxed expression's value (plain JSON; undefined: no match) and how long the worker spent on it. */
export interface SandboxValue {
  readonly value: unknown;
  readonly busyMs: number;
}

type Answer = { id: number; ok: true; text?: string } | { id: number; ok: false; message: string };
/** What the worker posts: that it is ready, then one answer per evaluation. */
type Reply = { ready: true } | Answer;

/**
 * One worker, one evaluation at a time; a stuck or bloated evaluation costs only its worker. Waiting
 * evaluations queue per tenant and are served in turn (round robin), so one tenant's slow expressions
 * delay another tenant's by at most one evaluation each, and each tenant's queue is bounded.
 */
export class ExpressionSandbox {
  private worker: Worker | null = null;
  /** Whether the worker has loaded its file (the current evaluation's deadline runs from then). */
  private ready = false;
  private current: { readonly job: Job; timer: NodeJS.Timeout; started: number } | null = null;
  /** Waiting jobs per tenant, in the order tenants get their next turn. */
  private readonly waiting = new Map<string | null, Job[]>();
  private nextId = 1;

  constructor(private readonly limits: Readonly<Record<string, number>>) {}

  /** The expression's value over `input` and the worker's time on it; rejects with SandboxError. */
  evaluate(expression: string, input: unknown, tenant: string | null = null): Promise<SandboxValue> {
    const queue = this.waiting.get(tenant) ?? [];
    if (queue.length >= MAX_WAITING_PER_TENANT)
      return Promise.reject(
        new SandboxError(
          `too many of this tenant's sandboxed expressions are waiting (${MAX_WAITING_PER_TENANT}); try again later`,
        ),
      );
    return new Promise((resolve, reject) => {
      queue.push({ id: this.nextId++, tenant, expression, input, resolve, reject });
      this.waiting.set(tenant, queue);
      this.pump();
    });
  }

  /** Stops the worker (waiting evaluations fail). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(new SandboxError('the expression sandbox was closed'));
    for (const queue of this.waiting.values())
      for (const job of queue) job.reject(new SandboxError('the expression sandbox was closed'));
    this.waiting.clear();
    await worker?.terminate();
  }

  /** The next job: the first of the tenant whose turn it is; that tenant goes to the back of the line. */
  private next(): Job | undefined {
    for (const [tenant, queue] of this.waiting) {
      this.waiting.delete(tenant);
      const job = queue.shift();
      if (queue.length > 0) this.waiting.set(tenant, queue);
      if (job) return job;
    }
    return undefined;
  }

  private pump(): void {
    if (this.current) return;
    const job = this.next();
    if (!job) return;
    let worker: Worker;
    try {
      worker = this.ensureWorker();
      worker.postMessage({ id: job.id, expression: job.expression, input: job.input });
    } catch (error) {
      job.reject(new SandboxError(`the expression could not be sent to the sandbox: ${String(error)}`));
      this.pump();
      return;
    }
    this.current = { job, timer: this.deadline(), started: Date.now() };
  }

  /** The current evaluation's deadline: its own once the worker is ready, else the worker's startup. */
  private deadline(): NodeJS.Timeout {
    return this.ready
      ? setTimeout(() => this.restart(`took longer than ${SANDBOX_TIMEOUT_MS} ms`), SANDBOX_TIMEOUT_MS)
      : setTimeout(
          () => this.restart(`the sandbox did not start within ${STARTUP_TIMEOUT_MS} ms`),
          STARTUP_TIMEOUT_MS,
        );
  }

  /** The worker has loaded its file: the evaluation sent meanwhile starts its own deadline now. */
  private started(): void {
    this.ready = true;
    if (!this.current) return;
    clearTimeout(this.current.timer);
    this.current.timer = this.deadline();
    this.current.started = Date.now();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD, {
      // None of the flags the process was started with (loaders, `--input-type`…) apply to the thread.
      execArgv: [],
      workerData: {
        limits: this.limits,
        maxResult: SANDBOX_MAX_RESULT,
        maxCachedText: MAX_CACHED_TEXT,
      },
      resourceLimits: RESOURCE_LIMITS,
    });
    this.ready = false;
    worker.on('message', (reply: Reply) => {
      if (this.worker !== worker) return;
      if ('ready' in reply) this.started();
      else this.settle(reply);
    });
    worker.on('error', (error: NodeJS.ErrnoException) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.fail(
        new SandboxError(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `needed more than ${RESOURCE_LIMITS.maxOldGenerationSizeMb} MB of memory`
            : `the sandbox failed: ${error.message}`,
        ),
      );
      this.pump();
    });
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.fail(new SandboxError('the sandbox stopped'));
      this.pump();
    });
    // After the listeners: adding a 'message' listener refs the worker again, and an idle sandbox must
    // never keep the process alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(reply: Answer): void {
    if (!this.current || this.current.job.id !== reply.id) return;
    const { job, timer, started } = this.current;
    clearTimeout(timer);
    this.current = null;
    const busyMs = Date.now() - started;
    if (reply.ok)
      job.resolve({
        value: reply.text === undefined ? undefined : (JSON.parse(reply.text) as unknown),
        busyMs,
      });
    else job.reject(new SandboxError(reply.message));
    this.pump();
  }

  /** Ends the current evaluation with `why`, replaces the worker, and goes on with the queue. */
  private restart(why: string): void {
    const worker = this.worker;
    this.worker = null;
    this.fail(new SandboxError(why));
    void worker?.terminate();
    this.pump();
  }

  private fail(error: SandboxError): void {
    if (!this.current) return;
    clearTimeout(this.current.timer);
    this.current.job.reject(error);
    this.current = null;
  }
}
