import { createRequire } from 'node:module';
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
/** Heap limits of the sandbox worker. */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
/** Evaluations one tenant may have waiting for the worker; one more is refused at once. */
const MAX_WAITING_PER_TENANT = 64;
/** The largest value (characters of JSON) a sandboxed expression may give back. */
export const SANDBOX_MAX_RESULT = 1024 * 1024;
/** Characters of expression text whose compiled forms the worker keeps (about 35× that in memory). */
const MAX_CACHED_TEXT = 256 * 1024;

// An eval'd CommonJS script, so that it runs the same from src/ (tests) and dist/.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
const jsonata = require(workerData.jsonata);
const cache = new Map();
let cached = 0;
const noEval = () => { throw { message: '$eval is not available in this expression' }; };
parentPort.on('message', async ({ id, expression, input }) => {
  try {
    let compiled = cache.get(expression);
    if (!compiled) {
      compiled = jsonata(expression, workerData.limits);
      if (cached + expression.length > workerData.maxCachedText) { cache.clear(); cached = 0; }
      cache.set(expression, compiled);
      cached += expression.length;
    }
    const result = await compiled.evaluate(input, { eval: noEval });
    const text = result === undefined || typeof result === 'function' ? undefined : JSON.stringify(result);
    if (text !== undefined && text.length > workerData.maxResult)
      throw { message: 'its value is larger than ' + workerData.maxResult + ' characters of JSON' };
    parentPort.postMessage({ id, ok: true, text });
  } catch (error) {
    const message = error && typeof error.message === 'string' ? error.message : String(error);
    parentPort.postMessage({ id, ok: false, message });
  }
});
`;

/** Why a sandboxed evaluation gave no value (the caller turns it into its ExpressionError). */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
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

type Reply = { id: number; ok: true; text?: string } | { id: number; ok: false; message: string };

/**
 * One worker, one evaluation at a time; a stuck or bloated evaluation costs only its worker. Waiting
 * evaluations queue per tenant and are served in turn (round robin), so one tenant's slow expressions
 * delay another tenant's by at most one evaluation each, and each tenant's queue is bounded.
 */
export class ExpressionSandbox {
  private worker: Worker | null = null;
  private current: { job: Job; timer: NodeJS.Timeout; started: number } | null = null;
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
    const timer = setTimeout(() => {
      this.restart(`took longer than ${SANDBOX_TIMEOUT_MS} ms`);
    }, SANDBOX_TIMEOUT_MS);
    this.current = { job, timer, started: Date.now() };
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SOURCE, {
      eval: true,
      // The script is CommonJS whatever flags the process was started with (`--input-type=module`…).
      execArgv: [],
      workerData: {
        jsonata: createRequire(import.meta.url).resolve('jsonata'),
        limits: this.limits,
        maxResult: SANDBOX_MAX_RESULT,
        maxCachedText: MAX_CACHED_TEXT,
      },
      resourceLimits: RESOURCE_LIMITS,
    });
    worker.on('message', (reply: Reply) => this.settle(reply));
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

  private settle(reply: Reply): void {
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
