import { describe, expect, it } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import { loadFlow } from '../../src/flow/load.js';
import type { RunSuspension } from '../../src/records/pending.js';
import type { RunSummary } from '../../src/records/summary.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  applyAnswer,
  callFlow,
  continueAnswered,
  inputProblems,
  questionOf,
  runStatus,
  settle,
  type ElicitAnswer,
  type ElicitForm,
  type FlowCallHost,
} from '../../src/server/mcp-flow-call.js';
import type { FlowCallResult } from '../../src/server/mcp-flow-tool.js';

/**
 * The call logic of flow tools (src/server/mcp-flow-call.ts) against a recording stand-in of the
 * runtime: the forms a client is asked, what each answer applies (and what it leaves pending), when
 * a call asks at all, the checks of a retried 2026-07-28 call, and a call that stops waiting.
 * mcp-flow-call.test.ts drives the same code on a real runtime and MCP server.
 */

const APPROVAL = {
  tool: 'ticket_create',
  args: { title: 'printer' },
  summary: 'open a ticket',
  provenance: {},
  id: 'pnd_a',
};
const QUESTION = { question: 'Which printer?', options: ['A4', 'A3'], id: 'pnd_q' };
const SERVER_FORM = {
  question: 'The wiki asks for a page name',
  options: null,
  id: 'pnd_e',
  elicitation: {
    server: 'wiki',
    tool: 'page_create',
    fingerprint: 'f',
    mode: 'form' as const,
    message: 'Page name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};

function summary(over: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: 'run_1',
    status: 'completed',
    outputs: {},
    reply: 'done',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    flowId: 'f',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

const suspended = (suspension: RunSuspension): RunSummary =>
  summary({ status: 'suspended', reply: null, suspension });

/** A runtime stand-in recording the responses it is given; each answers `next`. */
function fakeRuntime(options: { status?: RunSummary; tenant?: string | null; next?: RunSummary } = {}) {
  const calls: { method: string; runId: string; text?: string; options: Record<string, unknown> }[] = [];
  const next = options.next ?? summary();
  const respond =
    (method: string) =>
    (runId: string, opts: Record<string, unknown> & { onAccepted?: (s: RunSummary) => void }) => {
      const { onAccepted, ...rest } = opts;
      calls.push({ method, runId, options: rest });
      onAccepted?.(next);
      return Promise.resolve(next);
    };
  const runtime = {
    approve: respond('approve'),
    reject: respond('reject'),
    answer: (
      runId: string,
      text: string,
      opts: Record<string, unknown> & { onAccepted?: (s: RunSummary) => void },
    ) => {
      const { onAccepted, ...rest } = opts;
      calls.push({ method: 'answer', runId, text, options: rest });
      onAccepted?.(next);
      return Promise.resolve(next);
    },
    status: () => Promise.resolve(options.status ?? summary()),
    db: () =>
      Promise.resolve({
        getRun: (id: string) =>
          Promise.resolve(id === 'run_1' ? { runId: id, tenant: options.tenant ?? null } : null),
      }),
  };
  return { runtime: runtime as unknown as Runtime, calls };
}

function host(runtime: Runtime, over: Partial<FlowCallHost> = {}): FlowCallHost {
  return {
    runtime,
    caller: { name: 'carol', tenant: null, mayApprove: true, role: 'operator' },
    drive: (_runId, call) => call(() => undefined),
    consoleUrl: (runId) => `http://console/runs/${runId}`,
    elicit: null,
    ...over,
  };
}

describe('questionOf', () => {
  it('asks approve or reject (and a comment) for a write', () => {
    expect(questionOf({ kind: 'APPROVAL', pending: APPROVAL })).toEqual({
      message: 'Approve ticket_create {"title":"printer"}? open a ticket',
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            enum: ['approve', 'reject'],
            description: 'approve: ticket_create runs with these arguments; reject: it does not run',
          },
          comment: { type: 'string', title: 'Comment' },
        },
        required: ['decision'],
      },
    });
  });

  it("asks the model's question, with its options as an enum when it has any", () => {
    expect(questionOf({ kind: 'FOLLOW_UP', pending: QUESTION })).toEqual({
      message: 'Which printer?',
      requestedSchema: {
        type: 'object',
        properties: { answer: { type: 'string', title: 'Answer', enum: ['A4', 'A3'] } },
        required: ['answer'],
      },
    });
    for (const options of [null, []]) {
      expect(
        questionOf({ kind: 'FOLLOW_UP', pending: { ...QUESTION, options } })?.requestedSchema.properties,
      ).toEqual({
        answer: { type: 'string', title: 'Answer' },
      });
    }
  });

  it("passes an MCP server's form on as it is", () => {
    expect(questionOf({ kind: 'FOLLOW_UP', pending: SERVER_FORM })).toEqual({
      message: 'Page name?',
      requestedSchema: SERVER_FORM.elicitation.requestedSchema,
    });
  });

  it('cannot ask for an authorization, a link, a form without schema, or an MCP task', () => {
    const url = {
      ...SERVER_FORM,
      elicitation: { ...SERVER_FORM.elicitation, mode: 'url' as const, url: 'https://x' },
    };
    const noSchema = {
      ...SERVER_FORM,
      elicitation: { ...SERVER_FORM.elicitation, requestedSchema: undefined },
    };
    const authorization = { ...QUESTION, authorization: { server: 'wiki' } };
    for (const pending of [url, noSchema, authorization])
      expect(questionOf({ kind: 'FOLLOW_UP', pending })).toBeNull();
    expect(
      questionOf({ kind: 'TASK', pending: { task: { server: 'x', tool: 'y', taskId: 't' } } as never }),
    ).toBeNull();
  });
});

describe('applyAnswer', () => {
  it('approves a write with the caller, its role, the item id and the comment', async () => {
    const { runtime, calls } = fakeRuntime();
    const answer: ElicitAnswer = { action: 'accept', content: { decision: 'approve', comment: 'fine' } };
    expect(
      await applyAnswer(host(runtime), 'run_1', { kind: 'APPROVAL', pending: APPROVAL }, answer),
    ).toMatchObject({
      status: 'completed',
    });
    expect(calls).toEqual([
      {
        method: 'approve',
        runId: 'run_1',
        options: { who: 'carol', role: 'operator', expect: 'pnd_a', comment: 'fine' },
      },
    ]);
  });

  it('rejects on reject, on decline, and on an accepted form without decision approve', async () => {
    for (const answer of [
      { action: 'accept', content: { decision: 'reject' } },
      { action: 'decline' },
      { action: 'accept', content: {} },
      { action: 'accept', content: { decision: 'APPROVE', comment: 3 } },
    ] as ElicitAnswer[]) {
      const { runtime, calls } = fakeRuntime();
      await applyAnswer(host(runtime), 'run_1', { kind: 'APPROVAL', pending: APPROVAL }, answer);
      expect(
        calls.map((c) => [c.method, c.options.comment]),
        JSON.stringify(answer),
      ).toEqual([['reject', null]]);
    }
  });

  it('leaves a write pending when the client cancelled the form', async () => {
    const { runtime, calls } = fakeRuntime();
    expect(
      await applyAnswer(
        host(runtime),
        'run_1',
        { kind: 'APPROVAL', pending: APPROVAL },
        { action: 'cancel' },
      ),
    ).toBeNull();
    expect(calls).toEqual([]);
  });

  it('sends no role or expect when the caller has no role and the item no id', async () => {
    const { runtime, calls } = fakeRuntime();
    const { id: _id, ...withoutId } = APPROVAL;
    void _id;
    await applyAnswer(
      host(runtime, { caller: { name: 'carol', tenant: null, mayApprove: true } }),
      'run_1',
      { kind: 'APPROVAL', pending: withoutId },
      { action: 'accept', content: { decision: 'approve' } },
    );
    expect(calls[0]?.options).toEqual({ who: 'carol', comment: null });
  });

  it("answers the model's question only with an accepted text answer", async () => {
    for (const answer of [
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: {} },
      { action: 'accept', content: { answer: 4 } },
    ] as ElicitAnswer[]) {
      const { runtime, calls } = fakeRuntime();
      expect(
        await applyAnswer(host(runtime), 'run_1', { kind: 'FOLLOW_UP', pending: QUESTION }, answer),
      ).toBeNull();
      expect(calls, JSON.stringify(answer)).toEqual([]);
    }
    const { runtime, calls } = fakeRuntime();
    await applyAnswer(
      host(runtime),
      'run_1',
      { kind: 'FOLLOW_UP', pending: QUESTION },
      {
        action: 'accept',
        content: { answer: 'A4' },
      },
    );
    expect(calls).toEqual([
      {
        method: 'answer',
        runId: 'run_1',
        text: 'A4',
        options: { who: 'carol', role: 'operator', expect: 'pnd_q' },
      },
    ]);
  });

  it("passes an MCP server's form back with its action: accepted content as JSON, else no text", async () => {
    const { runtime, calls } = fakeRuntime();
    const suspension: RunSuspension = { kind: 'FOLLOW_UP', pending: SERVER_FORM };
    await applyAnswer(host(runtime), 'run_1', suspension, { action: 'accept', content: { name: 'Home' } });
    await applyAnswer(host(runtime), 'run_1', suspension, { action: 'accept' });
    await applyAnswer(host(runtime), 'run_1', suspension, {
      action: 'decline',
      content: { name: 'ignored' },
    });
    expect(calls.map((c) => [c.text, c.options.action, c.options.expect])).toEqual([
      ['{"name":"Home"}', 'accept', 'pnd_e'],
      ['{}', 'accept', 'pnd_e'],
      ['', 'decline', 'pnd_e'],
    ]);
  });

  it('applies nothing to an authorization', async () => {
    const { runtime, calls } = fakeRuntime();
    const pending = { ...QUESTION, authorization: { server: 'wiki' } };
    expect(
      await applyAnswer(
        host(runtime),
        'run_1',
        { kind: 'FOLLOW_UP', pending },
        { action: 'accept', content: { answer: 'x' } },
      ),
    ).toBeNull();
    expect(calls).toEqual([]);
  });
});

describe('settle', () => {
  const waiting = suspended({ kind: 'APPROVAL', pending: APPROVAL });

  it('asks nothing of a caller that may not approve: the suspended result', async () => {
    const { runtime, calls } = fakeRuntime();
    const asked: ElicitForm[] = [];
    const result = (await settle(
      host(runtime, {
        caller: { name: 'v', tenant: null, mayApprove: false },
        elicit: (form) => {
          asked.push(form);
          return Promise.resolve({ action: 'accept', content: { decision: 'approve' } });
        },
      }),
      waiting,
    )) as FlowCallResult;
    expect(asked).toEqual([]);
    expect(calls).toEqual([]);
    expect(result.structuredContent).toMatchObject({
      status: 'suspended',
      consoleUrl: 'http://console/runs/run_1',
    });
  });

  it('asks by elicitation and goes on with the answer until the run stops waiting', async () => {
    const { runtime, calls } = fakeRuntime({ next: summary({ reply: 'ticket opened' }) });
    const asked: string[] = [];
    const result = (await settle(
      host(runtime, {
        elicit: (form) => {
          asked.push(form.message);
          return Promise.resolve({ action: 'accept', content: { decision: 'approve' } });
        },
      }),
      waiting,
    )) as FlowCallResult;
    expect(asked).toEqual(['Approve ticket_create {"title":"printer"}? open a ticket']);
    expect(calls.map((c) => c.method)).toEqual(['approve']);
    expect(result.structuredContent).toEqual({
      status: 'completed',
      runId: 'run_1',
      reply: 'ticket opened',
      outputs: {},
    });
  });

  it('stops asking when the client cancels, leaving the write pending', async () => {
    const { runtime, calls } = fakeRuntime();
    const result = (await settle(
      host(runtime, { elicit: () => Promise.resolve({ action: 'cancel' }) }),
      waiting,
    )) as FlowCallResult;
    expect(calls).toEqual([]);
    expect(result.structuredContent.status).toBe('suspended');
  });

  it('answers input_required with the run, the item and the form when the client takes no elicitation', async () => {
    const { runtime } = fakeRuntime();
    const seen: unknown[] = [];
    const marker = { resultType: 'input_required' } as never;
    const result = await settle(
      host(runtime, {
        inputRequired: (runId, pendingId, form) => {
          seen.push([runId, pendingId, form.message]);
          return Promise.resolve(marker);
        },
      }),
      suspended({ kind: 'FOLLOW_UP', pending: QUESTION }),
    );
    expect(result).toBe(marker);
    expect(seen).toEqual([['run_1', 'pnd_q', 'Which printer?']]);
  });

  it('answers the result for what cannot be asked (an authorization)', async () => {
    const { runtime } = fakeRuntime();
    const pending = { ...QUESTION, authorization: { server: 'wiki' } };
    const result = (await settle(
      host(runtime, { elicit: () => Promise.reject(new Error('must not ask')) }),
      suspended({ kind: 'FOLLOW_UP', pending }),
    )) as FlowCallResult;
    expect(result.structuredContent).toMatchObject({ status: 'suspended', pending });
  });
});

describe('continueAnswered', () => {
  it("is null for a run the caller may not see: unknown, or another tenant's", async () => {
    const { runtime } = fakeRuntime({
      tenant: 'acme',
      status: suspended({ kind: 'FOLLOW_UP', pending: QUESTION }),
    });
    const stranger = host(runtime, { caller: { name: 'b', tenant: 'globex', mayApprove: true } });
    expect(await continueAnswered(stranger, { runId: 'run_1', pendingId: 'pnd_q' }, null)).toBeNull();
    expect(await continueAnswered(host(runtime), { runId: 'run_unknown', pendingId: null }, null)).toBeNull();
  });

  it('refuses with RUN_CONFLICT when the run no longer waits for the item asked about', async () => {
    const other = fakeRuntime({ status: suspended({ kind: 'FOLLOW_UP', pending: QUESTION }) });
    const moved = await continueAnswered(
      host(other.runtime),
      { runId: 'run_1', pendingId: 'pnd_old' },
      null,
    ).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(RunError);
    expect(moved).toMatchObject({
      code: 'RUN_CONFLICT',
      message: 'run run_1 no longer waits for the item this answer was asked for (it is suspended)',
    });
    expect(other.calls).toEqual([]);
    const ended = fakeRuntime({ status: summary() });
    const error = await continueAnswered(
      host(ended.runtime),
      { runId: 'run_1', pendingId: null },
      { action: 'accept' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).code).toBe('RUN_CONFLICT');
    expect((error as RunError).message).toMatch(/\(it is completed\)$/);
    expect(ended.calls).toEqual([]);
  });

  it('applies the answer to the item, or asks again when none was readable', async () => {
    const asking = suspended({ kind: 'FOLLOW_UP', pending: QUESTION });
    const { runtime, calls } = fakeRuntime({ status: asking });
    const answered = (await continueAnswered(
      host(runtime),
      { runId: 'run_1', pendingId: 'pnd_q' },
      {
        action: 'accept',
        content: { answer: 'A3' },
      },
    )) as FlowCallResult;
    expect(calls.map((c) => [c.method, c.text, c.options.expect])).toEqual([['answer', 'A3', 'pnd_q']]);
    expect(answered.structuredContent.status).toBe('completed');
    const again = await continueAnswered(
      host(runtime, {
        inputRequired: (runId, pendingId) => Promise.resolve({ again: [runId, pendingId] } as never),
      }),
      { runId: 'run_1', pendingId: null },
      null,
    );
    expect(again).toEqual({ again: ['run_1', 'pnd_q'] });
    // An answer that applies nothing leaves the item: the result says it still waits.
    const declined = (await continueAnswered(
      host(runtime),
      { runId: 'run_1', pendingId: 'pnd_q' },
      {
        action: 'decline',
      },
    )) as FlowCallResult;
    expect(declined.structuredContent).toMatchObject({ status: 'suspended', pending: QUESTION });
    expect(calls).toHaveLength(1);
  });
});

describe('runStatus and callFlow', () => {
  it('runStatus with a wait of 0 (or less) answers a running run at once', async () => {
    const { runtime } = fakeRuntime({ status: summary({ status: 'running', reply: null }) });
    for (const wait of [0, -5]) {
      const result = (await runStatus(host(runtime), 'run_1', wait)) as FlowCallResult;
      expect(result.structuredContent, String(wait)).toEqual({
        status: 'running',
        runId: 'run_1',
        consoleUrl: 'http://console/runs/run_1',
      });
    }
    expect(await runStatus(host(runtime), 'run_nope', 0)).toBeNull();
  });

  it('a call that outlasts waitMs answers the accepted run as it stands now', async () => {
    const loaded = await loadFlow({ id: 'slow', locale: 'en', nodes: [{ id: 'main' }] });
    const started: unknown[] = [];
    const runtime = {
      start: (
        _loaded: unknown,
        options: { input: unknown; who: string; tenant: string | null; onAccepted: (s: RunSummary) => void },
      ) => {
        started.push({ input: options.input, who: options.who, tenant: options.tenant });
        options.onAccepted(summary({ status: 'running', reply: null }));
        return new Promise<RunSummary>(() => undefined);
      },
      status: () => Promise.resolve(summary({ status: 'running', reply: null })),
    } as unknown as Runtime;
    const result = (await callFlow(
      host(runtime, { waitMs: 5, caller: { name: 'carol', tenant: 'acme', mayApprove: true } }),
      loaded,
      { text: 'go' },
    )) as FlowCallResult;
    expect(started).toEqual([{ input: { text: 'go' }, who: 'carol', tenant: 'acme' }]);
    expect(result.structuredContent).toMatchObject({ status: 'running', runId: 'run_1' });
  });

  it('a start refused before it was accepted rejects the call', async () => {
    const loaded = await loadFlow({ id: 'bad', locale: 'en', nodes: [{ id: 'main' }] });
    const runtime = {
      start: () =>
        Promise.reject(new RunError('REQUEST_INVALID', 'flow bad names no model and none was given')),
    } as unknown as Runtime;
    await expect(callFlow(host(runtime), loaded, { text: 'x' })).rejects.toThrow('flow bad names no model');
  });

  it("inputProblems checks the arguments against the flow's input", async () => {
    const loaded = await loadFlow({
      id: 'typed',
      locale: 'en',
      input: { type: 'object', properties: { days: { type: 'integer' } }, required: ['days'] },
      nodes: [{ id: 'main' }],
    });
    expect(inputProblems(loaded, { days: 3 })).toEqual([]);
    expect(inputProblems(loaded, {}).join('\n')).toMatch(/days/);
    expect(inputProblems(loaded, { days: 'three' }).join('\n')).toMatch(/days/);
  });
});
