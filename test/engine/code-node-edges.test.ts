/**
 * Code nodes (src/engine/code-node.ts, docs/flows.md "Code nodes") through an in-process runtime on
 * the memory store: the edges test/graph/code-node.test.ts leaves out — a run again that makes other
 * calls, what a function may call, the frozen copies it is given, the failure message, a caught
 * suspension, the results it reads and the call ids it traces.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeStep, CodeToolResult } from '../../src/domain/code-step.js';
import { loadFlow } from '../../src/flow/load.js';
import type { CodeFlowInput } from '../../src/flow/typed-outputs.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { eventsOf, makeRuntime, ofType, script, toolKit } from '../runtime/helpers.js';

const KNOWN = { knownTools: ['lookup', 'noop', 'broken', 'save'] };

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

function runtime(kit = toolKit()): Runtime {
  const r = makeRuntime(kit);
  runtimes.push(r);
  return r;
}

/** A one-node flow whose node runs `run`, with the tools given and an optional output `out`. */
function codeFlow(run: CodeStep, tools: string[] = ['lookup', 'save'], outputs = { out: {} }): CodeFlowInput {
  return {
    id: 'code',
    locale: 'en',
    input: { type: 'object' },
    tools: { save: { write: true } },
    nodes: [{ id: 'step', tools, outputs, run }],
  };
}

async function start(rt: Runtime, run: CodeStep, tools?: string[], input: unknown = { text: 'x' }) {
  return rt.start(await loadFlow(codeFlow(run, tools), KNOWN), { input, model: script() });
}

describe('a code node that runs again', () => {
  it('fails CODE_NODE_REPLAY_MISMATCH when it makes another call at a recorded position', async () => {
    const kit = toolKit();
    const rt = runtime(kit);
    let runs = 0;
    const started = await start(rt, async (ctx) => {
      runs += 1;
      await ctx.tools.call('lookup', { id: runs === 1 ? 7 : 8 });
      await ctx.tools.call('save', { name: 'a' });
      return { out: 1 };
    });
    expect(started.status).toBe('suspended');
    const done = await rt.approve(started.runId);
    expect(done).toMatchObject({ status: 'failed', reason: 'CODE_NODE_REPLAY_MISMATCH' });
    expect(done.message).toContain(
      'code node step ran again with another call at position 1: lookup instead of lookup (or other arguments); a code node must make the same tool calls when it runs again',
    );
    expect(kit.count('lookup')).toBe(1);
    expect(kit.count('save')).toBe(0);
  });

  it('compares arguments by their canonical JSON: another key order is the same call', async () => {
    const kit = toolKit();
    const rt = runtime(kit);
    let runs = 0;
    const started = await start(rt, async (ctx) => {
      runs += 1;
      const args = runs === 1 ? { name: 'a', note: 'n' } : { note: 'n', name: 'a' };
      await ctx.tools.call('lookup', { id: 7 });
      const saved = await ctx.tools.call('save', args);
      return { out: saved.outcome };
    });
    expect(started.status).toBe('suspended');
    const done = await rt.approve(started.runId);
    expect(done.status).toBe('completed');
    expect(done.outputs).toEqual({ step: { out: 'SUCCESS' } });
    expect(kit.count('lookup')).toBe(1);
  });

  it('stays suspended when the function catches the suspension and returns, or calls again', async () => {
    const kit = toolKit();
    const rt = runtime(kit);
    const seen: string[] = [];
    const started = await start(rt, async (ctx) => {
      try {
        await ctx.tools.call('save', { name: 'a' });
      } catch (error) {
        seen.push((error as Error).message);
        await ctx.tools.call('lookup', { id: 1 }).catch((e: unknown) => seen.push((e as Error).message));
        return { out: 'swallowed' };
      }
      return { out: 'saved' };
    });
    expect(started.status).toBe('suspended');
    expect(started.suspension?.kind).toBe('APPROVAL');
    const message = 'the run is suspended for a person; this code node runs again once they answered';
    expect(seen).toEqual([message, message]);
    expect(kit.count('lookup')).toBe(0);
    const done = await rt.approve(started.runId);
    expect(done.outputs).toEqual({ step: { out: 'saved' } });
    expect(kit.count('save')).toBe(1);
  });
});

describe('what a code node may call', () => {
  it('refuses a tool outside its tools, a builtin and a tool that is not a string, naming its tools', async () => {
    const cases: [unknown, string[], string][] = [
      ['noop', ['lookup'], 'code node step may call only its tools (lookup); got noop'],
      [
        'builtin_node_finish',
        ['lookup', 'save'],
        'code node step may call only its tools (lookup, save); got builtin_node_finish',
      ],
      ['lookup', [], 'code node step may call only its tools (none); got lookup'],
      [42, ['lookup'], 'code node step may call only its tools (lookup); got 42'],
    ];
    for (const [tool, tools, message] of cases) {
      const kit = toolKit();
      const summary = await start(
        runtime(kit),
        async (ctx) => {
          await ctx.tools.call(tool as string);
          return { out: 1 };
        },
        tools,
      );
      expect(summary).toMatchObject({ status: 'failed', reason: 'CODE_NODE_ERROR' });
      expect(summary.message).toContain(`TypeError: ${message}`);
      expect(kit.count('noop') + kit.count('lookup')).toBe(0);
    }
  });
});

describe('what a code node is given and returns', () => {
  it('gets frozen copies of the input and the earlier outputs: changing them fails the node', async () => {
    const input = { order: { items: [1, 2] } };
    const summary = await start(
      runtime(),
      (ctx) => {
        expect(Object.isFrozen(ctx.input)).toBe(true);
        expect(Object.isFrozen((ctx.input as typeof input).order.items)).toBe(true);
        (ctx.input as typeof input).order.items.push(3);
        return { out: 1 };
      },
      [],
      input,
    );
    expect(summary).toMatchObject({ status: 'failed', reason: 'CODE_NODE_ERROR' });
    expect(summary.message).toMatch(/TypeError: Cannot add property 2, object is not extensible/);
    expect(input.order.items).toEqual([1, 2]);
  });

  it('words what it threw: the error name unless plain Error, a thrown value as text, at most 500 characters', async () => {
    const cases: [() => never, string][] = [
      [
        () => {
          throw new Error('ledger locked');
        },
        'ledger locked',
      ],
      [
        () => {
          throw new SyntaxError('bad');
        },
        'SyntaxError: bad',
      ],
      [
        () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw 'a plain string';
        },
        'a plain string',
      ],
    ];
    for (const [run, message] of cases) {
      const summary = await start(runtime(), run, []);
      expect(summary.reason).toBe('CODE_NODE_ERROR');
      expect(summary.message).toContain(message);
      expect(summary.message).not.toContain(`Error: ${message}`);
    }
    const long = await start(
      runtime(),
      () => {
        throw new Error('x'.repeat(600));
      },
      [],
    );
    expect(long.message).toContain(`${'x'.repeat(499)}…`);
    expect(long.message).not.toContain('x'.repeat(500));
  });

  it('reads each call as a frozen result: outcome, ok, code, message, data and evidence id', async () => {
    const results: CodeToolResult[] = [];
    const summary = await start(
      runtime(),
      async (ctx) => {
        results.push(await ctx.tools.call('lookup', { id: 3 }));
        results.push(await ctx.tools.call('broken'));
        results.push(await ctx.tools.call('lookup', { id: 'three' }));
        return { out: results.map((r) => r.outcome).join(' ') };
      },
      ['lookup', 'broken'],
    );
    expect(summary.outputs).toEqual({ step: { out: 'SUCCESS FAILED REJECTED' } });
    const [found, broken, refused] = results;
    expect(Object.isFrozen(found)).toBe(true);
    expect(found).toMatchObject({
      outcome: 'SUCCESS',
      ok: true,
      errorCode: null,
      data: { id: 3, name: 'item-3' },
      evidenceId: 'ev_1',
    });
    expect(broken).toMatchObject({ outcome: 'FAILED', ok: false, evidenceId: 'ev_2' });
    expect(broken?.errorCode).toEqual(expect.any(String));
    expect(broken?.message).toContain('ledger locked');
    expect(refused).toMatchObject({ outcome: 'REJECTED', ok: false, evidenceId: null });
    expect(refused?.errorCode).toEqual(expect.any(String));
  });

  it('sets the reply as text, and completes with no outputs when it returns nothing and declares none', async () => {
    const rt = runtime();
    const flow: CodeFlowInput = {
      id: 'quiet',
      locale: 'en',
      nodes: [
        {
          id: 'say',
          run: (ctx) => {
            ctx.reply(42 as unknown as string);
          },
        },
      ],
    };
    const summary = await rt.start(await loadFlow(flow, KNOWN), { input: { text: 'x' }, model: script() });
    expect(summary.status).toBe('completed');
    expect(summary.reply).toBe('42');
  });

  it('traces each call as tool.invoked of round 0 with the call id code_<node>_<node run>_<position>', async () => {
    const rt = runtime();
    const started = await start(rt, async (ctx) => {
      await ctx.tools.call('lookup', { id: 1 });
      await ctx.tools.call('save', { name: 'a' });
      return { out: 1 };
    });
    await rt.approve(started.runId);
    const invoked = ofType(await eventsOf(rt, started.runId), 'tool.invoked').map((e) => {
      const p = e as unknown as { round: number; callId: string; tool: string; outcome: string };
      return `${p.round} ${p.callId} ${p.tool} ${p.outcome}`;
    });
    expect(invoked).toEqual([
      '0 code_step_1_1 lookup SUCCESS',
      '0 code_step_1_2 save DEFERRED',
      '0 code_step_1_2_approval builtin_node_approval SUCCESS',
      '0 code_step_1_2 save SUCCESS',
    ]);
  });
});
