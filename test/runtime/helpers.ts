import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type CreateRuntimeOptions, type Runtime } from '../../src/runtime/create.js';
import { loadFlow, type LoadedFlow } from '../../src/flow/load.js';
import type { FlowInput } from '../../src/domain/flow.js';
import { scriptedModel, type ScriptedTurn } from '../../src/model/scripted.js';
import type { ModelCallContext, ModelClient, ModelRequest } from '../../src/model/model.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import type { StoredEvent } from '../../src/store/store.js';

const dirs: string[] = [];
process.once('exit', () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** A fresh temp folder, removed when the test process exits. */
export function tempDir(prefix = 'rt-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A store URL of a fresh SQLite file. */
export function sqliteUrl(): string {
  return `sqlite:${join(tempDir(), 'runtime.db')}`;
}

/** Local tools whose executions are counted, so tests can prove what ran and how often. */
export interface ToolKit {
  tools: LocalTool[];
  /** Executions per tool name, with their arguments. */
  calls: Record<string, Record<string, unknown>[]>;
  count(name: string): number;
}

/**
 * `lookup` (read: `{id}` → `{id, name}`), `noop` (read, no args), `broken` (read, always throws),
 * `scan` (read, reports progress 1/2 and 2/2), `save` (write: `{name}` → `{saved: name}`).
 */
export function toolKit(): ToolKit {
  const calls: ToolKit['calls'] = {};
  const record = (name: string, args: Record<string, unknown>) => (calls[name] ??= []).push(args);
  const tools = [
    defineTool<{ id: number }>({
      name: 'lookup',
      description: 'Find an item',
      inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      execute: (args) => {
        record('lookup', args);
        return { id: args.id, name: `item-${args.id}` };
      },
    }),
    defineTool({
      name: 'noop',
      description: 'Does nothing',
      inputSchema: { type: 'object', properties: {} },
      execute: (args) => {
        record('noop', args);
        return { ok: true };
      },
    }),
    defineTool({
      name: 'broken',
      description: 'Always fails',
      inputSchema: { type: 'object', properties: {} },
      execute: (args) => {
        record('broken', args);
        throw new Error('ledger locked');
      },
    }),
    defineTool({
      name: 'scan',
      description: 'Scans everything, reporting progress',
      inputSchema: { type: 'object', properties: {} },
      execute: (args, context) => {
        record('scan', args);
        context.progress?.({ progress: 1, total: 2, message: 'half way' });
        context.progress?.({ progress: 2, total: 2 });
        return { scanned: true };
      },
    }),
    defineTool<{ name: string }>({
      name: 'save',
      description: 'Saves a record',
      write: true,
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute: (args) => {
        record('save', args);
        return { saved: args.name };
      },
    }),
  ] as LocalTool[];
  return { tools, calls, count: (name) => calls[name]?.length ?? 0 };
}

/** A runtime with the given tools, silent, on a memory store unless told otherwise. */
export function makeRuntime(kit: ToolKit, options: Partial<CreateRuntimeOptions> = {}): Runtime {
  return createRuntime({ store: 'memory', tools: kit.tools, logger: false, ...options });
}

/** A one-node (or more) flow given as an object, through loadFlow. */
export function flow(partial: Partial<FlowInput> & Pick<FlowInput, 'nodes'>): Promise<LoadedFlow> {
  return loadFlow(
    { id: 'test-flow', locale: 'en', ...partial },
    { knownTools: ['lookup', 'noop', 'broken', 'scan', 'save'] },
  );
}

/** A scripted model from turns. */
export function script(...turns: ScriptedTurn[]): ModelClient {
  return scriptedModel({ turns });
}

/** A model that records every request (system prompt, messages, tools) it gets, answering from a script. */
export function recordingModel(
  ...turns: ScriptedTurn[]
): ModelClient & { requests: ModelRequest[]; contexts: ModelCallContext[] } {
  const inner = scriptedModel({ turns });
  const requests: ModelRequest[] = [];
  const contexts: ModelCallContext[] = [];
  return {
    id: 'recording',
    requests,
    contexts,
    call(request, context) {
      requests.push({ ...request, messages: [...request.messages] });
      contexts.push(context);
      return inner.call(request, context);
    },
  };
}

/** Shorthands for scripted calls. */
export const call = {
  tool: (tool: string, args: Record<string, unknown> = {}) => ({ tool, args }),
  finish: (summary = 'done') => ({ tool: 'builtin_node_finish', args: { summary } }),
  fail: (reason: string) => ({ tool: 'builtin_node_fail', args: { reason } }),
  ask: (question: string, options?: string[]) => ({
    tool: 'builtin_node_follow_up',
    args: { question, ...(options ? { options } : {}) },
  }),
  approval: (tool: string, summary = 'please approve') => ({
    tool: 'builtin_node_approval',
    args: { tool, summary },
  }),
  output: (key: string, value: unknown, sourceType: string, sourceRef?: string) => ({
    tool: 'builtin_output_set',
    args: { key, value, sourceType, ...(sourceRef ? { sourceRef } : {}) },
  }),
};

/** A turn with these calls (and an optional node). */
export function turn(calls: { tool: string; args?: Record<string, unknown> }[], node?: string): ScriptedTurn {
  return { ...(node ? { node } : {}), calls };
}

/** Every stored event of a run (no following). */
export async function eventsOf(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) out.push(event);
  return out;
}

/** Event types in order. */
export function typesOf(events: readonly StoredEvent[]): string[] {
  return events.map((e) => e.type);
}

/** Events of one type. */
export function ofType(events: readonly StoredEvent[], type: string): StoredEvent[] {
  return events.filter((e) => e.type === type);
}

/** A compact view of the loop-relevant events: `type` plus tool/outcome/stalls where they apply. */
export function story(events: readonly StoredEvent[]): string[] {
  const keep = new Set([
    'react.round',
    'tool.invoked',
    'tool.skipped',
    'react.stall',
    'react.no_tool_calls',
    'node.suspended',
    'run.suspended',
    'run.resumed',
    'node.completed',
    'node.failed',
    'node.started',
    'run.completed',
    'run.failed',
  ]);
  return events
    .filter((e) => keep.has(e.type))
    .map((e) => {
      switch (e.type) {
        case 'react.round':
          return `round ${String(e.round)}`;
        case 'tool.invoked':
          return `invoked ${String(e.tool)} ${String(e.outcome)}`;
        case 'tool.skipped':
          return `skipped ${String(e.tool)}`;
        case 'react.stall':
          return `stall ${String(e.stalls)}/${String(e.maxStalls)}`;
        case 'react.no_tool_calls':
          return `no_tool_calls ${String(e.stalls)}`;
        case 'node.failed':
          return `node.failed ${String(e.reason)}`;
        case 'node.started':
        case 'node.completed':
          return `${e.type} ${String(e.nodeId)}`;
        default:
          return e.type;
      }
    });
}

/** A scripted model that stops at call `at` (0-based) until released; `reached` resolves when it gets there. */
export function gatedModel(
  at: number,
  ...turns: ScriptedTurn[]
): ModelClient & { reached: Promise<void>; release(): void } {
  const inner = scriptedModel({ turns });
  let arrive: () => void = () => undefined;
  let open: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    id: 'gated',
    reached,
    release: () => open(),
    async call(request, context) {
      if (context.callIndex === at) {
        arrive();
        await gate;
      }
      return inner.call(request, context);
    },
  };
}
