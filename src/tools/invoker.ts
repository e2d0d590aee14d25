import { hint } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import { Observation } from '../domain/observation.js';
import { callMcpTool } from '../mcp/call-tool.js';
import { contentBlocks } from '../mcp/content.js';
import { getPromptText, listServerResources } from '../mcp/server-content.js';
import type { McpProgress, McpServerLookup, McpTaskState, McpTaskWait } from '../mcp/types.js';
import { taskRequest } from '../mcp/task-call.js';
import type { ElicitBridge, PipelineLogger, TaskBridge } from './call.js';
import type { SampleHandler } from '../mcp/sampling.js';
import type { LogSink } from '../mcp/server-log.js';
import { findRejection } from './rejected.js';
import { structuredResultProblem } from './structured-result.js';
import type { LocalTool, ToolDescriptor } from './tool.js';
import { observe, observeError, observeFailure } from './tool-errors.js';

/** Per-call options of `ToolInvoker.invoke`. */
export interface ToolInvokeOptions {
  /** After this the call is cancelled and the observation is FAILED `TOOL_TIMEOUT`. */
  readonly timeoutMs: number;
  /** MCP calls: each progress notification starts `timeoutMs` afresh, up to this in all. */
  readonly maxTotalMs?: number;
  /** Aborts the call (run cancelled). */
  readonly signal?: AbortSignal;
  /** Sent in the MCP request's `_meta`; `idempotencyKey` also reaches local tools. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Language of the observation's texts. */
  readonly locale: Locale;
  /** Told about each progress report of the call (MCP `notifications/progress`, a local tool's `progress`). */
  readonly onProgress?: (progress: McpProgress) => void;
  /** MCP calls: answers the server's questions (elicitation), and is told of one the person must answer. */
  readonly elicit?: ElicitBridge;
  /** MCP calls: answers the server's sampling requests (servers with `sampling: true`). */
  readonly sample?: SampleHandler;
  /** MCP calls of tools that run as tasks: how the run waits for the task (without it, the call waits here). */
  readonly task?: TaskBridge;
  /** MCP calls: told about the server's log messages while the call runs (docs/mcp.md, "Server log messages"). */
  readonly onLog?: LogSink;
}

/** A task call's wait as the MCP layer takes it (docs/mcp.md, "Tools that run as tasks"). */
function taskWait(bridge: TaskBridge | undefined): { task?: McpTaskWait } {
  if (!bridge) return {};
  const resume = bridge.resume();
  return {
    task: { waitMs: bridge.waitMs, ...(resume === undefined ? {} : { resume }), started: bridge.started },
  };
}

/** What the invoker calls tools through. */
export interface ToolInvokerOptions {
  /** The current flow's MCP servers (e.g. `pool.forFlow(flow, dir)`). */
  readonly servers?: McpServerLookup;
  /** Local tools, found by their descriptor's name. */
  readonly localTools?: Iterable<LocalTool>;
  /** Told about a tool's `outputSchema` that does not compile (its results are then not checked). */
  readonly logger?: PipelineLogger;
}

/**
 * Calls real tools (MCP and local) and turns every outcome into an Observation (pipeline step 6, docs/design.md). It never
 * throws for a tool's failure: SUCCESS carries the tool's result (docs/flows.md), failures are FAILED with the
 * code ToolErrors assigns; a local tool's ToolRejectedException is REJECTED with its code. It throws only for wiring bugs (a builtin or an unknown tool or server). It does
 * not log; the pipeline does.
 */
export class ToolInvoker {
  private readonly servers: McpServerLookup | null;
  private readonly locals = new Map<string, LocalTool>();
  private readonly logger: PipelineLogger;

  constructor(options: ToolInvokerOptions = {}) {
    this.servers = options.servers ?? null;
    this.logger = options.logger ?? NO_LOGGER;
    for (const tool of options.localTools ?? []) this.locals.set(tool.descriptor.name, tool);
  }

  /** Calls `tool` with `args` and returns what the model should see. */
  invoke(
    tool: ToolDescriptor,
    args: Readonly<Record<string, unknown>>,
    options: ToolInvokeOptions,
  ): Promise<Observation> {
    switch (tool.kind) {
      case 'mcp':
        return this.invokeMcp(tool, args, options);
      case 'local':
        return this.invokeLocal(tool, args, options);
      case 'builtin':
        throw new Error(`ToolInvoker does not run builtin tools (${tool.name})`);
    }
  }

  private async invokeMcp(
    tool: ToolDescriptor,
    args: Readonly<Record<string, unknown>>,
    options: ToolInvokeOptions,
  ): Promise<Observation> {
    if (!this.servers) throw new Error(`ToolInvoker has no MCP servers for tool ${tool.name}`);
    if (!tool.server) throw new Error(`MCP tool ${tool.name} has no server id`);
    const { locale, timeoutMs } = options;
    // One call into src/mcp/: the connection, the call and what it came to are decided there.
    const answer = await callMcpTool(this.servers, tool.server, tool.remoteName ?? tool.name, args, {
      timeoutMs,
      ...(options.maxTotalMs === undefined ? {} : { maxTotalMs: options.maxTotalMs }),
      signal: options.signal,
      meta: options.meta,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.elicit ? { onElicit: options.elicit.answer, resumeInput: options.elicit.resume } : {}),
      ...(options.elicit?.hold ? { onHold: options.elicit.hold } : {}),
      ...(options.sample ? { onSample: options.sample } : {}),
      // Sent as a plain call, the server would refuse it (-32601): run as a task, or not sent at all.
      ...(tool.taskSupport === 'required' ? { asTask: true, ...taskWait(options.task) } : {}),
      ...(options.onLog ? { onLog: options.onLog } : {}),
    });
    if (answer.kind === 'working') {
      options.task?.working(answer.working);
      return Observation.success(hint(locale, 'SUSPENDED_TASK', { server: tool.server, tool: tool.name }));
    }
    options.task?.ended();
    switch (answer.kind) {
      case 'failed':
        return observeFailure(answer.failure, locale, { tool: tool.name, timeoutMs });
      case 'noTasks':
        return observe('MCP_TASK_REQUIRED', locale, { tool: tool.name });
      case 'elicitation':
        options.elicit?.asked(answer.elicitation);
        return Observation.success(hint(locale, 'SUSPENDED_ELICITATION', { server: tool.server }));
      case 'toolError':
        return observe('MCP_TOOL_ERROR', locale, { tool: tool.name, detail: answer.detail }, answer.data);
      case 'result': {
        const problem = structuredResultProblem(tool, answer.result, locale, this.logger);
        if (problem !== null)
          return observe(
            'MCP_OUTPUT_SCHEMA_MISMATCH',
            locale,
            { tool: tool.name, detail: problem },
            answer.data,
          );
        return Observation.success(hint(locale, 'SUCCESS', { tool: tool.name }), answer.data).withImages(
          answer.images,
        );
      }
    }
  }

  /** `resources/read` for builtin_resource_read (ToolInvokerPort.readResource). */
  async readResource(server: string, uri: string, options: ToolInvokeOptions): Promise<Observation> {
    if (!this.servers) throw new Error(`ToolInvoker has no MCP servers to read ${uri} from`);
    const { locale, timeoutMs } = options;
    const tool = 'builtin_resource_read';
    try {
      const contents = await this.servers.connection(server).readResource?.(uri, {
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (!contents) throw new Error(`MCP server ${server} cannot read resources`);
      return Observation.success(hint(locale, 'SUCCESS', { tool }), {
        uri,
        contents: contentBlocks(contents),
      });
    } catch (error) {
      return observeError(error, locale, { tool, timeoutMs });
    }
  }

  /** `resources/list` and templates for builtin_resource_list (ToolInvokerPort.listResources). */
  async listResources(server: string, options: ToolInvokeOptions): Promise<Observation> {
    if (!this.servers) throw new Error(`ToolInvoker has no MCP servers to list ${server}'s resources`);
    const { locale, timeoutMs } = options;
    const tool = 'builtin_resource_list';
    try {
      const listing = await listServerResources(this.servers.connection(server), {
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return Observation.success(hint(locale, 'SUCCESS', { tool }), { server, ...listing });
    } catch (error) {
      return observeError(error, locale, { tool, timeoutMs });
    }
  }

  /** `prompts/get` for a node's `prompt` (ToolInvokerPort.promptText); errors are thrown as they come. */
  promptText(
    server: string,
    name: string,
    args: Readonly<Record<string, string>>,
    options: Pick<ToolInvokeOptions, 'timeoutMs' | 'signal'>,
  ): Promise<string> {
    if (!this.servers) throw new Error(`ToolInvoker has no MCP servers to get prompt ${name} from`);
    return getPromptText(this.servers.connection(server), name, args, {
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** `tasks/get` or `tasks/cancel` of a task on `server` (ToolInvokerPort.task). */
  async task(
    server: string,
    taskId: string,
    action: 'get' | 'cancel',
    options: Pick<ToolInvokeOptions, 'timeoutMs'>,
  ): Promise<McpTaskState> {
    if (!this.servers) throw new Error(`ToolInvoker has no MCP servers to look at task ${taskId}`);
    const connection = this.servers.connection(server);
    if (!connection.request) throw new Error(`MCP server ${server} cannot look at tasks`);
    return connection.request((client) => taskRequest(client, taskId, action, options.timeoutMs), {
      timeoutMs: options.timeoutMs,
    });
  }

  private async invokeLocal(
    tool: ToolDescriptor,
    args: Readonly<Record<string, unknown>>,
    options: ToolInvokeOptions,
  ): Promise<Observation> {
    const local = this.locals.get(tool.name);
    if (!local) throw new Error(`ToolInvoker has no local tool ${tool.name}`);
    const { locale, timeoutMs } = options;
    // One controller for both the timeout and the run's signal (a composite AbortSignal.any per call
    // costs weak references on the long-lived run signal).
    const timer = new AbortController();
    const signal = timer.signal;
    const outer = options.signal;
    // Told to stop before it started: the tool is not called at all.
    if (outer?.aborted) return observeError(asError(outer.reason), locale, { tool: tool.name, timeoutMs });
    const key = options.meta?.idempotencyKey;
    const report = options.onProgress;
    const progress = (p: McpProgress) => {
      if (!signal.aborted && typeof p.progress === 'number') report?.(p);
    };
    let pending: unknown;
    try {
      pending = local.execute(
        { ...args },
        typeof key === 'string' ? { signal, idempotencyKey: key, progress } : { signal, progress },
      );
    } catch (error) {
      return rejectionOf(error) ?? observeError(error, locale, { tool: tool.name, timeoutMs });
    }
    // A tool that answered at once has nothing left to time out or cancel.
    if (!isPromiseLike(pending))
      return Observation.success(hint(locale, 'SUCCESS', { tool: tool.name }), pending ?? null);
    return this.settleLocal(tool, pending, timer, options);
  }

  /** Waits for an asynchronous local tool, cancelling it on timeout or when the run is told to stop. */
  private async settleLocal(
    tool: ToolDescriptor,
    pending: PromiseLike<unknown>,
    timer: AbortController,
    options: ToolInvokeOptions,
  ): Promise<Observation> {
    const { locale, timeoutMs } = options;
    const signal = timer.signal;
    const outer = options.signal;
    const forward = () => timer.abort(outer?.reason);
    outer?.addEventListener('abort', forward, { once: true });
    const stopped = new Promise<never>((_, reject) => {
      const fail = () => reject(asError(signal.reason));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    stopped.catch(() => undefined); // observed through the race below; this only keeps it from being "unhandled"
    const timeout = setTimeout(
      () => timer.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    try {
      const value = await Promise.race([pending, stopped]);
      return Observation.success(hint(locale, 'SUCCESS', { tool: tool.name }), value ?? null);
    } catch (error) {
      if (timer.signal.aborted && !outer?.aborted)
        return observe('TOOL_TIMEOUT', locale, { tool: tool.name, timeoutMs });
      return rejectionOf(error) ?? observeError(error, locale, { tool: tool.name, timeoutMs });
    } finally {
      clearTimeout(timeout);
      outer?.removeEventListener('abort', forward);
    }
  }
}

/** For invokers built without a logger (tests, direct use): a schema that does not compile goes unreported. */
const NO_LOGGER: PipelineLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A ToolRejectedException a local tool threw (along the error's `cause` chain): REJECTED with its code,
 * reason and next step, as when a builtin throws one. Null for any other error.
 */
function rejectionOf(error: unknown): Observation | null {
  const rejection = findRejection(error);
  return rejection ? Observation.rejected(rejection.errorCode, rejection.reason, rejection.next) : null;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
