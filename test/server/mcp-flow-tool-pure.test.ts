import { describe, expect, it } from 'vitest';
import { loadFlow, type LoadedFlow } from '../../src/flow/load.js';
import type { RunSummary } from '../../src/records/summary.js';
import {
  RUN_STATUS_TOOL,
  flowToolDefinition,
  flowWrites,
  runInputOf,
  runResult,
  runStatusDefinition,
} from '../../src/server/mcp-flow-tool.js';

/**
 * The pure parts of a flow offered as an MCP tool (src/server/mcp-flow-tool.ts): its definition
 * (name, description, input and output schemas, annotations), the input its arguments give, whether
 * it writes (judged without listing any MCP server), and the tool result of each run status.
 */

async function load(extra: Record<string, unknown> = {}, knownTools: string[] = []): Promise<LoadedFlow> {
  return loadFlow({ id: 'helpdesk', locale: 'en', nodes: [{ id: 'main' }], ...extra }, { knownTools });
}

function summary(over: Partial<RunSummary>): RunSummary {
  return {
    runId: 'run_1',
    status: 'completed',
    outputs: {},
    reply: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    flowId: 'helpdesk',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

describe('flowToolDefinition', () => {
  it('names the tool by the flow id, with a default description and the annotations of `writes`', async () => {
    const loaded = await load();
    const reads = flowToolDefinition(loaded.flow, false);
    expect(reads.name).toBe('helpdesk');
    expect(reads.title).toBeUndefined();
    expect(reads.description).toBe(
      "Runs the agent flow helpdesk. Its writes wait for a person's approval; the result is the run's reply and outputs.",
    );
    expect(reads.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    expect(flowToolDefinition(loaded.flow, true).annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
    const described = await load({ description: 'Answers helpdesk questions.' });
    expect(flowToolDefinition(described.flow, false).description).toBe('Answers helpdesk questions.');
  });

  it("takes the flow's object input as the tool's input schema", async () => {
    const input = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    };
    const loaded = await load({ input });
    expect(flowToolDefinition(loaded.flow, false).inputSchema).toEqual(input);
    expect(runInputOf(loaded.flow, { city: 'Oslo', days: 2 })).toEqual({ city: 'Oslo', days: 2 });
    // Without `input` the flow takes {text}, and so does its tool.
    const plain = await load();
    expect(flowToolDefinition(plain.flow, false).inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
  });

  it('wraps an input that is not an object as the single required field `input`', async () => {
    const loaded = await load({ input: { type: 'string', minLength: 1 } });
    expect(flowToolDefinition(loaded.flow, false).inputSchema).toEqual({
      type: 'object',
      properties: { input: { type: 'string', minLength: 1 } },
      required: ['input'],
    });
    expect(runInputOf(loaded.flow, { input: 'hello', other: 1 })).toBe('hello');
    expect(runInputOf(loaded.flow, {})).toBeUndefined();
  });

  it("gives the result's shape as the output schema, with the flow's outputs in `outputs`", async () => {
    const loaded = await load({
      nodes: [
        {
          id: 'main',
          outputs: { count: { required: true, sources: ['model'], schema: { type: 'integer' } } },
        },
      ],
    });
    const output = flowToolDefinition(loaded.flow, false).outputSchema as {
      type: string;
      required: string[];
      properties: Record<string, { type?: unknown; enum?: unknown; properties?: Record<string, unknown> }>;
    };
    expect(output.type).toBe('object');
    expect(output.required).toEqual(['status', 'runId']);
    expect(output.properties.status?.enum).toEqual([
      'completed',
      'suspended',
      'running',
      'failed',
      'cancelled',
    ]);
    expect(output.properties.reply?.type).toEqual(['string', 'null']);
    expect(Object.keys(output.properties).sort()).toEqual(
      ['consoleUrl', 'message', 'outputs', 'pending', 'reason', 'reply', 'runId', 'status'].sort(),
    );
    expect(output.properties.outputs?.properties?.main).toMatchObject({
      type: 'object',
      properties: { count: { type: 'integer' } },
      required: ['count'],
    });
  });
});

describe('runStatusDefinition', () => {
  it('is a read-only, closed-world tool taking a runId and an optional wait of 0 to 120 s', () => {
    const tool = runStatusDefinition();
    expect(tool.name).toBe(RUN_STATUS_TOOL);
    expect(tool.name).toBe('run_status');
    expect(tool.title).toBe('Run status');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        runId: { type: 'string', description: 'The runId a flow tool returned.' },
        waitSeconds: { type: 'number', minimum: 0, maximum: 120 },
      },
      required: ['runId'],
    });
    expect(tool.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect((tool.outputSchema as { required: string[] }).required).toEqual(['status', 'runId']);
  });
});

describe('flowWrites without MCP servers', () => {
  it('is true for a node tool whose policy says write: true', async () => {
    const loaded = await load(
      {
        tools: { ticket_create: { write: true } },
        nodes: [{ id: 'main', tools: ['ticket_list', 'ticket_create'] }],
      },
      ['ticket_list', 'ticket_create'],
    );
    expect(await flowWrites(loaded)).toBe(true);
  });

  it('is false for builtins only, or tools whose policies all say write: false', async () => {
    expect(await flowWrites(await load())).toBe(false);
    const readOnly = await load(
      { tools: { ticket_list: { write: false } }, nodes: [{ id: 'main', tools: ['ticket_list'] }] },
      ['ticket_list'],
    );
    expect(await flowWrites(readOnly)).toBe(false);
  });

  it('counts a tool without a write policy that no server annotates read-only as a write', async () => {
    const loaded = await load({ nodes: [{ id: 'main', tools: ['ticket_list'] }] }, ['ticket_list']);
    expect(await flowWrites(loaded)).toBe(true);
  });

  it('judges a loaded flow once: the same promise for the same flow', async () => {
    const loaded = await load();
    expect(flowWrites(loaded)).toBe(flowWrites(loaded));
  });
});

describe('runResult', () => {
  it('completed: the reply as text, with reply and outputs', () => {
    const done = runResult(
      summary({ reply: 'All set.', outputs: { main: { n: 1 } } }),
      'http://x/runs/run_1',
    );
    expect(done).toEqual({
      content: [{ type: 'text', text: 'All set.' }],
      structuredContent: {
        status: 'completed',
        runId: 'run_1',
        reply: 'All set.',
        outputs: { main: { n: 1 } },
      },
      isError: false,
    });
  });

  it('completed without a reply: the outputs as JSON text, reply null', () => {
    const done = runResult(summary({ outputs: { main: { n: 1 } } }), null);
    expect(done.content).toEqual([{ type: 'text', text: '{"main":{"n":1}}' }]);
    expect(done.structuredContent).toEqual({
      status: 'completed',
      runId: 'run_1',
      reply: null,
      outputs: { main: { n: 1 } },
    });
  });

  it('suspended on an approval: names the tool and the console page, not an error', () => {
    const pending = {
      tool: 'ticket_create',
      args: { title: 'x' },
      summary: 'open',
      provenance: {},
      id: 'pnd_1',
    };
    const waiting = runResult(
      summary({ status: 'suspended', suspension: { kind: 'APPROVAL', pending } }),
      'http://127.0.0.1:8080/runs/run_1',
    );
    expect(waiting).toEqual({
      content: [
        {
          type: 'text',
          text: 'Run run_1 is waiting for approval of ticket_create at http://127.0.0.1:8080/runs/run_1. Call run_status with this runId for its result once it was given.',
        },
      ],
      structuredContent: {
        status: 'suspended',
        runId: 'run_1',
        pending,
        consoleUrl: 'http://127.0.0.1:8080/runs/run_1',
      },
      isError: false,
    });
  });

  it('suspended on a question without a console: names the CLI commands and leaves consoleUrl out', () => {
    const pending = { question: 'Which printer?', options: null, id: 'pnd_2' };
    const waiting = runResult(
      summary({ status: 'suspended', suspension: { kind: 'FOLLOW_UP', pending } }),
      null,
    );
    expect(waiting.content[0]?.text).toBe(
      'Run run_1 is waiting for an answer at agent-runtime approve / answer run_1. Call run_status with this runId for its result once it was given.',
    );
    expect(waiting.structuredContent).toEqual({ status: 'suspended', runId: 'run_1', pending });
    expect(waiting.isError).toBe(false);
  });

  it('suspended without a suspension record: pending is {}', () => {
    expect(runResult(summary({ status: 'suspended' }), null).structuredContent).toEqual({
      status: 'suspended',
      runId: 'run_1',
      pending: {},
    });
  });

  it('running: tells the client to call run_status', () => {
    expect(runResult(summary({ status: 'running' }), 'http://c/runs/run_1')).toEqual({
      content: [
        { type: 'text', text: 'Run run_1 is still working; call run_status with this runId for its result.' },
      ],
      structuredContent: { status: 'running', runId: 'run_1', consoleUrl: 'http://c/runs/run_1' },
      isError: false,
    });
  });

  it('failed or cancelled: an error naming the message, else the reason, else the status', () => {
    const failed = runResult(
      summary({ status: 'failed', reason: 'MODEL_FAILED', message: 'the model is down' }),
      'http://c/runs/run_1',
    );
    expect(failed).toEqual({
      content: [{ type: 'text', text: 'Run run_1 failed: the model is down' }],
      structuredContent: {
        status: 'failed',
        runId: 'run_1',
        reason: 'MODEL_FAILED',
        message: 'the model is down',
      },
      isError: true,
    });
    expect(runResult(summary({ status: 'failed', reason: 'NO_PROGRESS' }), null).content[0]?.text).toBe(
      'Run run_1 failed: NO_PROGRESS',
    );
    const cancelled = runResult(summary({ status: 'cancelled' }), null);
    expect(cancelled).toEqual({
      content: [{ type: 'text', text: 'Run run_1 cancelled: cancelled' }],
      structuredContent: { status: 'cancelled', runId: 'run_1' },
      isError: true,
    });
  });
});
