import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { boundResult, resultBytesFromEnv } from '../../src/trace/result.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { call, eventsOf, flow, makeRuntime, ofType, script, toolKit, turn } from './helpers.js';

/** `tool.invoked.result`: what a call returned, bounded, absent for calls that did not run. */
describe('tool results in the trace', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  /** The kit plus `big` (read: returns `size` characters of text in a JSON object, with a CJK tail). */
  function kitWithBig() {
    const kit = toolKit();
    const big = defineTool<{ size: number }>({
      name: 'big',
      description: 'A large result',
      inputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
      execute: ({ size }) => ({ text: `${'x'.repeat(size)}官网官网` }),
    }) as LocalTool;
    return { ...kit, tools: [...kit.tools, big] };
  }

  async function invoked(options: Parameters<typeof makeRuntime>[1], ...turns: ReturnType<typeof turn>[]) {
    const runtime = makeRuntime(kitWithBig(), options);
    runtimes.push(runtime);
    const loaded = await flow({ nodes: [{ id: 'work', tools: ['lookup', 'broken', 'big', 'save'] }] });
    const summary = await runtime.start(loaded, { input: { text: 'x' }, model: script(...turns) });
    return { runtime, summary, calls: ofType(await eventsOf(runtime, summary.runId), 'tool.invoked') };
  }

  it('carries the result of real tools and builtins, and none for a call stopped before it ran', async () => {
    const { calls } = await invoked(
      {},
      turn([call.tool('lookup', { id: 7 })]),
      turn([call.tool('nope')]),
      turn([call.tool('save', { name: 'a' })]),
      turn([call.tool('broken')]),
      turn([call.finish('all done')]),
    );
    const byTool = (tool: string) => calls.find((e) => e.tool === tool) as Record<string, unknown>;
    expect(byTool('lookup')).toMatchObject({ outcome: 'SUCCESS', result: { id: 7, name: 'item-7' } });
    expect(byTool('lookup')).not.toHaveProperty('resultTruncated');
    expect(byTool('nope')).toMatchObject({ outcome: 'REJECTED', errorCode: 'CATALOG_DENIED' });
    expect(byTool('nope')).not.toHaveProperty('result');
    expect(byTool('save')).toMatchObject({ outcome: 'DEFERRED', executed: false });
    expect(byTool('save')).not.toHaveProperty('result');
    expect(byTool('broken')).toMatchObject({ outcome: 'FAILED', executed: true });
    expect(byTool('broken')).toHaveProperty('result');
    expect(byTool('builtin_node_finish')).toMatchObject({
      outcome: 'SUCCESS',
      result: { summary: 'all done' },
    });
  });

  it('cuts a result over the bound to the beginning of its JSON text and keeps the full one in the evidence', async () => {
    const { runtime, summary, calls } = await invoked(
      { traceResultBytes: 64 },
      turn([call.tool('big', { size: 100 }), call.tool('lookup', { id: 1 })]),
      turn([call.finish()]),
    );
    const big = calls.find((e) => e.tool === 'big') as Record<string, unknown>;
    expect(big.resultTruncated).toBe(true);
    expect(typeof big.result).toBe('string');
    expect(Buffer.byteLength(big.result as string)).toBeLessThanOrEqual(64);
    expect(big.result).toBe(`{"text":"${'x'.repeat(55)}`);
    const small = calls.find((e) => e.tool === 'lookup') as Record<string, unknown>;
    expect(small).toMatchObject({ result: { id: 1, name: 'item-1' } });
    expect(small).not.toHaveProperty('resultTruncated');
    const evidence = await runtime.evidence(summary.runId);
    expect(evidence.find((e) => e.tool === 'big')?.payload).toEqual({ text: `${'x'.repeat(100)}官网官网` });
    expect(await runtime.evidenceRecord(summary.runId, 'ev_2')).toEqual(evidence[1]);
    expect(await runtime.evidenceRecord(summary.runId, 'ev_9')).toBeNull();
    await expect(runtime.evidence('run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
  });

  it('leaves results out with a bound of 0', async () => {
    const { calls } = await invoked(
      { traceResultBytes: 0 },
      turn([call.tool('lookup', { id: 1 })]),
      turn([call.finish()]),
    );
    for (const e of calls) expect(e).not.toHaveProperty('result');
  });

  it('refuses a bad bound, naming it', () => {
    expect(() => makeRuntime(toolKit(), { traceResultBytes: -1 })).toThrow(
      expect.objectContaining({ code: 'REQUEST_INVALID' }),
    );
    expect(() => resultBytesFromEnv({ AGENT_RUNTIME_TRACE_RESULT_BYTES: '16k' })).toThrow(
      /AGENT_RUNTIME_TRACE_RESULT_BYTES="16k"/,
    );
    expect(resultBytesFromEnv({ AGENT_RUNTIME_TRACE_RESULT_BYTES: '100' })).toBe(100);
    expect(resultBytesFromEnv({})).toBe(16384);
  });
});

describe('boundResult', () => {
  it('keeps a value within the bound as it is (undefined as null)', () => {
    expect(boundResult({ a: [1, 2] }, 100)).toEqual({ result: { a: [1, 2] } });
    expect(boundResult(undefined, 100)).toEqual({ result: null });
    expect(boundResult('plain text', 100)).toEqual({ result: 'plain text' });
  });

  it('cuts text by UTF-8 bytes, never inside a character', () => {
    const cut = boundResult('官网官网官网', 10) as { result: string; resultTruncated: true };
    expect(cut).toEqual({ result: '官网官', resultTruncated: true });
    const json = boundResult({ name: '官网官网官网' }, 14) as { result: string };
    expect(json.result).toBe('{"name":"官');
  });
});
