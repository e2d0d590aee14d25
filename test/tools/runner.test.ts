import { describe, expect, it } from 'vitest';
import type { ToolProgress } from '../../src/tools/call.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import { createPipeline } from '../../src/tools/pipeline.js';
import { createCallRunner, type CallHooks, type CallPlace } from '../../src/tools/runner.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { cloudTools, harness } from './guards/fixtures.js';

/** A node run's call port over the harness's flow, run and node, with what it was asked recorded. */
function runnerOver(localTools: LocalTool[]) {
  const h = harness({ localTools });
  const seen: string[] = [];
  const reports: ToolProgress[] = [];
  const runner = createCallRunner({
    flow: h.flow,
    nodeId: h.node.nodeId,
    run: h.run,
    node: h.node,
    catalog: {
      visible: h.visible,
      all: h.tools,
      invoker: new ToolInvoker({ localTools }),
      settled: () => {
        seen.push('settled');
        return Promise.resolve();
      },
    },
    pipeline: createPipeline(),
    clock: () => Date.parse('2026-01-01T00:00:00Z'),
    services: { checkpoint: () => Promise.resolve(), logger: h.logger },
    hooks: (place: CallPlace): CallHooks => {
      seen.push(`hooks ${place.callId} ${place.tool} round ${place.round}`);
      return { progress: (progress) => void reports.push(progress) };
    },
  });
  return { h, runner, seen, reports };
}

describe('the call port of a node run', () => {
  it('runs a call through the pipeline, then waits for the tool list changes, and makes no hooks for a call that reports nothing', async () => {
    const { h, runner, seen } = runnerOver(cloudTools().tools);
    const result = await runner.call({ callId: 'c1', tool: 'space_list', rawArgs: '{}' }, 1);
    expect(result).toMatchObject({ executed: true, args: {} });
    expect(result.observation.evidenceId).toBe('ev_1');
    expect(result.counted).toMatch(/^space_list#/);
    expect(result.sent).toBeUndefined();
    expect(h.run.evidence).toHaveLength(1);
    expect(seen).toEqual(['settled']);
  });

  it('makes a call its hooks when it first reports progress, once', async () => {
    const slow = defineTool({
      name: 'space_list',
      description: 'lists spaces, reporting progress',
      inputSchema: { type: 'object', properties: {} },
      execute: (_args, context) => {
        context.progress?.({ progress: 1, total: 2 });
        context.progress?.({ progress: 2, total: 2 });
        return Promise.resolve({ spaces: [] });
      },
    });
    const { runner, seen, reports } = runnerOver([slow]);
    await runner.call({ callId: 'c7', tool: 'space_list', rawArgs: '{}' }, 3);
    expect(seen).toEqual(['hooks c7 space_list round 3', 'settled']);
    expect(reports).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
  });

  it('offers the node its visible tools; arguments that are not JSON are traced raw', async () => {
    const { h, runner } = runnerOver(cloudTools().tools);
    expect(runner.tools().map((t) => t.name)).toEqual([...h.visible.keys()]);
    const result = await runner.call({ callId: 'c2', tool: 'space_list', rawArgs: '{oops' }, 1);
    expect(result.args).toBe('{oops');
    expect(result.observation.errorCode).toBe('ARG_JSON_INVALID');
  });
});
