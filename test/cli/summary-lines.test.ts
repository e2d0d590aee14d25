import { describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/render.js';
import type { RunSummary } from '../../src/records/summary.js';

/**
 * The closing lines of a command (docs/cli.md, "Output") for each way a run can stand: what it waits
 * for and the command that continues it, why it failed, its reply and outputs. The retry and
 * `mcp login` lines are in test/cli/describe-summary.test.ts.
 */

const RUN = 'run_48f3c789e76349188c39';

function summary(patch: Partial<RunSummary>): RunSummary {
  return {
    runId: RUN,
    status: 'running',
    outputs: {},
    reply: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    flowId: 'site-builder',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...patch,
  };
}

function suspended(suspension: unknown): RunSummary {
  return summary({ status: 'suspended', suspension: suspension as RunSummary['suspension'] });
}

const approval = {
  id: 'pnd_1',
  tool: 'web_site_create',
  args: { spaceId: 's1', name: '官网', plan: 'basic' },
  summary: '',
  provenance: {},
};

describe('describeSummary', () => {
  it('a running or cancelled run: the status line alone', () => {
    expect(describeSummary(summary({}))).toBe(`run ${RUN}: running`);
    expect(describeSummary(summary({ status: 'cancelled' }))).toBe(`run ${RUN}: cancelled`);
  });

  it('an approval: the example of docs/cli.md, to the character', () => {
    expect(
      describeSummary(suspended({ kind: 'APPROVAL', pending: approval }), ' --db sqlite:/tmp/demo.db'),
    ).toBe(
      [
        `run ${RUN}: suspended`,
        'waiting for approval of web_site_create {"spaceId":"s1","name":"官网","plan":"basic"}',
        `continue with: agent-runtime approve ${RUN} --db sqlite:/tmp/demo.db   (or: agent-runtime reject ${RUN} --db sqlite:/tmp/demo.db --comment TEXT)`,
      ].join('\n'),
    );
  });

  it('an approval with a summary, several approvers and an expiry', () => {
    const pending = {
      ...approval,
      summary: 'create the site',
      approvers: { count: 2, roles: ['admin', 'owner'] },
      approvedBy: [{ who: 'olivia', role: 'admin', at: 't', comment: null }],
      expiresAt: '2026-01-02T00:00:00.000Z',
    };
    const lines = describeSummary(suspended({ kind: 'APPROVAL', pending }), '', 'npx agent-runtime').split(
      '\n',
    );
    expect(lines.slice(2)).toEqual([
      'summary: create the site',
      'approved by 1 of 2 (roles: admin, owner): olivia',
      'expires at 2026-01-02T00:00:00.000Z',
      `continue with: npx agent-runtime approve ${RUN}   (or: npx agent-runtime reject ${RUN} --comment TEXT)`,
    ]);
  });

  it('no approvers line for a single approver, and none of who before anyone approved', () => {
    const one = describeSummary(
      suspended({ kind: 'APPROVAL', pending: { ...approval, approvers: { count: 1 } } }),
    );
    expect(one).not.toContain('approved by');
    const none = describeSummary(
      suspended({ kind: 'APPROVAL', pending: { ...approval, approvers: { count: 3 } } }),
    );
    expect(none).toContain('\napproved by 0 of 3\n');
  });

  it('a question with options, and one without', () => {
    const withOptions = describeSummary(
      suspended({
        kind: 'FOLLOW_UP',
        pending: { id: 'pnd_2', question: 'Which plan?', options: ['basic', 'pro'] },
      }),
      ' --db sqlite:x.db',
    );
    expect(withOptions.split('\n')).toEqual([
      `run ${RUN}: suspended`,
      'waiting for an answer: Which plan?',
      'options: basic / pro',
      `continue with: agent-runtime answer ${RUN} TEXT --db sqlite:x.db`,
    ]);
    const free = describeSummary(
      suspended({ kind: 'FOLLOW_UP', pending: { question: 'Name?', options: [] } }),
    );
    expect(free).not.toContain('options:');
  });

  it('an MCP task: what it is doing, and that resume (or serve) goes on', () => {
    const task = {
      server: 'render',
      tool: 'video',
      taskId: 't-9',
      status: 'working',
      statusMessage: 'frame 3/10',
    };
    expect(
      describeSummary(suspended({ kind: 'TASK', pending: { task } }))
        .split('\n')
        .slice(1),
    ).toEqual([
      'waiting for: task t-9 of MCP server render (video): working — frame 3/10',
      `continue with: agent-runtime resume ${RUN}   (serve and workers go on by themselves)`,
    ]);
  });

  it('an authorization refused during a tool call names the tool, then the answer that goes on', () => {
    const lines = describeSummary(
      suspended({
        kind: 'FOLLOW_UP',
        pending: { question: 'q', options: null, authorization: { server: 'wiki', tool: 'search' } },
      }),
      ' --db sqlite:x.db',
    ).split('\n');
    expect(lines[1]).toBe('waiting for the authorization of MCP server wiki (its tool search was refused)');
    expect(lines[3]).toBe(`then continue with: agent-runtime answer ${RUN} authorized --db sqlite:x.db`);
  });

  it('parallel branches waiting on several items: each with its node and the command naming its id', () => {
    const question = { id: 'pnd_q', question: 'Which size?', options: null };
    const text = describeSummary(
      suspended({
        kind: 'APPROVAL',
        pending: approval,
        items: [
          { kind: 'APPROVAL', nodeId: 'create', pending: approval },
          { kind: 'FOLLOW_UP', nodeId: 'ask', pending: question },
          { kind: 'APPROVAL', nodeId: 'other', pending: { ...approval, id: undefined } },
        ],
      }),
    );
    expect(text.split('\n')).toEqual([
      `run ${RUN}: suspended`,
      'waiting on 3 items of parallel branches; answer each by its id:',
      '- create: approval of web_site_create {"spaceId":"s1","name":"官网","plan":"basic"}',
      `  continue with: agent-runtime approve ${RUN} --expect pnd_1`,
      '- ask: question: Which size?',
      `  continue with: agent-runtime answer ${RUN} TEXT --expect pnd_q`,
      '- other: approval of web_site_create {"spaceId":"s1","name":"官网","plan":"basic"}',
      `  continue with: agent-runtime approve ${RUN} --expect ?`,
    ]);
  });

  it('a suspended run without its suspension says only its status', () => {
    expect(describeSummary(summary({ status: 'suspended' }))).toBe(`run ${RUN}: suspended`);
  });

  it('a failed run: its reason and message, or the bare word when it has neither', () => {
    expect(
      describeSummary(summary({ status: 'failed', reason: 'NO_PROGRESS', message: '3 stalls in a row' })),
    ).toBe(`run ${RUN}: failed\nreason: NO_PROGRESS 3 stalls in a row`);
    expect(describeSummary(summary({ status: 'failed' }))).toBe(`run ${RUN}: failed\nreason:`);
  });

  it('a completed run: its reply when there is one, then its outputs as JSON', () => {
    const outputs = { create: { siteId: 'w1', count: 2 } };
    expect(describeSummary(summary({ status: 'completed', reply: 'Created.', outputs }))).toBe(
      `run ${RUN}: completed\nreply: Created.\noutputs: {"create":{"siteId":"w1","count":2}}`,
    );
    expect(describeSummary(summary({ status: 'completed', outputs: {} }))).toBe(
      `run ${RUN}: completed\noutputs: {}`,
    );
    expect(describeSummary(summary({ status: 'completed', reply: '' }))).toContain('\nreply: \n');
  });

  it('shows control characters of the run visible, never raw', () => {
    const text = describeSummary(
      suspended({ kind: 'FOLLOW_UP', pending: { question: 'ok?\u001b[2J\u009b', options: ['a\rb'] } }),
    );
    expect(text).toContain('waiting for an answer: ok?␛[2J<U+009B>');
    expect(text).toContain('options: a␍b');
    // Line feeds only between the lines; no other control character anywhere.
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    for (const line of text.split('\n')) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});
