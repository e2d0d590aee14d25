import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create.js';
import { loadFlow } from '../../src/flow/load.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { BuiltinDefinitionError, defineBuiltin, type UserBuiltin } from '../../src/tools/builtin/user.js';
import { AgentRuntimeError } from '../../src/domain/agent-runtime-error.js';
import { defineGuard } from '../../src/tools/user-guards/define.js';
import { call, eventsOf, ofType, recordingModel, turn } from './helpers.js';

// A user's builtin is this one definition and the runtime option: nothing else changes (docs/builtins.md).
const noteAdd = defineBuiltin({
  name: 'note_add',
  description: { 'zh-CN': '给本次运行记一条备注。', en: 'Adds a note to this run.' },
  input: {
    properties: { text: { type: 'string', description: { 'zh-CN': '备注内容', en: 'The note' } } },
    required: ['text'],
  },
  codes: { NOTE_EMPTY: { number: 61501, outcome: 'REJECTED' } },
  execute: (c) =>
    String(c.args.text).trim() === ''
      ? c.reject('NOTE_EMPTY', 'the note is empty', 'write the note in text')
      : c.ok(`noted in ${c.node.id}`, { text: c.args.text, run: c.runId, input: c.input }),
});

const notesFlow = () =>
  loadFlow({
    id: 'notes',
    locale: 'en',
    nodes: [
      { id: 'write', tools: ['note_add'] },
      { id: 'plain', tools: [] },
    ],
    edges: [{ from: 'write', to: 'plain' }],
  });

/** The tool message of the model's n-th call (0-based), in the request after it. */
function toolText(
  requests: { messages: readonly { role: string; content?: unknown }[] }[],
  n: number,
): string {
  const tool = (requests[n + 1]?.messages ?? []).filter((m) => m.role === 'tool').at(-1);
  return typeof tool?.content === 'string' ? tool.content : '';
}

describe('a user builtin (defineBuiltin + createRuntime({ builtins }))', () => {
  it('is offered where a node lists it, runs through a run, and answers with its own code', async () => {
    const runtime = createRuntime({ builtins: [noteAdd], logger: false });
    const model = recordingModel(
      turn([call.tool('note_add', { text: 'call back on Monday' })], 'write'),
      turn([call.tool('note_add', { text: '  ' })], 'write'),
      turn([call.finish()], 'write'),
      turn([call.finish()], 'plain'),
    );
    const summary = await runtime.start(await notesFlow(), { input: { text: 'take notes' }, model });
    const events = await eventsOf(runtime, summary.runId);
    await runtime.close();
    expect(summary.status).toBe('completed');
    const invoked = ofType(events, 'tool.invoked').filter((e) => e.tool === 'note_add');
    expect(invoked.map((e) => [e.outcome, e.errorCode])).toEqual([
      ['SUCCESS', null],
      ['REJECTED', 'NOTE_EMPTY'],
    ]);
    expect(toolText(model.requests, 0)).toContain('noted in write');
    expect(toolText(model.requests, 0)).toContain(summary.runId);
    expect(toolText(model.requests, 1)).toBe(
      '[REJECTED NOTE_EMPTY] the note is empty. Next: write the note in text.',
    );
    const write = model.requests[0]!.tools.find((t) => t.name === 'note_add');
    expect(write).toEqual({
      name: 'note_add',
      description: 'Adds a note to this run.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The note' } },
        required: ['text'],
        additionalProperties: false,
      },
    });
    // The node that does not list it does not see it.
    expect(model.requests.at(-1)!.tools.map((t) => t.name)).not.toContain('note_add');
  });

  it('`visible` offers it without listing; what execute throws is FAILED TOOL_ERROR', async () => {
    const everywhere = defineBuiltin({
      name: 'clock_read',
      description: { 'zh-CN': '读时钟。', en: 'Reads the clock.' },
      visible: () => true,
      execute: () => {
        throw new Error('the clock is broken');
      },
    });
    const runtime = createRuntime({ builtins: [everywhere], logger: false });
    const model = recordingModel(turn([call.tool('clock_read')]), turn([call.finish()]));
    const flow = await loadFlow({ id: 'clock', locale: 'en', nodes: [{ id: 'only', tools: [] }] });
    const summary = await runtime.start(flow, { input: { text: 'time?' }, model });
    const events = await eventsOf(runtime, summary.runId);
    await runtime.close();
    expect(model.requests[0]!.tools.map((t) => t.name)).toContain('clock_read');
    const invoked = ofType(events, 'tool.invoked').find((e) => e.tool === 'clock_read');
    expect([invoked?.outcome, invoked?.errorCode]).toEqual(['FAILED', 'TOOL_ERROR']);
    expect(toolText(model.requests, 0)).toContain('the clock is broken');
  });
  it('arguments that break its input are refused before execute runs', async () => {
    let ran = 0;
    const strict = defineBuiltin({
      name: 'note_strict',
      description: { 'zh-CN': '备注', en: 'Notes' },
      input: { properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (c) => {
        ran += 1;
        return c.ok('noted');
      },
    });
    const runtime = createRuntime({ builtins: [strict], logger: false });
    const model = recordingModel(turn([call.tool('note_strict', { other: 1 })]), turn([call.finish()]));
    const flow = await loadFlow({
      id: 'strict',
      locale: 'en',
      nodes: [{ id: 'only', tools: ['note_strict'] }],
    });
    const summary = await runtime.start(flow, { input: { text: 'note' }, model });
    const events = await eventsOf(runtime, summary.runId);
    await runtime.close();
    const invoked = ofType(events, 'tool.invoked').find((e) => e.tool === 'note_strict');
    expect(invoked?.outcome).toBe('REJECTED');
    expect(ran).toBe(0);
  });
});

describe('user builtins that cannot be used', () => {
  const base = { description: { 'zh-CN': '备注', en: 'Notes' }, execute: () => never() };
  const never = (): never => {
    throw new Error('not called');
  };

  it.each([
    ['a standard builtin’s prefix', { ...base, name: 'builtin_note' }, /not starting with builtin_/],
    ['a name with a space', { ...base, name: 'note add' }, /is not usable/],
    ['a description without en', { ...base, name: 'n', description: { 'zh-CN': '备注' } }, /missing: en/],
    [
      'a required property not declared',
      { ...base, name: 'n', input: { properties: {}, required: ['text'] } },
      /required property text is not in input.properties/,
    ],
    [
      'a code number outside the user range',
      { ...base, name: 'n', codes: { NOPE: { number: 42000, outcome: 'REJECTED' } } },
      /expected a number from 60000 to 69999/,
    ],
    [
      'a runtime code name',
      { ...base, name: 'n', codes: { TOOL_ERROR: { number: 61000, outcome: 'FAILED' } } },
      /not one of the runtime's codes/,
    ],
  ])('%s: BuiltinDefinitionError', (_, spec, message) => {
    const made = (): unknown => defineBuiltin(spec as unknown as Parameters<typeof defineBuiltin>[0]);
    expect(made).toThrow(BuiltinDefinitionError);
    expect(made).toThrow(message);
    try {
      made();
    } catch (error) {
      expect(AgentRuntimeError.isInstance(error)).toBe(true);
      expect((error as BuiltinDefinitionError).code).toBe('BUILTIN_DEFINITION_INVALID');
    }
  });

  it('createRuntime refuses two with one name, one named like a local tool, and what defineBuiltin did not make', () => {
    const local: LocalTool = defineTool<Record<string, never>>({
      name: 'note_add',
      description: 'a local tool',
      inputSchema: { type: 'object' },
      execute: () => 'ok',
    });
    expect(() => createRuntime({ builtins: [noteAdd, noteAdd], logger: false })).toThrow(
      'two builtins are named "note_add"',
    );
    expect(() => createRuntime({ builtins: [noteAdd], tools: [local], logger: false })).toThrow(
      'builtin note_add has the name of a local tool',
    );
    const fake = { name: 'x', execute: () => null } as unknown as UserBuiltin;
    expect(() => createRuntime({ builtins: [fake], logger: false })).toThrow(BuiltinDefinitionError);
  });

  it('createRuntime refuses a builtin of another copy of the package, and a code a guard declares too', () => {
    // Another copy's builtin carries the same brand, but not this copy's answers.
    const copied = { ...noteAdd } as UserBuiltin;
    expect(() => createRuntime({ builtins: [copied], logger: false })).toThrow(
      'builtin note_add was made by another copy of g2rain-agent-runtime',
    );
    const guard = defineGuard({
      name: 'notes-guard',
      codes: { NOTE_EMPTY: { number: 61999, outcome: 'REJECTED' } },
      before: () => null,
    });
    expect(() => createRuntime({ builtins: [noteAdd], guards: [guard], logger: false })).toThrow(
      'builtin note_add: code NOTE_EMPTY (61501) is also declared by guard notes-guard',
    );
    const byNumber = defineGuard({
      name: 'numbers',
      codes: { OTHER: { number: 61501, outcome: 'FAILED' } },
      before: () => null,
    });
    expect(() => createRuntime({ builtins: [noteAdd], guards: [byNumber], logger: false })).toThrow(
      'is also declared by guard numbers',
    );
  });

  it('a run whose MCP server has a tool of the builtin’s name stops with BuiltinDefinitionError naming both', async () => {
    const clash = defineBuiltin({
      name: 'env_probe',
      description: { 'zh-CN': '探测', en: 'Probes' },
      execute: (c) => c.ok('probed'),
    });
    const server = join(import.meta.dirname, '../fixtures/mcp/env-server.mjs');
    const flow = await loadFlow({
      id: 'probe',
      locale: 'en',
      mcpServers: { probe: { command: process.execPath, args: [server] } },
      nodes: [{ id: 'only', tools: ['env_probe'] }],
    });
    const runtime = createRuntime({ builtins: [clash], logger: false });
    const model = recordingModel(turn([call.finish()]));
    const outcome = await runtime.start(flow, { input: { text: 'probe' }, model }).then(
      (summary) => JSON.stringify(summary),
      (error: unknown) => String(error),
    );
    await runtime.close();
    expect(outcome).toContain('builtin env_probe has the name of a tool of MCP server probe of flow probe');
  });
});
