import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpPool } from '../../src/mcp/pool.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import { REPO_ROOT } from '../helpers/demo-server.js';

/**
 * Tools the server runs only as tasks (`execution.taskSupport: required`): the SDK has no task
 * runtime, so such a call is not sent (the server would answer -32601) and the model is told why.
 * server-everything's `simulate-research-query` is one.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const pool = new McpPool();
afterAll(() => pool.close());

describe('taskSupport: required', () => {
  it('is MCP_TASK_REQUIRED, not a silent -32601; other tools of the server still run', async () => {
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
    const refused = await invoker.invoke(research!, { topic: 'x' }, { timeoutMs: 10_000, locale: 'en' });
    expect(refused.errorCode).toBe('MCP_TASK_REQUIRED');
    expect(refused.reason).toBe(
      'Tool simulate-research-query runs only as a task, which this runtime does not support; it was not called',
    );
    const echo = await invoker.invoke(
      tools.get('echo')!,
      { message: 'hi' },
      { timeoutMs: 10_000, locale: 'en' },
    );
    expect(echo.ok).toBe(true);
  });
});
