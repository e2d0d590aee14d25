import { describe, expect, it } from 'vitest';
import { ProgressWriter } from '../../src/cli/progress.js';
import { TraceRenderer, exitCodeFor, resultPreview, runsTable } from '../../src/cli/render.js';
import type { RunSummary } from '../../src/records/summary.js';
import type { StoredEvent } from '../../src/store/store.js';
import type { ModelDeltaEvent } from '../../src/trace/live.js';

/**
 * The CLI's progress lines (docs/cli.md, "Output"), rendered in process from trace events and stream
 * deltas: the exact line of each event, colour, labels of parallel branches, the live text of a
 * streaming model, and the `runs` table and exit codes.
 */

let seq = 0;
function ev(type: string, fields: Record<string, unknown> = {}): StoredEvent {
  seq += 1;
  return {
    seq,
    ts: `2026-01-01T00:00:${String(seq % 60).padStart(2, '0')}.000Z`,
    runId: 'run_1',
    type,
    ...fields,
  };
}

/** A renderer writing into a string (no colour, no spinner unless asked). */
function renderer(color = false) {
  let out = '';
  const r = new TraceRenderer(new ProgressWriter((text) => void (out += text)), color, false);
  return { r, text: () => out };
}

/** The text the renderer writes for these events. */
function render(...events: StoredEvent[]): string {
  const { r, text } = renderer();
  for (const event of events) r.onEvent(event);
  return text();
}

describe('TraceRenderer: one line per event', () => {
  it('run, node and round headings', () => {
    expect(render(ev('run.started', { flowId: 'shop', flowVersion: 3, input: {} }))).toBe(
      '▶ run run_1 (flow shop v3)\n',
    );
    expect(render(ev('node.started', { nodeId: 'pay' }))).toBe('● node pay\n');
    expect(render(ev('react.round', { nodeId: 'pay', round: 2 }))).toBe('  round 2\n');
  });

  it('a model response names its calls, or says there were none, with its text quoted and cut at 100', () => {
    const calls = [
      { callId: 'c1', tool: 'space_list' },
      { callId: 'c2', tool: 'site_create' },
    ];
    expect(render(ev('model.response', { nodeId: 'n', round: 1, toolCalls: calls, text: '' }))).toBe(
      '  model → space_list, site_create\n',
    );
    expect(render(ev('model.response', { nodeId: 'n', round: 1, toolCalls: [], text: 'Done.' }))).toBe(
      '  model → (no tool call) “Done.”\n',
    );
    const long = render(
      ev('model.response', { nodeId: 'n', round: 1, toolCalls: [], text: 'x'.repeat(150) }),
    );
    expect(long).toBe(`  model → (no tool call) “${'x'.repeat(99)}…”\n`);
  });

  it('a successful call: outcome, tool, arguments, evidence id, then the result preview (docs/cli.md)', () => {
    const result = { code: 0, message: 'ok', data: [{ spaceId: 's1', name: '默认空间' }] };
    const line = render(
      ev('tool.invoked', {
        nodeId: 'query',
        round: 1,
        callId: 'c1',
        tool: 'space_list',
        args: {},
        outcome: 'SUCCESS',
        errorCode: null,
        message: 'ok',
        evidenceId: 'ev_1',
        executed: true,
        level: 'info',
        lookBack: false,
        result,
      }),
    );
    expect(line).toBe(`    ✔ SUCCESS space_list {} [ev_1]\n      → ${JSON.stringify(result)}\n`);
  });

  it('a call that did not succeed shows its code and the message the model read; no preview when it did not run', () => {
    const line = render(
      ev('tool.invoked', {
        nodeId: 'pay',
        round: 1,
        callId: 'c1',
        tool: 'refund',
        args: { amount: 40 },
        outcome: 'DEFERRED',
        errorCode: 'APPROVAL_REQUIRED',
        message: 'A person must approve.',
        evidenceId: null,
        executed: false,
        level: 'info',
        lookBack: false,
      }),
    );
    expect(line).toBe(
      '    ⏸ DEFERRED refund {"amount":40} APPROVAL_REQUIRED\n      A person must approve.\n',
    );
  });

  it('marks FAILED, REJECTED and look-backs, and a result the trace cut', () => {
    const base = {
      nodeId: 'n',
      round: 1,
      callId: 'c',
      args: {},
      errorCode: 'X',
      message: 'why',
      evidenceId: null,
    };
    expect(render(ev('tool.invoked', { ...base, tool: 't', outcome: 'REJECTED' }))).toBe(
      '    ⊘ REJECTED t {} X\n      why\n',
    );
    expect(
      render(
        ev('tool.invoked', {
          ...base,
          tool: 'order_find',
          outcome: 'FAILED',
          lookBack: true,
          result: 'partial',
          resultTruncated: true,
        }),
      ),
    ).toBe(
      '    ✖ FAILED order_find (look-back) {} X\n      why\n      → partial (cut in the trace; the evidence has it all)\n',
    );
    expect(render(ev('tool.invoked', { ...base, tool: 't', outcome: 'ODD' }))).toBe(
      '    ? ODD t {} X\n      why\n',
    );
  });

  it('cuts long arguments at 120 characters', () => {
    const args = { text: 'y'.repeat(200) };
    const line = render(
      ev('tool.invoked', { nodeId: 'n', tool: 't', args, outcome: 'SUCCESS', errorCode: null }),
    );
    expect(line).toBe(`    ✔ SUCCESS t ${JSON.stringify(args).slice(0, 119)}…\n`);
  });

  it('the lines of the round between the calls', () => {
    expect(render(ev('tool.skipped', { nodeId: 'n', tool: 'refund' }))).toBe(
      '    ↷ SKIPPED refund (not executed)\n',
    );
    expect(render(ev('react.stall', { nodeId: 'n', stalls: 2, maxStalls: 5 }))).toBe('    stall 2/5\n');
    expect(render(ev('react.no_tool_calls', { nodeId: 'n', stalls: 1 }))).toBe('    no tool call\n');
    expect(render(ev('phase.hint', { nodeId: 'n', text: 'Write the outputs.' }))).toBe(
      '    hint: Write the outputs.\n',
    );
    expect(render(ev('context.compacted', { nodeId: 'n', before: 9000, after: 3000, budget: 8000 }))).toBe(
      '    context compacted: ~9000 → ~3000 tokens (budget 8000)\n',
    );
    expect(
      render(ev('tool.progress', { nodeId: 'n', tool: 'render', progress: 3, total: 10, message: 'frames' })),
    ).toBe('    … render 3/10 frames\n');
    expect(render(ev('tool.progress', { nodeId: 'n', tool: 'render', progress: 0.5 }))).toBe(
      '    … render 0.5\n',
    );
  });

  it('what a suspended run waits for', () => {
    expect(render(ev('run.suspended', { nodeId: 'n', kind: 'APPROVAL', pending: {} }))).toBe(
      '⏸ waiting for approval\n',
    );
    expect(
      render(
        ev('run.suspended', { nodeId: 'n', kind: 'FOLLOW_UP', pending: { question: 'q', options: null } }),
      ),
    ).toBe('⏸ waiting for an answer\n');
    expect(
      render(
        ev('run.suspended', {
          nodeId: 'n',
          kind: 'FOLLOW_UP',
          pending: { question: 'q', options: null, authorization: { server: 'wiki' } },
        }),
      ),
    ).toBe('⏸ waiting for the authorization of MCP server wiki\n');
    const task = { taskId: 't-1', server: 'render', tool: 'video', status: 'working', statusMessage: '40%' };
    expect(render(ev('run.suspended', { nodeId: 'n', kind: 'TASK', pending: { task } }))).toBe(
      '⏸ waiting for task t-1 of MCP server render (video): working — 40%\n',
    );
  });

  it('resumption, retry and the ends of nodes and runs', () => {
    expect(
      render(ev('run.resumed', { nodeId: 'n', kind: 'APPROVAL', decision: 'approved', comment: null })),
    ).toBe('▶ resumed (APPROVAL, approved)\n');
    expect(render(ev('run.resumed', { kind: 'FOLLOW_UP', answer: 'o-2' }))).toBe(
      '▶ resumed (FOLLOW_UP, o-2)\n',
    );
    expect(
      render(ev('run.retried', { nodeId: 'pay', reason: 'MODEL_FAILED', message: 'm', who: null })),
    ).toBe('↻ retried in node pay (after MODEL_FAILED)\n');
    expect(render(ev('node.completed', { nodeId: 'pay', outputs: { receipt: 'r-1' } }))).toBe(
      '● node pay completed {"receipt":"r-1"}\n',
    );
    expect(render(ev('node.failed', { nodeId: 'pay', reason: 'NO_PROGRESS', message: '3 stalls' }))).toBe(
      '● node pay failed: NO_PROGRESS 3 stalls\n',
    );
    expect(render(ev('run.completed', { outputs: {} }))).toBe('✔ run completed\n');
    expect(render(ev('run.failed', { reason: 'EDGE_ERROR', failedNode: null, message: 'no edge' }))).toBe(
      '✖ run failed: EDGE_ERROR — no edge\n',
    );
    expect(render(ev('run.cancelled', { reason: 'CANCELLED' }))).toBe('✖ run cancelled\n');
  });

  it('events without a line of their own print nothing', () => {
    for (const type of [
      'mcp.connected',
      'mcp.log',
      'tool.task',
      'approval.voted',
      'node.suspended',
      'sampling.requested',
    ])
      expect(render(ev(type, { nodeId: 'n' })), type).toBe('');
  });

  it('makes control characters from the run visible', () => {
    const line = render(
      ev('node.failed', { nodeId: 'pay', reason: 'X', message: 'evil\u001b]0;title\u0007\r\nforged' }),
    );
    expect(line).toBe('● node pay failed: X evil␛]0;title␇␍␊forged\n');
  });

  it('with colour, wraps each line in its outcome’s colour', () => {
    const { r, text } = renderer(true);
    r.onEvent(ev('run.completed', { outputs: {} }));
    r.onEvent(ev('run.failed', { reason: 'R', failedNode: null, message: 'm' }));
    r.onEvent(ev('node.started', { nodeId: 'a' }));
    expect(text()).toBe(
      '\x1b[32m✔ run completed\x1b[0m\n\x1b[31m✖ run failed: R — m\x1b[0m\n\x1b[1m● node a\x1b[0m\n',
    );
  });
});

describe('TraceRenderer: parallel branches and map items', () => {
  it('labels nothing until a node run is numbered, then every node line with its node and item', () => {
    const out = render(
      ev('node.started', { nodeId: 'plan' }),
      ev('react.round', { nodeId: 'plan', round: 1 }),
      ev('node.started', { nodeId: 'each', nodeRun: 2 }),
      ev('node.started', { nodeId: 'price', nodeRun: 3, item: { of: 2, index: 1 } }),
      ev('react.round', { nodeId: 'price', round: 1, item: { of: 2, index: 1 } }),
      ev('run.completed', { outputs: {} }),
    );
    expect(out.split('\n')).toEqual([
      '● node plan',
      '  round 1',
      '[each] ● node each',
      '[price item 1] ● node price',
      '[price item 1]   round 1',
      '✔ run completed',
      '',
    ]);
  });

  it('labels each line of a multi-line call', () => {
    const out = render(
      ev('node.started', { nodeId: 'a', nodeRun: 1 }),
      ev('tool.invoked', {
        nodeId: 'a',
        tool: 't',
        args: {},
        outcome: 'FAILED',
        errorCode: 'E',
        message: 'why',
        result: 1,
      }),
    );
    expect(out).toBe('[a] ● node a\n[a]     ✖ FAILED t {} E\n[a]       why\n[a]       → 1\n');
  });
});

describe('TraceRenderer: a streaming model', () => {
  const delta = (text: string, round: number | null = 1): ModelDeltaEvent => ({
    type: 'model.delta',
    runId: 'run_1',
    nodeId: 'query',
    round,
    ts: '2026-01-01T00:00:00.000Z',
    text,
    toolCalls: [],
  });

  it('prints the headings first, then only the new text; their events later print nothing, nor the text again', () => {
    const { r, text } = renderer();
    r.onDelta(delta('先查询'));
    r.onDelta(delta('先查询用户的空间。'));
    r.onDelta(delta('先查询用户的空间。'));
    r.onEvent(ev('node.started', { nodeId: 'query' }));
    r.onEvent(ev('react.round', { nodeId: 'query', round: 1 }));
    r.onEvent(
      ev('model.response', {
        nodeId: 'query',
        round: 1,
        toolCalls: [{ callId: 'c', tool: 'space_list' }],
        text: '先查询用户的空间。',
      }),
    );
    expect(text()).toBe('● node query\n  round 1\n  model ✎ 先查询用户的空间。\n  model → space_list\n');
  });

  it('a text that does not continue the shown one is written whole; an empty one not at all', () => {
    const { r, text } = renderer();
    r.onDelta(delta(''));
    expect(text()).toBe('');
    r.onDelta(delta('abc'));
    r.onDelta(delta('xyz'));
    expect(text()).toBe('● node query\n  round 1\n  model ✎ abcxyz');
  });

  it('a delta outside a round prints the node heading only', () => {
    const { r, text } = renderer();
    r.onDelta(delta('hi', null));
    expect(text()).toBe('● node query\n  model ✎ hi');
  });
});

describe('resultPreview', () => {
  it('one line, whitespace folded, cut at 120 characters', () => {
    expect(resultPreview('a\n  b', false)).toBe('→ a b');
    expect(resultPreview({ ok: true }, false)).toBe('→ {"ok":true}');
    expect(resultPreview('z'.repeat(130), false)).toBe(`→ ${'z'.repeat(119)}…`);
    expect(resultPreview(undefined, false)).toBe('→ null');
    expect(resultPreview('x', true)).toBe('→ x (cut in the trace; the evidence has it all)');
  });
});

describe('runsTable', () => {
  const summary = (patch: Partial<RunSummary>): RunSummary => ({
    runId: 'run_48f3c789e76349188c39',
    status: 'suspended',
    outputs: {},
    reply: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    flowId: 'site-builder',
    createdAt: '2026-12-02T15:13:27.874Z',
    updatedAt: '2026-12-02T15:13:27.874Z',
    ...patch,
  });

  it('is the table docs/cli.md shows', () => {
    expect(runsTable([summary({})])).toBe(
      'RUN_ID                    STATUS     FLOW          UPDATED                   PARENT\n' +
        'run_48f3c789e76349188c39  suspended  site-builder  2026-12-02T15:13:27.874Z\n',
    );
  });

  it('a child run names its parent; no runs is the header alone', () => {
    const table = runsTable([
      summary({ runId: 'run_2', status: 'completed', parentRunId: 'run_1', flowId: 'x' }),
    ]);
    expect(table.split('\n')[1]).toBe('run_2   completed  x     2026-12-02T15:13:27.874Z  child of run_1');
    expect(runsTable([])).toBe('RUN_ID  STATUS  FLOW  UPDATED  PARENT\n');
  });

  it('makes control characters in a flow id visible', () => {
    expect(runsTable([summary({ flowId: 'a\u001b[2Jb' })]).split('\n')[1]).toContain('a␛[2Jb');
  });
});

describe('exitCodeFor', () => {
  it('0 for completed and running, 3 for suspended, 1 for failed and cancelled (docs/cli.md)', () => {
    expect(exitCodeFor('completed')).toBe(0);
    expect(exitCodeFor('running')).toBe(0);
    expect(exitCodeFor('suspended')).toBe(3);
    expect(exitCodeFor('failed')).toBe(1);
    expect(exitCodeFor('cancelled')).toBe(1);
  });
});
