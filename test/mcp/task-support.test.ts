import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { McpPool } from '../../src/mcp/pool.js';
import { callAsTask } from '../../src/mcp/task-call.js';
import type { McpProgress } from '../../src/mcp/types.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { inMemoryTransport } from '../helpers/in-memory-mcp.js';

/**
 * Tools the server runs only as tasks (`execution.taskSupport: required`, docs/mcp.md, "Tools that
 * run as tasks"): the call is sent as a task, `tasks/get` polled at the server's interval (its status
 * messages reported as progress), the result fetched with `tasks/result`; a call cancelled cancels the
 * task. server-everything's `simulate-research-query` is one (four stages of a second each).
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const pool = new McpPool();
afterAll(() => pool.close());

describe('taskSupport: required', { timeout: 60_000 }, () => {
  it('runs the tool as a task to its result, reporting its status messages', async () => {
    const servers = pool.forFlow(
      {
        id: 'task-support',
        version: 1,
        mcpServers: { ev: { command: 'node', args: [EVERYTHING, 'stdio'] } },
      },
      REPO_ROOT,
    );
    const tools = new Map((await servers.catalog()).map((t) => [t.name, t]));
    const research = tools.get('simulate-research-query');
    expect(research?.taskSupport).toBe('required');
    const invoker = new ToolInvoker({ servers });
    const progress: string[] = [];
    const done = await invoker.invoke(
      research!,
      { topic: 'tides' },
      {
        timeoutMs: 3_000,
        maxTotalMs: 30_000,
        locale: 'en',
        onProgress: (p) => progress.push(p.message ?? ''),
      },
    );
    expect(done.ok, done.reason).toBe(true);
    expect(JSON.stringify(done.data)).toContain('Research Report: tides');
    expect(progress).toContain('Synthesizing findings...');
    // A question the task asks (through `tasks/result`) gets the run's stored answer.
    const asked: string[] = [];
    const clarified = await invoker.invoke(
      research!,
      { topic: 'python', ambiguous: true },
      {
        timeoutMs: 3_000,
        maxTotalMs: 30_000,
        locale: 'en',
        elicit: {
          answer: (request) => {
            asked.push(request.message);
            return { action: 'accept', content: { interpretation: 'the snake' } };
          },
          asked: () => undefined,
          resume: () => undefined,
        },
      },
    );
    expect(clarified.ok, clarified.reason).toBe(true);
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(clarified.data)).toContain('Clarification**: the snake');
    const echo = await invoker.invoke(
      tools.get('echo')!,
      { message: 'hi' },
      { timeoutMs: 10_000, locale: 'en' },
    );
    expect(echo.ok).toBe(true);
  });

  it('cancels the task when the call is cancelled', async () => {
    const client = new Client({ name: 'task-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
    );
    try {
      const controller = new AbortController();
      const reports: McpProgress[] = [];
      const call = callAsTask(
        client,
        { name: 'simulate-research-query', arguments: { topic: 'tides' } },
        {
          timeoutMs: 5_000,
          maxTotalMs: 30_000,
          signal: controller.signal,
          onProgress: (p) => {
            reports.push(p);
            controller.abort(new Error('run cancelled'));
          },
        },
      );
      await expect(call).rejects.toThrow('run cancelled');
      const listed = await client.request(
        { method: 'tasks/list', params: {} },
        z.looseObject({ tasks: z.array(z.looseObject({ taskId: z.string(), status: z.string() })) }),
      );
      expect(reports).toHaveLength(1);
      expect(listed.tasks.map((t) => t.status)).toEqual(['cancelled']);
    } finally {
      await client.close();
    }
  });

  it('is not sent to a server that offers no tasks for tool calls', async () => {
    let ran = 0;
    const connection = openMcpConnection({
      serverId: 'plain',
      config: { command: 'unused', args: [] },
      baseDir: process.cwd(),
      transport: inMemoryTransport(() => {
        const server = new McpServer({ name: 'plain', version: '1.0.0' });
        server.registerTool('work', { description: 'Works', inputSchema: z.object({}) }, () => {
          ran += 1;
          return Promise.resolve({ content: [{ type: 'text' as const, text: 'done' }] });
        });
        return server;
      }),
    });
    try {
      const result = await connection.callTool('work', {}, { timeoutMs: 5_000, asTask: true });
      expect(result).toEqual({ content: [], isError: false, noTasks: true });
      expect(ran).toBe(0);
    } finally {
      await connection.close();
    }
  });
});
