import { SdkError, SdkErrorCode, type CallToolResult, type Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { McpCallOptions, McpTaskState } from './types.js';

/**
 * Tools that run only as tasks (2025-11-25, docs/mcp.md, "Tools that run as tasks"): the `tools/call`
 * carries `task` and the server answers at once with a task; the runtime polls `tasks/get` at the
 * server's `pollInterval` (each status message a progress report of the call) until the task ends,
 * then fetches its result with `tasks/result`. A call cancelled or timed out cancels the task
 * (`tasks/cancel`).
 */

/** How long the server keeps the task and its result after it ended, asked for with each task. */
const TASK_TTL_MS = 10 * 60_000;
/** The wait between two `tasks/get` when the server names none. */
const DEFAULT_POLL_MS = 1_000;
/** Bounds on the server's `pollInterval`: never busier than this, never longer than this. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 30_000;

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollInterval: z.number().optional(),
  ttl: z.number().nullable().optional(),
  createdAt: z.string().optional(),
});
type Task = z.infer<typeof TaskSchema>;
const CreatedSchema = z.looseObject({ task: TaskSchema });
const ResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** Whether the server of this session runs `tools/call` as tasks (it declared `tasks.requests.tools.call`). */
export function offersToolTasks(client: Client): boolean {
  if (client.getProtocolEra() === 'modern') return false;
  const tasks = client.getServerCapabilities()?.tasks as
    { requests?: { tools?: { call?: unknown } } } | undefined;
  return tasks?.requests?.tools?.call !== undefined;
}

/** A task call's outcome: its result, or the task still working once the call's `task.waitMs` passed. */
export type TaskCallResult =
  | { readonly result: CallToolResult; readonly working?: never }
  | { readonly working: McpTaskState; readonly result?: never };

/**
 * One `tools/call` as a task, to its result. The whole task is bounded by the call's `maxTotalMs`
 * (at least `timeoutMs`); past it, or when the call's signal aborts, the task is cancelled and the
 * call rejects as a timed-out or cancelled request does. With `options.task` the call polls only for
 * `task.waitMs` and then returns the task still working (nothing cancelled): the run waits for it and
 * a later call with `task.resume` polls the same task, from any process, never sending it again.
 */
export async function callAsTask(
  client: Client,
  params: Record<string, unknown>,
  options: McpCallOptions,
): Promise<TaskCallResult> {
  const wait = options.task;
  const budget = Math.max(options.maxTotalMs ?? options.timeoutMs, options.timeoutMs);
  const deadline = AbortSignal.timeout(wait ? Math.min(wait.waitMs, budget) : budget);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const request = { timeout: options.timeoutMs, signal };
  let task: Task;
  if (wait?.resume !== undefined) {
    task = await getTask(client, wait.resume, { timeout: options.timeoutMs, signal: options.signal });
  } else {
    const created = await client.request(
      { method: 'tools/call', params: { ...params, task: { ttl: TASK_TTL_MS } } },
      CreatedSchema,
      request,
    );
    task = created.task;
    await wait?.started?.(stateOf(task));
  }
  let reports = 0;
  try {
    while (!ENDED.has(task.status) && task.status !== 'input_required') {
      await pause(pollMs(task), signal);
      task = await getTask(client, task.taskId, request);
      if (task.statusMessage !== undefined)
        options.onProgress?.({ progress: (reports += 1), message: task.statusMessage });
    }
    if (task.status === 'cancelled')
      throw new SdkError(SdkErrorCode.RequestTimeout, `the server cancelled task ${task.taskId}`);
    // `tasks/result` waits for the end of a task that needs input, delivering the server's questions.
    const result = await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      ResultSchema,
      { timeout: budget, ...(options.signal ? { signal: options.signal } : {}) },
    );
    return { result: { ...result, content: result.content ?? [] } as CallToolResult };
  } catch (error) {
    // Waited long enough here: the task goes on at the server, and the run waits for it.
    if (wait && deadline.aborted && !options.signal?.aborted) return { working: stateOf(task) };
    if (signal.aborted) await cancelTask(client, task.taskId);
    throw deadline.aborted && !options.signal?.aborted
      ? new SdkError(SdkErrorCode.RequestTimeout, `task ${task.taskId} did not end within ${budget} ms`)
      : error;
  }
}

/** `tasks/get` of one task. A task the server no longer knows (its ttl passed) rejects with the server's error. */
export async function getTask(
  client: Client,
  taskId: string,
  request: { timeout: number; signal?: AbortSignal | undefined },
): Promise<Task> {
  return client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema, {
    timeout: request.timeout,
    ...(request.signal ? { signal: request.signal } : {}),
  });
}

/** `tasks/get` or `tasks/cancel` of a task started earlier (a suspended run's), as the server reports it. */
export async function taskRequest(
  client: Client,
  taskId: string,
  action: 'get' | 'cancel',
  timeoutMs: number,
): Promise<McpTaskState> {
  const task = await client.request({ method: `tasks/${action}`, params: { taskId } }, TaskSchema, {
    timeout: timeoutMs,
  });
  return stateOf(task);
}

function stateOf(task: Task): McpTaskState {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    ...(task.pollInterval === undefined ? {} : { pollInterval: pollMs(task) }),
    ...(task.ttl === undefined ? {} : { ttl: task.ttl }),
    ...(task.createdAt === undefined ? {} : { createdAt: task.createdAt }),
  };
}

function pollMs(task: Task): number {
  const asked = task.pollInterval ?? DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, asked));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Best effort: a task the server already ended or forgot cannot be cancelled, which is fine. */
export async function cancelTask(client: Client, taskId: string): Promise<void> {
  await client
    .request({ method: 'tasks/cancel', params: { taskId } }, TaskSchema, { timeout: 5_000 })
    .catch(() => undefined);
}
