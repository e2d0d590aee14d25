import { describe, expect, it } from 'vitest';
import {
  ApprovalPendingSchema,
  ApproverVoteSchema,
  AuthorizationPendingSchema,
  ElicitationPendingSchema,
  PendingItemSchema,
  SuspensionSchema,
  TaskPendingSchema,
  WaitingItemSchema,
} from '../../src/records/pending.js';

/**
 * The pending items test/records/pending.test.ts leaves out: an MCP task the run waits for, URL-mode
 * and `input_required` questions, an approval's expiry fields, and how the union tells items apart.
 */

const task = {
  task: {
    server: 'render',
    tool: 'video_render',
    fingerprint: 'fp9',
    taskId: 'task-42',
    status: 'working',
    pollInterval: 5000,
    startedAt: '2026-01-01T00:00:00.000Z',
    nextPollAt: '2026-01-01T00:00:05.000Z',
  },
  id: 'pnd_3',
};

describe('TaskPendingSchema', () => {
  it('reads a task pending item, with and without its optional fields', () => {
    expect(TaskPendingSchema.parse(task)).toEqual(task);
    const full = { ...task, task: { ...task.task, statusMessage: '40% done', ttl: null } };
    expect(TaskPendingSchema.parse(full)).toEqual(full);
    expect(TaskPendingSchema.parse({ ...full, task: { ...full.task, ttl: 60_000 } }).task.ttl).toBe(60_000);
  });

  it('needs every field of the task that says when to look again', () => {
    for (const key of [
      'server',
      'tool',
      'fingerprint',
      'taskId',
      'status',
      'pollInterval',
      'startedAt',
      'nextPollAt',
    ]) {
      const partial: Record<string, unknown> = { ...task.task };
      delete partial[key];
      expect(TaskPendingSchema.safeParse({ task: partial }).success, key).toBe(false);
    }
    expect(TaskPendingSchema.safeParse({ task: { ...task.task, pollInterval: '5s' } }).success).toBe(false);
  });

  it('is a pending item of its own: neither an approval nor a question', () => {
    expect(PendingItemSchema.parse(task)).toEqual(task);
    expect(ApprovalPendingSchema.safeParse(task).success).toBe(false);
  });

  it('is what a TASK suspension and waiting item carry', () => {
    const suspension = { kind: 'TASK', pending: task, items: [{ kind: 'TASK', nodeId: 'r', pending: task }] };
    expect(SuspensionSchema.parse(suspension)).toEqual(suspension);
    expect(WaitingItemSchema.safeParse({ kind: 'RECOVERY', nodeId: 'r', pending: task }).success).toBe(false);
  });
});

describe('ElicitationPendingSchema', () => {
  const base = { server: 'shop', tool: 'order_place', fingerprint: 'fp', message: 'Confirm' };

  it('reads a URL-mode question with its link and id', () => {
    const url = { ...base, mode: 'url', url: 'https://shop.example/confirm', elicitationId: 'e-1' };
    expect(ElicitationPendingSchema.parse(url)).toEqual(url);
  });

  it('reads a question from an input_required round, with the request state echoed', () => {
    const round = {
      inputRequests: { size: { method: 'elicitation/create', params: { message: 'Pick a size' } } },
      requestState: 'opaque==',
    };
    const pending = { ...base, mode: 'form', round };
    expect(ElicitationPendingSchema.parse(pending)).toEqual(pending);
    expect(
      ElicitationPendingSchema.safeParse({ ...pending, round: { inputRequests: { size: { params: {} } } } })
        .success,
    ).toBe(false);
  });

  it('needs the mode, the fingerprint and the message', () => {
    expect(ElicitationPendingSchema.safeParse(base).success).toBe(false);
    expect(
      ElicitationPendingSchema.safeParse({ ...base, mode: 'form', fingerprint: undefined }).success,
    ).toBe(false);
    expect(ElicitationPendingSchema.safeParse({ ...base, mode: 'form', message: 3 }).success).toBe(false);
  });
});

describe('AuthorizationPendingSchema', () => {
  it('needs the server; the refused tool is optional', () => {
    expect(AuthorizationPendingSchema.parse({ server: 'wiki' })).toEqual({ server: 'wiki' });
    expect(AuthorizationPendingSchema.parse({ server: 'wiki', tool: 'search' })).toEqual({
      server: 'wiki',
      tool: 'search',
    });
    expect(AuthorizationPendingSchema.safeParse({ tool: 'search' }).success).toBe(false);
  });
});

describe('ApprovalPendingSchema', () => {
  const approval = { tool: 'refund', args: { amount: 40 }, summary: 'refund 40' };

  it('needs only tool, args and summary', () => {
    expect(ApprovalPendingSchema.parse(approval)).toEqual(approval);
    for (const key of ['tool', 'args', 'summary']) {
      const partial: Record<string, unknown> = { ...approval };
      delete partial[key];
      expect(ApprovalPendingSchema.safeParse(partial).success, key).toBe(false);
    }
  });

  it('reads the expiry, escalation, user provenance, matches and destructive flag', () => {
    const full = {
      ...approval,
      destructive: true,
      userProvenance: { amount: 'refund 40 please' },
      matches: { amount: [{ at: [], source: 'user' }] },
      expiresAt: '2026-01-02T00:00:00.000Z',
      expiredAt: '2026-01-02T00:00:01.000Z',
      escalatedAt: '2026-01-02T00:00:01.000Z',
    };
    expect(ApprovalPendingSchema.parse(full)).toEqual(full);
  });

  it('refuses args that are not an object, provenance that is not strings, and a bad vote', () => {
    expect(ApprovalPendingSchema.safeParse({ ...approval, args: [40] }).success).toBe(false);
    expect(ApprovalPendingSchema.safeParse({ ...approval, provenance: { amount: 2 } }).success).toBe(false);
    expect(ApprovalPendingSchema.safeParse({ ...approval, destructive: 'yes' }).success).toBe(false);
    expect(
      ApprovalPendingSchema.safeParse({ ...approval, approvedBy: [{ who: 'a', at: 'now', comment: null }] })
        .success,
    ).toBe(false);
  });
});

describe('ApproverVoteSchema', () => {
  it('needs role and comment present, null allowed', () => {
    const vote = { who: 'olivia', role: null, at: '2026-01-01T00:00:00.000Z', comment: null };
    expect(ApproverVoteSchema.parse(vote)).toEqual(vote);
    const { comment: _, ...noComment } = vote;
    expect(ApproverVoteSchema.safeParse(noComment).success).toBe(false);
  });
});

describe('PendingItemSchema', () => {
  it('drops fields no kind of item names (what is summarised is the item’s own fields)', () => {
    const parsed = PendingItemSchema.parse({ question: 'Which?', options: null, secret: 'x' });
    expect(parsed).toEqual({ question: 'Which?', options: null });
  });

  it('needs options present on a question (null for free text)', () => {
    expect(PendingItemSchema.safeParse({ question: 'Which?' }).success).toBe(false);
    expect(PendingItemSchema.safeParse({ question: 'Which?', options: [1, 2] }).success).toBe(false);
  });

  it('refuses values that are not items at all', () => {
    for (const value of [null, 'pnd_1', [], {}, { id: 'pnd_1' }])
      expect(PendingItemSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
  });
});
