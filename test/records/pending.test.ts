import { describe, expect, it } from 'vitest';
import {
  ApprovalPendingSchema,
  ApproversNeededSchema,
  PendingItemSchema,
  QuestionPendingSchema,
  SuspensionSchema,
} from '../../src/records/pending.js';

/** What a suspended run waits for, as stored, traced and summarised. */

const approval = {
  id: 'pnd_1',
  tool: 'refund',
  args: { amount: 40 },
  summary: 'refund 40',
  provenance: { amount: 'ev_2' },
  approvers: { count: 2, roles: ['admin'] },
  approvedBy: [{ who: 'olivia', role: 'operator', at: '2026-01-01T00:00:00.000Z', comment: null }],
};
const question = { id: 'pnd_2', question: 'Which order?', options: ['o-1', 'o-2'] };

describe('pending items', () => {
  it('reads an approval and a question each as itself', () => {
    expect(PendingItemSchema.parse(approval)).toEqual(approval);
    expect(PendingItemSchema.parse(question)).toEqual(question);
    expect(ApprovalPendingSchema.safeParse(question).success).toBe(false);
    expect(QuestionPendingSchema.safeParse(approval).success).toBe(false);
  });

  it('keeps a question from an MCP server with its elicitation or authorization', () => {
    const elicited = {
      question: 'Pick a size',
      options: null,
      elicitation: {
        server: 'shop',
        tool: 'order_place',
        fingerprint: 'fp',
        mode: 'form',
        message: 'Pick a size',
        requestedSchema: { type: 'object', properties: { size: { type: 'string' } } },
      },
    };
    expect(PendingItemSchema.parse(elicited)).toEqual(elicited);
    const authorize = { question: 'Connect shop', options: null, authorization: { server: 'shop' } };
    expect(PendingItemSchema.parse(authorize)).toEqual(authorize);
    const badMode = { ...elicited, elicitation: { ...elicited.elicitation, mode: 'voice' } };
    expect(PendingItemSchema.safeParse(badMode).success).toBe(false);
  });

  it('refuses an item that is neither, and approvers that are not a positive whole number', () => {
    expect(PendingItemSchema.safeParse({ tool: 'refund', summary: 'no args' }).success).toBe(false);
    expect(PendingItemSchema.safeParse({ question: 'no options' }).success).toBe(false);
    for (const count of [0, -1, 1.5]) expect(ApproversNeededSchema.safeParse({ count }).success).toBe(false);
    expect(ApproversNeededSchema.parse({ count: 1 })).toEqual({ count: 1 });
  });
});

describe('SuspensionSchema', () => {
  it('reads a suspension with the items of several waiting branches', () => {
    const suspension = {
      kind: 'APPROVAL',
      pending: approval,
      items: [
        { kind: 'APPROVAL', nodeId: 'pay', pending: approval },
        { kind: 'FOLLOW_UP', nodeId: 'ask', pending: question },
      ],
    };
    expect(SuspensionSchema.parse(suspension)).toEqual(suspension);
  });

  it('refuses an unknown kind, and an item without its node', () => {
    expect(SuspensionSchema.safeParse({ kind: 'PAYMENT', pending: approval }).success).toBe(false);
    const noNode = {
      kind: 'FOLLOW_UP',
      pending: question,
      items: [{ kind: 'FOLLOW_UP', pending: question }],
    };
    expect(SuspensionSchema.safeParse(noNode).success).toBe(false);
  });
});
