/**
 * The `g2rain-agent-runtime/testing` entry and the library's defaults: runFlow to a suspension and on,
 * the trace helpers, defineTool typed by zod, a quiet createRuntime, and `start` refusing a flow whose
 * MCP servers export one tool name twice (no run created).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DEMO_SERVER, demoDataDir } from '../helpers/demo-server.js';
import {
  createRuntime,
  defineTool,
  FlowError,
  loadFlow,
  scriptedModel,
  type LocalTool,
} from '../../src/index.js';
import { eventsOf, MemoryLogger, runFlow } from '../../src/testing/index.js';

const added: { title: string; priority: number }[] = [];

const list = defineTool({
  name: 'task_list',
  description: 'Lists the tasks',
  inputSchema: z.object({}),
  execute: () => ({ tasks: added }),
});

const add = defineTool({
  name: 'task_add',
  description: 'Adds a task',
  write: true,
  inputSchema: z.object({ title: z.string().min(1), priority: z.number().int().default(3) }),
  // The arguments are typed by the schema (title: string, priority: number) and parsed by it.
  execute: ({ title, priority }) => {
    const task: { title: string; priority: number } = { title: title.toUpperCase(), priority };
    added.push(task);
    return { task };
  },
});

const FLOW = {
  id: 'tasks',
  version: 7,
  locale: 'en' as const,
  tools: { task_add: { write: true, params: { title: { source: 'user' as const, required: true } } } },
  nodes: [{ id: 'add', instructions: 'Add the task.', tools: ['task_list', 'task_add'] }],
};

const TURNS = [
  { calls: [{ tool: 'task_list', args: {} }] },
  { calls: [{ tool: 'task_add', args: { title: 'milk' } }] },
  { calls: [{ tool: 'builtin_node_approval', args: { tool: 'task_add', summary: 'add milk' } }] },
  { calls: [{ tool: 'task_add', args: { title: 'milk' } }] },
  { calls: [{ tool: 'builtin_node_finish', args: { summary: 'added' } }] },
];

const tools = [list, add] as LocalTool[];

afterEach(() => {
  added.length = 0;
  vi.restoreAllMocks();
  delete process.env.AGENT_RUNTIME_LOG_LEVEL;
});

describe('runFlow and the trace helpers', () => {
  it('runs to the approval, continues after it, and reads the trace', async () => {
    const run = await runFlow(FLOW, { input: 'add milk', model: scriptedModel({ turns: TURNS }), tools });
    try {
      expect(run.summary).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' } });
      expect(added).toEqual([]);
      const done = await run.approve({ comment: 'ok' });
      expect(done.status).toBe('completed');
      expect(run.summary).toBe(done);
      // zod parsed the arguments: the default priority is there.
      expect(added).toEqual([{ title: 'MILK', priority: 3 }]);
      const trace = await run.trace();
      expect(trace[0]).toMatchObject({ type: 'run.started', flowId: 'tasks', flowVersion: 7 });
      expect(eventsOf(trace, 'tool.invoked').map((e) => `${e.tool}:${e.outcome}`)).toEqual([
        'task_list:SUCCESS',
        'task_add:DEFERRED',
        'builtin_node_approval:SUCCESS',
        'task_add:SUCCESS',
        'builtin_node_finish:SUCCESS',
      ]);
      expect(eventsOf(trace, 'run.resumed')[0]).toMatchObject({
        decision: 'approved',
        comment: 'ok',
        who: 'test',
      });
    } finally {
      await run.close();
    }
  });

  it('gives the model the JSON Schema of a zod schema (its input side)', () => {
    expect(add.descriptor.inputSchema).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        priority: { type: 'integer', default: 3, minimum: expect.any(Number), maximum: expect.any(Number) },
      },
      required: ['title'],
    });
    expect(() =>
      defineTool({
        name: 'x',
        description: 'x',
        inputSchema: 'nope' as unknown as Record<string, unknown>,
        execute: () => 1,
      }),
    ).toThrow(/inputSchema must be a zod 4 schema or a JSON Schema object/);
    // A schema every call would fail on is a setup error, refused when the tool is defined.
    const tool =
      (inputSchema: Record<string, unknown>, execute: unknown = () => 1) =>
      () =>
        defineTool({ name: 'x', description: 'x', inputSchema, execute: execute as () => number });
    expect(tool({ type: 'string' })).toThrow(
      'defineTool: x: inputSchema must describe an object (type: object), not "string"',
    );
    expect(tool({ type: 'object', properties: { a: { type: 'foo' } } })).toThrow(
      /defineTool: x: inputSchema is not a usable JSON Schema: /,
    );
    expect(tool({ type: 'object', properties: { a: { type: 'string', pattern: '([' } } })).toThrow(
      /defineTool: x: inputSchema is not a usable JSON Schema: /,
    );
    expect(tool({ type: 'object', properties: { a: { $ref: '#/nope' } } })).toThrow(
      /defineTool: x: inputSchema is not a usable JSON Schema: /,
    );
    expect(tool({ type: 'object' }, null)).toThrow('defineTool: x: execute must be a function');
  });
});

describe('a quiet library', () => {
  async function stderrOf(options: Parameters<typeof createRuntime>[0]): Promise<string> {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const runtime = createRuntime({ ...options, tools });
    try {
      await runtime.start(await loadFlow(FLOW, { knownTools: ['task_list', 'task_add'] }), {
        input: { text: 'add milk' },
        model: scriptedModel({ turns: TURNS.slice(0, 2) }),
      });
    } finally {
      await runtime.close();
      vi.restoreAllMocks();
    }
    return lines.join('');
  }

  it('logs nothing by default', async () => {
    expect(await stderrOf({})).toBe('');
  });

  it('logs to stderr when given a level (option or env), and to a logger when given one', async () => {
    expect(await stderrOf({ logLevel: 'info' })).toMatch(
      /^INFO TOOL invoked tool=task_list outcome=SUCCESS/m,
    );
    process.env.AGENT_RUNTIME_LOG_LEVEL = 'info';
    expect(await stderrOf({})).toMatch(/INFO TOOL invoked tool=task_list/);
    const logger = new MemoryLogger();
    expect(await stderrOf({ logger })).toBe('');
    expect(logger.find('TOOL invoked').length).toBeGreaterThan(0);
  });
});

describe('tool-name conflicts', () => {
  it('refuse the start with a flow error at `aliases`, creating no run', async () => {
    const server = {
      command: process.execPath,
      args: [DEMO_SERVER],
      env: { DEMO_CLOUD_DATA: demoDataDir() },
    };
    const flow = await loadFlow({
      id: 'twice',
      locale: 'en',
      mcpServers: { a: server, b: server },
      nodes: [{ id: 'n', tools: ['space_list'] }],
    });
    const runtime = createRuntime({});
    try {
      const error: unknown = await runtime
        .start(flow, { input: { text: 'x' }, model: scriptedModel({ turns: [] }) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlowError);
      expect((error as FlowError).problems[0]).toMatchObject({ path: 'aliases' });
      expect((error as FlowError).message).toMatch(
        /tool name conflicts: .*space_list \(a\.space_list, b\.space_list\)/,
      );
      expect(await runtime.list()).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
