import { startJsonRpcHttpServer } from './json-rpc-http.js';

/**
 * A Streamable HTTP MCP server of the 2025-11-25 revision whose one tool, `build_report`, runs only as a
 * task (`execution.taskSupport: required`). Its tasks live in the server, not in a session, so a client in
 * another process can poll them. A task works until the test ends it (`complete`, `fail`) or forgets it
 * (`forget`: its ttl passed); every request is recorded by method.
 */
export interface TaskServer {
  readonly url: string;
  /** Every request by method, with its params. */
  readonly requests: { method: string; params: Record<string, unknown> }[];
  /** Ends every working task successfully (its result names the topic). */
  complete(): void;
  /** Ends every working task as failed (a tool error result). */
  fail(): void;
  /** Forgets every task (its ttl passed). */
  forget(): void;
  calls(method: string): Record<string, unknown>[];
  close(): Promise<void>;
}

interface Task {
  taskId: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  statusMessage: string;
  topic: string;
  createdAt: string;
}

const TOOL = {
  name: 'build_report',
  description: 'Builds a report on a topic; takes a while, runs as a task.',
  inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  execution: { taskSupport: 'required' },
};

export async function startTaskServer(): Promise<TaskServer> {
  const requests: TaskServer['requests'] = [];
  const tasks = new Map<string, Task>();
  let polls = 0;
  const wire = (task: Task) => ({
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    createdAt: task.createdAt,
    lastUpdatedAt: task.createdAt,
    ttl: 600_000,
    pollInterval: 100,
  });
  const answer = (method: string, params: Record<string, unknown>): Record<string, unknown> | string => {
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
          serverInfo: { name: 'task-test', version: '1.0.0' },
        };
      case 'tools/list':
        return { tools: [TOOL] };
      case 'tools/call': {
        const args = (params.arguments ?? {}) as { topic?: unknown };
        const task: Task = {
          taskId: `task-${tasks.size + 1}`,
          status: 'working',
          statusMessage: 'Gathering sources...',
          topic: String(args.topic),
          createdAt: new Date().toISOString(),
        };
        tasks.set(task.taskId, task);
        return { task: wire(task) };
      }
      case 'tasks/get':
      case 'tasks/cancel':
      case 'tasks/result': {
        const task = tasks.get(String(params.taskId));
        if (!task) return `task ${String(params.taskId)} not found`;
        if (method === 'tasks/get') {
          polls += 1;
          if (task.status === 'working') task.statusMessage = `Reading source ${polls}...`;
          return wire(task);
        }
        if (method === 'tasks/cancel') {
          if (task.status === 'working') task.status = 'cancelled';
          return wire(task);
        }
        if (task.status === 'working') return `task ${task.taskId} is still working`;
        return task.status === 'failed'
          ? { content: [{ type: 'text', text: `no sources on ${task.topic}` }], isError: true }
          : { content: [{ type: 'text', text: `Report on ${task.topic}: done.` }] };
      }
      default:
        return `no method ${method}`;
    }
  };
  const end = (status: Task['status']) => {
    for (const task of tasks.values()) if (task.status === 'working') task.status = status;
  };
  const http = await startJsonRpcHttpServer(({ method, params }) => {
    requests.push({ method, params });
    const result = answer(method, params);
    return typeof result === 'string'
      ? { error: { code: result.startsWith('no method') ? -32601 : -32602, message: result } }
      : { result };
  });
  return {
    url: http.url,
    requests,
    complete: () => end('completed'),
    fail: () => end('failed'),
    forget: () => tasks.clear(),
    calls: (method) => requests.filter((r) => r.method === method).map((r) => r.params),
    close: http.close,
  };
}
