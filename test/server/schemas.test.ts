import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AnswerSchema,
  ApprovalSchema,
  AuthorizationStartSchema,
  ErrorSchema,
  EventsHeaders,
  EventsQuery,
  ListRunsQuery,
  RunIdParam,
  StartRunSchema,
  errors,
  json,
} from '../../src/server/schemas.js';
import { openApp, TOKENS, type TestApp } from './helpers.js';

/**
 * The request schemas of the HTTP API (src/server/schemas.ts, docs/api.md), checked directly: the
 * bodies, queries, headers and path ids they accept (with what they make of them) and the ones they
 * refuse, and then, in process through the app, the 400 BAD_REQUEST each refusal becomes
 * (`invalid request <part>: <part>.<path>: <message>`, one `problems` line per issue).
 */

/** The issues of a refused value, as `path: message`. */
function issues(
  schema: {
    safeParse(v: unknown): {
      success: boolean;
      error?: { issues: { path: PropertyKey[]; message: string }[] };
    };
  },
  value: unknown,
): string[] {
  const result = schema.safeParse(value);
  expect(result.success, JSON.stringify(value)).toBe(false);
  return (result.error?.issues ?? []).map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
}

describe('StartRunSchema (POST /v1/runs)', () => {
  it('accepts a registered flow with text or object input and a model', () => {
    expect(StartRunSchema.parse({ flowId: 'refunds', input: 'refund o1', model: 'openai:gpt-4.1' })).toEqual({
      flowId: 'refunds',
      input: 'refund o1',
      model: 'openai:gpt-4.1',
    });
    expect(StartRunSchema.parse({ flowId: 'refunds', input: { orderId: 'o1' } }).input).toEqual({
      orderId: 'o1',
    });
  });

  it('accepts an inline flow object and leaves "exactly one of" to the route', () => {
    expect(StartRunSchema.parse({ flow: { id: 'x', nodes: [] } })).toEqual({ flow: { id: 'x', nodes: [] } });
    expect(StartRunSchema.safeParse({}).success).toBe(true);
    expect(StartRunSchema.safeParse({ flowId: 'a', flow: {} }).success).toBe(true);
  });

  it('refuses empty ids and models, non-object flows, other input types and unknown keys', () => {
    expect(issues(StartRunSchema, { flowId: '' })).toEqual([
      'flowId: Too small: expected string to have >=1 characters',
    ]);
    expect(issues(StartRunSchema, { flowId: 'x', model: '' })).toEqual([
      'model: Too small: expected string to have >=1 characters',
    ]);
    expect(issues(StartRunSchema, { flow: 'refunds.yaml' })).toEqual([
      'flow: Invalid input: expected record, received string',
    ]);
    expect(issues(StartRunSchema, { flow: [] })).toEqual([
      'flow: Invalid input: expected record, received array',
    ]);
    for (const input of [5, true, null, ['a']])
      expect(issues(StartRunSchema, { flowId: 'x', input })).toEqual(['input: Invalid input']);
    expect(issues(StartRunSchema, { flowId: 'x', tenant: 'acme' })).toEqual([': Unrecognized key: "tenant"']);
  });
});

describe('ApprovalSchema (POST /v1/runs/{id}/approval)', () => {
  it('accepts approve and reject, with a comment, edited args and expect', () => {
    expect(ApprovalSchema.parse({ decision: 'reject', comment: 'too much' })).toEqual({
      decision: 'reject',
      comment: 'too much',
    });
    expect(
      ApprovalSchema.parse({ decision: 'approve', args: { orderId: 'o1', amount: 50 }, expect: 'pnd_1' }),
    ).toEqual({ decision: 'approve', args: { orderId: 'o1', amount: 50 }, expect: 'pnd_1' });
    // An empty comment is a comment (it is not `min(1)`).
    expect(ApprovalSchema.parse({ decision: 'approve', comment: '' }).comment).toBe('');
  });

  it('refuses a missing or unknown decision', () => {
    const option = 'decision: Invalid option: expected one of "approve"|"reject"';
    expect(issues(ApprovalSchema, {})).toEqual([option]);
    expect(issues(ApprovalSchema, { decision: 'approved' })).toEqual([option]);
    expect(issues(ApprovalSchema, { decision: 'APPROVE' })).toEqual([option]);
  });

  it('refuses args that are not an object, an empty expect and unknown keys, each named', () => {
    expect(issues(ApprovalSchema, { decision: 'approve', args: [1] })).toEqual([
      'args: Invalid input: expected record, received array',
    ]);
    expect(issues(ApprovalSchema, { decision: 'approve', args: '{"a":1}' })).toEqual([
      'args: Invalid input: expected record, received string',
    ]);
    expect(issues(ApprovalSchema, { decision: 'approve', expect: '' })).toEqual([
      'expect: Too small: expected string to have >=1 characters',
    ]);
    expect(issues(ApprovalSchema, { decision: 'approve', comment: 3, who: 'me' })).toEqual([
      'comment: Invalid input: expected string, received number',
      ': Unrecognized key: "who"',
    ]);
  });
});

describe('AnswerSchema (POST /v1/runs/{id}/answer)', () => {
  it('accepts text, text with an action, and decline or cancel without text', () => {
    expect(AnswerSchema.parse({ text: 'the blue one' })).toEqual({ text: 'the blue one' });
    expect(AnswerSchema.parse({ text: '{"size":"M"}', action: 'accept', expect: 'pnd_2' })).toEqual({
      text: '{"size":"M"}',
      action: 'accept',
      expect: 'pnd_2',
    });
    expect(AnswerSchema.parse({ action: 'decline' })).toEqual({ action: 'decline' });
    expect(AnswerSchema.parse({ action: 'cancel' })).toEqual({ action: 'cancel' });
  });

  it('refuses a missing text unless the action is decline or cancel', () => {
    const required = 'text: text is required unless action is decline or cancel';
    expect(issues(AnswerSchema, {})).toEqual([required]);
    expect(issues(AnswerSchema, { action: 'accept' })).toEqual([required]);
    expect(issues(AnswerSchema, { expect: 'pnd_1' })).toEqual([required]);
  });

  it('refuses an empty text, an unknown action and unknown keys', () => {
    expect(issues(AnswerSchema, { text: '' })).toEqual([
      'text: Too small: expected string to have >=1 characters',
    ]);
    expect(issues(AnswerSchema, { text: 'x', action: 'reject' })).toEqual([
      'action: Invalid option: expected one of "accept"|"decline"|"cancel"',
    ]);
    expect(issues(AnswerSchema, { answer: 'yes' })).toContain(': Unrecognized key: "answer"');
  });
});

describe('AuthorizationStartSchema (POST /v1/runs/{id}/authorization)', () => {
  it('accepts an empty body or an expect, refuses an empty expect and other keys', () => {
    expect(AuthorizationStartSchema.parse({})).toEqual({});
    expect(AuthorizationStartSchema.parse({ expect: 'pnd_1' })).toEqual({ expect: 'pnd_1' });
    expect(issues(AuthorizationStartSchema, { expect: '' })).toEqual([
      'expect: Too small: expected string to have >=1 characters',
    ]);
    expect(issues(AuthorizationStartSchema, { server: 'github' })).toEqual([': Unrecognized key: "server"']);
  });
});

describe('query, header and path schemas', () => {
  it('ListRunsQuery: limit defaults to 100, is coerced from text and bounded to 1..1000 whole numbers', () => {
    expect(ListRunsQuery.parse({})).toEqual({ limit: 100 });
    expect(ListRunsQuery.parse({ status: 'suspended', limit: '1000' })).toEqual({
      status: 'suspended',
      limit: 1000,
    });
    expect(ListRunsQuery.parse({ limit: '1' }).limit).toBe(1);
    expect(issues(ListRunsQuery, { limit: '0' })).toEqual(['limit: Too small: expected number to be >=1']);
    expect(issues(ListRunsQuery, { limit: '1001' })).toEqual([
      'limit: Too big: expected number to be <=1000',
    ]);
    expect(issues(ListRunsQuery, { limit: '1.5' })).toEqual([
      'limit: Invalid input: expected int, received number',
    ]);
    expect(issues(ListRunsQuery, { limit: 'ten' })).toEqual([
      'limit: Invalid input: expected number, received NaN',
    ]);
    expect(issues(ListRunsQuery, { status: 'done' })).toEqual([
      'status: Invalid option: expected one of "running"|"suspended"|"completed"|"failed"|"cancelled"',
    ]);
  });

  it('EventsQuery: after is a whole number from 0, optional', () => {
    expect(EventsQuery.parse({})).toEqual({});
    expect(EventsQuery.parse({ after: '0' })).toEqual({ after: 0 });
    expect(EventsQuery.parse({ after: '42' })).toEqual({ after: 42 });
    expect(issues(EventsQuery, { after: '-1' })).toEqual(['after: Too small: expected number to be >=0']);
    expect(issues(EventsQuery, { after: '2.5' })).toEqual([
      'after: Invalid input: expected int, received number',
    ]);
  });

  it('EventsHeaders: Last-Event-ID is up to 16 digits within the safe integer range', () => {
    expect(EventsHeaders.parse({})).toEqual({});
    expect(EventsHeaders.parse({ 'last-event-id': '0' })).toEqual({ 'last-event-id': '0' });
    expect(EventsHeaders.parse({ 'last-event-id': '9007199254740991' })).toEqual({
      'last-event-id': '9007199254740991',
    });
    const seq = 'last-event-id: Last-Event-ID must be an event seq';
    // 16 digits, but past Number.MAX_SAFE_INTEGER; and each bad value says so once.
    expect(issues(EventsHeaders, { 'last-event-id': '9007199254740992' })).toEqual([seq]);
    for (const bad of ['abc', '-1', '1.0', ' 1', '', '12345678901234567'])
      expect(issues(EventsHeaders, { 'last-event-id': bad }), bad).toEqual([seq]);
  });

  it('RunIdParam: any non-empty id without control characters', () => {
    expect(RunIdParam.parse({ id: 'run_3f2a9c0d1b7e4a6f8c21' })).toEqual({ id: 'run_3f2a9c0d1b7e4a6f8c21' });
    expect(RunIdParam.parse({ id: 'some other id é' }).id).toBe('some other id é');
    for (const id of ['run\u0000x', 'run\nx', 'run\u007fx', '\t'])
      expect(issues(RunIdParam, { id }), JSON.stringify(id)).toEqual([
        'id: expected a run id (no control characters)',
      ]);
    expect(issues(RunIdParam, { id: '' })).toContain('id: Too small: expected string to have >=1 characters');
  });
});

describe('response helpers', () => {
  it('ErrorSchema takes {error: {code, message, problems?}} only', () => {
    expect(ErrorSchema.safeParse({ error: { code: 'CONFLICT', message: 'm' } }).success).toBe(true);
    expect(
      ErrorSchema.safeParse({ error: { code: 'BAD_REQUEST', message: 'm', problems: ['a: b'] } }).success,
    ).toBe(true);
    expect(issues(ErrorSchema, { error: { code: 'X' } })).toEqual([
      'error.message: Invalid input: expected string, received undefined',
    ]);
  });

  it('errors() describes each status asked for with the error body, and nothing else', () => {
    const responses = errors(400, 409, 413);
    expect(Object.keys(responses)).toEqual(['400', '409', '413']);
    expect(responses[409]).toEqual({
      description: 'The run is not waiting for this (nothing changed).',
      content: { 'application/json': { schema: ErrorSchema } },
    });
    expect(responses[413]?.description).toBe(
      'The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE.',
    );
    expect(errors()).toEqual({});
  });

  it('json() wraps a schema as a JSON response with its description', () => {
    expect(json(ErrorSchema, 'an error')).toEqual({
      description: 'an error',
      content: { 'application/json': { schema: ErrorSchema } },
    });
  });
});

describe('refusals through the app: 400 BAD_REQUEST naming each problem', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await openApp();
  });
  afterAll(() => app.stop());

  async function refused(
    method: string,
    path: string,
    options: { json?: unknown; headers?: Record<string, string> },
  ) {
    const response = await app.call(method, path, { token: TOKENS.admin, ...options });
    expect(response.status, `${method} ${path}`).toBe(400);
    return ((await response.json()) as { error: { code: string; message: string; problems?: string[] } })
      .error;
  }

  it('a body: "invalid request body: body.<field>: …", one problem per issue', async () => {
    expect(
      await refused('POST', '/v1/runs/run_1/approval', {
        json: { decision: 'approve', comment: 3, who: 'me' },
      }),
    ).toEqual({
      code: 'BAD_REQUEST',
      message:
        'invalid request body: body.comment: Invalid input: expected string, received number; body: Unrecognized key: "who"',
      problems: [
        'body.comment: Invalid input: expected string, received number',
        'body: Unrecognized key: "who"',
      ],
    });
    expect(await refused('POST', '/v1/runs/run_1/answer', { json: { action: 'accept' } })).toEqual({
      code: 'BAD_REQUEST',
      message: 'invalid request body: body.text: text is required unless action is decline or cancel',
      problems: ['body.text: text is required unless action is decline or cancel'],
    });
    expect((await refused('POST', '/v1/runs', { json: { flowId: '' } })).message).toBe(
      'invalid request body: body.flowId: Too small: expected string to have >=1 characters',
    );
  });

  it('the body is checked before the run is looked up; a valid body reaches the route', async () => {
    const valid = await app.call('POST', '/v1/runs/run_missing/answer', {
      token: TOKENS.admin,
      json: { action: 'decline' },
    });
    expect(valid.status).toBe(404);
    expect(((await valid.json()) as { error: { code: string } }).error.code).toBe('RUN_NOT_FOUND');
  });

  it('a query, a header and a path id are named as such', async () => {
    expect((await refused('GET', '/v1/runs?limit=0', {})).message).toBe(
      'invalid request query: query.limit: Too small: expected number to be >=1',
    );
    expect((await refused('GET', '/v1/runs/run_1/events?after=-1', {})).problems).toEqual([
      'query.after: Too small: expected number to be >=0',
    ]);
    const header = await refused('GET', '/v1/runs/run_1/events', {
      headers: { 'last-event-id': '9007199254740992' },
    });
    expect(header.message).toBe(
      'invalid request header: header.last-event-id: Last-Event-ID must be an event seq',
    );
    expect((await refused('GET', '/v1/runs/run%01x', {})).message).toBe(
      'invalid request path: path.id: expected a run id (no control characters)',
    );
  });
});
