import { describe, expect, it } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import {
  answerServer,
  answerText,
  elicitationAnswer,
  type ElicitationAction,
} from '../../src/engine/elicit-answer.js';
import { newRun } from '../../src/engine/new-run.js';
import { RunSession } from '../../src/engine/session.js';
import { loadFlow } from '../../src/flow/load.js';
import type { ElicitationPending } from '../../src/records/pending.js';
import type { ElicitationAnswer } from '../../src/records/run-state.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { ResolutionState } from '../../src/tools/builtin/resolution.js';
import { EventHub } from '../../src/trace/event-hub.js';

/**
 * A person's answer to an MCP server's question as the server gets it (docs/mcp.md, "Elicitation"):
 * a form's answer text is a JSON object, the requested schema's defaults filled in and checked against
 * it; a URL question accepted means "done"; decline and cancel carry no content.
 */

const FORM: ElicitationPending = {
  server: 'shop',
  tool: 'order_create',
  fingerprint: 'fp_1',
  mode: 'form',
  message: 'Which size?',
  requestedSchema: {
    type: 'object',
    properties: {
      size: { type: 'string', enum: ['S', 'M', 'L'] },
      gift: { type: 'boolean', default: false },
      count: { type: 'integer', minimum: 1 },
    },
    required: ['size'],
  },
};

const URL_QUESTION: ElicitationPending = {
  server: 'shop',
  tool: 'pay',
  fingerprint: 'fp_2',
  mode: 'url',
  message: 'Open the payment page',
  url: 'https://pay.example/abc',
  elicitationId: 'el_1',
};

function refusal(fn: () => unknown): RunError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunError) return error;
    throw error;
  }
  throw new Error('expected a RunError');
}

const JSON_OBJECT =
  'run run_e: the answer to a form must be a JSON object of its fields, e.g. {"name":"Ada"}';

describe('elicitationAnswer: forms', () => {
  it('parses the fields, fills in the defaults and keeps where the question came from', () => {
    expect(elicitationAnswer('run_e', FORM, 'accept', '{"size":"M"}')).toEqual({
      server: 'shop',
      tool: 'order_create',
      fingerprint: 'fp_1',
      action: 'accept',
      content: { size: 'M', gift: false },
    });
  });

  it('a value given wins over the default', () => {
    expect(elicitationAnswer('run_e', FORM, 'accept', '{"size":"S","gift":true,"count":2}').content).toEqual({
      size: 'S',
      gift: true,
      count: 2,
    });
  });

  it('refuses text that is not JSON, or JSON that is not an object', () => {
    for (const text of ['size M', '"M"', '[{"size":"M"}]', 'null', '42']) {
      const error = refusal(() => elicitationAnswer('run_e', FORM, 'accept', text));
      expect(error.code, text).toBe('REQUEST_INVALID');
      expect(error.message, text).toBe(JSON_OBJECT);
      expect(error.runId).toBe('run_e');
    }
  });

  it('empty text is {}: refused when a field is required, accepted when none is', () => {
    const error = refusal(() => elicitationAnswer('run_e', FORM, 'accept', '   '));
    expect(error.message).toBe(
      "run run_e: the answer does not match the requested schema: / must have required property 'size'",
    );
    const optional: ElicitationPending = {
      ...FORM,
      requestedSchema: { type: 'object', properties: { note: { type: 'string', default: 'none' } } },
    };
    expect(elicitationAnswer('run_e', optional, 'accept', '').content).toEqual({ note: 'none' });
  });

  it('names every field that does not fit the schema, separated by "; "', () => {
    const error = refusal(() => elicitationAnswer('run_e', FORM, 'accept', '{"size":"XL","count":0}'));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toBe(
      'run run_e: the answer does not match the requested schema: /size must be equal to one of the allowed values; /count must be >= 1',
    );
  });

  it('a schema the runtime cannot use is refused with its reason', () => {
    const broken: ElicitationPending = { ...FORM, requestedSchema: { type: 'not-a-type' } };
    const error = refusal(() => elicitationAnswer('run_e', broken, 'accept', '{}'));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toBe(
      "run run_e: the server's requested schema cannot be used: Error: type must be JSONType or JSONType[]: not-a-type",
    );
  });

  it('a form without a requested schema takes any object as it is', () => {
    const { requestedSchema: _schema, ...bare } = FORM;
    expect(elicitationAnswer('run_e', bare, 'accept', '{"anything":[1,2]}').content).toEqual({
      anything: [1, 2],
    });
  });

  it('keeps the input_required round the answer is retried with', () => {
    const round = { inputRequests: { r1: { method: 'elicitation/create' } }, requestState: 'st' };
    const answer = elicitationAnswer('run_e', { ...FORM, round }, 'decline', '');
    expect(answer).toEqual({
      server: 'shop',
      tool: 'order_create',
      fingerprint: 'fp_1',
      round,
      action: 'decline',
    });
  });
});

describe('elicitationAnswer: decline, cancel and URL questions', () => {
  it('decline and cancel carry no content and ignore the text, even invalid', () => {
    for (const action of ['decline', 'cancel'] as ElicitationAction[])
      expect(elicitationAnswer('run_e', FORM, action, 'not json')).toEqual({
        server: 'shop',
        tool: 'order_create',
        fingerprint: 'fp_1',
        action,
      });
  });

  it('a URL question accepted means done: its text is not sent', () => {
    expect(elicitationAnswer('run_e', URL_QUESTION, 'accept', 'I paid')).toEqual({
      server: 'shop',
      tool: 'pay',
      fingerprint: 'fp_2',
      action: 'accept',
    });
  });
});

describe('answerText', () => {
  const base = { server: 's', tool: 't', fingerprint: 'f' };
  it('is the action for decline and cancel, the content as JSON for an accepted form, else "accept"', () => {
    expect(answerText({ ...base, action: 'decline' })).toBe('decline');
    expect(answerText({ ...base, action: 'cancel', content: { a: 1 } })).toBe('cancel');
    expect(answerText({ ...base, action: 'accept', content: { size: 'M', gift: false } })).toBe(
      '{"size":"M","gift":false}',
    );
    expect(answerText({ ...base, action: 'accept' })).toBe('accept');
  });
});

describe('answerServer', () => {
  async function session(): Promise<{ store: MemoryStore; session: RunSession }> {
    const store = new MemoryStore();
    const flow = (await loadFlow({ id: 'f', locale: 'en', nodes: [{ id: 'work' }] }, { knownTools: [] }))
      .flow;
    const { run, events } = newRun('run_e', {
      flow,
      flowDir: null,
      input: { text: 'x' },
      model: null,
      parentRunId: null,
      rootRunId: null,
      tenant: null,
      lease: { owner: 'me', expiresAt: Date.now() + 60_000 },
    });
    const created = await store.createRun(run, events);
    const record = await store.commit({
      runId: 'run_e',
      expectedVersion: created.version,
      patch: {
        status: 'suspended',
        suspension: {
          kind: 'FOLLOW_UP',
          pending: { question: 'Which size?', options: null, elicitation: FORM, id: 'pnd_e' },
        },
      },
    });
    return { store, session: await RunSession.open(store, new EventHub(), record) };
  }

  function state(locale: 'en' | 'zh-CN'): ResolutionState {
    return { nodeId: 'work', locale, now: new Date(0) } as unknown as ResolutionState;
  }

  it('records the answer as a follow-up, traces run.resumed and tells the model in its locale', async () => {
    const { store, session: s } = await session();
    const elicited: ElicitationAnswer = {
      server: 'shop',
      tool: 'order_create',
      fingerprint: 'fp_1',
      action: 'accept',
      content: { size: 'M' },
    };
    const resolution = answerServer(state('en'), s, elicited, 'olivia');
    expect(resolution.changes).toEqual([
      {
        kind: 'followUp',
        record: {
          question: 'Which size?',
          options: null,
          answer: '{"size":"M"}',
          nodeId: 'work',
          elicitation: elicited,
        },
      },
    ]);
    const obs = resolution.observation;
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(obs.message('en')).toContain(
      'The user answered the question of MCP server shop (accept); the answer is given to the server when order_create is called again with the same arguments',
    );
    expect(obs.data).toEqual({ action: 'accept', content: { size: 'M' } });
    await s.checkpoint();
    const resumed = (await store.events('run_e', 0)).filter((e) => e.type === 'run.resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({
      nodeId: 'work',
      kind: 'FOLLOW_UP',
      answer: '{"size":"M"}',
      who: 'olivia',
      action: 'accept',
    });
  });

  it('a decline has no content in its observation and is recorded as "decline"', async () => {
    const { session: s } = await session();
    const resolution = answerServer(
      state('zh-CN'),
      s,
      { server: 'shop', tool: 'order_create', fingerprint: 'fp_1', action: 'decline' },
      null,
    );
    expect(resolution.observation.data).toEqual({ action: 'decline' });
    expect(resolution.observation.message('zh-CN')).toContain('用户已回答 MCP 服务器 shop 的提问（decline）');
    expect(resolution.changes[0]).toMatchObject({ kind: 'followUp', record: { answer: 'decline' } });
  });
});
