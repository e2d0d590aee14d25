import { describe, expect, it } from 'vitest';
import {
  RunStatusSchema,
  RunSummarySchema,
  UsageSchema,
  continueWith,
  summarize,
  type RunStatus,
} from '../../src/records/summary.js';
import type { RunSuspension } from '../../src/records/pending.js';
import { runState } from '../../src/testing/store-contract/helpers.js';

/** The run summary (docs/api.md): what `--json` prints and the HTTP API answers, made from a stored run. */

const USAGE = { inputTokens: 12, outputTokens: 3, totalTokens: 15 };
const CREATED = '2026-01-01T00:00:00.000Z';
const UPDATED = '2026-01-01T00:05:00.000Z';

const approval: RunSuspension = {
  kind: 'APPROVAL',
  pending: { id: 'pnd_1', tool: 'refund', args: { amount: 40 }, summary: 'refund 40', provenance: {} },
};

/** A run's head as a listing has it (no state document). */
function head(patch: Partial<Parameters<typeof summarize>[0]> = {}): Parameters<typeof summarize>[0] {
  return {
    runId: 'run_1',
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: USAGE,
    outputs: {},
    flowId: 'shop',
    parentRunId: null,
    createdAt: CREATED,
    updatedAt: UPDATED,
    reply: null,
    threadId: null,
    ...patch,
  };
}

/** A run's whole record (with its state document). */
function whole(
  patch: Partial<Omit<Parameters<typeof summarize>[0], 'reply' | 'threadId'>> = {},
  state: Record<string, unknown> = {},
): Parameters<typeof summarize>[0] {
  const base = head(patch) as unknown as Record<string, unknown>;
  delete base.reply;
  delete base.threadId;
  return { ...base, state: runState('run_1', state) } as Parameters<typeof summarize>[0];
}

const held = {
  id: 'hld_ab12',
  nodeId: 'pay',
  until: Date.UTC(2026, 0, 1, 0, 10),
  elicitation: {
    server: 'shop',
    tool: 'order_place',
    fingerprint: 'fp1',
    mode: 'form' as const,
    message: 'Pick a size',
    requestedSchema: { type: 'object' },
  },
};

describe('RunStatusSchema and UsageSchema', () => {
  it('knows exactly the five statuses of docs/durability.md', () => {
    expect(RunStatusSchema.options).toEqual(['running', 'suspended', 'completed', 'failed', 'cancelled']);
    expect(RunStatusSchema.safeParse('paused').success).toBe(false);
  });

  it('takes whole token counts, the cache counts only optionally', () => {
    expect(UsageSchema.parse(USAGE)).toEqual(USAGE);
    const cached = { ...USAGE, cacheReadTokens: 8, cacheWriteTokens: 0 };
    expect(UsageSchema.parse(cached)).toEqual(cached);
    expect(UsageSchema.safeParse({ ...USAGE, inputTokens: 1.5 }).success).toBe(false);
    expect(UsageSchema.safeParse({ inputTokens: 1, outputTokens: 1 }).success).toBe(false);
    expect(UsageSchema.safeParse({ ...USAGE, cacheReadTokens: '8' }).success).toBe(false);
  });
});

describe('continueWith', () => {
  const failed = { runId: 'run_9', status: 'failed' as RunStatus, reason: 'MODEL_FAILED', parentRunId: null };

  it('names the retry command and request with model M for a top-level MODEL_FAILED run', () => {
    expect(continueWith(failed)).toEqual({
      command: 'agent-runtime retry run_9 --model M',
      request: 'POST /v1/runs/run_9/retry {"model": "M"}',
    });
  });

  it('is undefined for another reason, another status or a child run', () => {
    expect(continueWith({ ...failed, reason: 'NO_PROGRESS' })).toBeUndefined();
    expect(continueWith({ ...failed, reason: null })).toBeUndefined();
    expect(continueWith({ ...failed, parentRunId: 'run_0' })).toBeUndefined();
    for (const status of ['running', 'suspended', 'completed', 'cancelled'] as const)
      expect(continueWith({ ...failed, status })).toBeUndefined();
  });
});

describe('summarize', () => {
  it('a running run from its head: only the fields every summary has', () => {
    expect(summarize(head())).toEqual({
      runId: 'run_1',
      status: 'running',
      outputs: {},
      reply: null,
      usage: USAGE,
      flowId: 'shop',
      createdAt: CREATED,
      updatedAt: UPDATED,
    });
  });

  it('a completed run gives its reply, from the head or from the state document', () => {
    expect(summarize(head({ status: 'completed', reply: 'Refunded 40.' })).reply).toBe('Refunded 40.');
    expect(summarize(whole({ status: 'completed' }, { reply: 'Done.' })).reply).toBe('Done.');
    // A completed run whose last node gave no answer.
    expect(summarize(whole({ status: 'completed' })).reply).toBeNull();
    expect(summarize(head({ status: 'completed', reply: null })).reply).toBeNull();
  });

  it('no reply while the run has not completed, whatever the head or state hold', () => {
    for (const status of ['running', 'suspended', 'failed', 'cancelled'] as const) {
      expect(summarize(head({ status, reply: 'early' })).reply, status).toBeNull();
      expect(summarize(whole({ status }, { reply: 'early' })).reply, status).toBeNull();
    }
  });

  it('keeps the suspension only of a suspended run', () => {
    expect(summarize(head({ status: 'suspended', suspension: approval })).suspension).toEqual(approval);
    // A stale suspension column on a run that went on is not shown.
    expect(summarize(head({ status: 'running', suspension: approval }))).not.toHaveProperty('suspension');
    expect(summarize(head({ status: 'suspended', suspension: null }))).not.toHaveProperty('suspension');
  });

  it('a failed run: reason, failed node and message, and no continueWith for another reason', () => {
    const summary = summarize(
      head({ status: 'failed', reason: 'NO_PROGRESS', failedNode: 'pay', message: '3 stalls' }),
    );
    expect(summary).toMatchObject({ reason: 'NO_PROGRESS', failedNode: 'pay', message: '3 stalls' });
    expect(summary).not.toHaveProperty('continueWith');
  });

  it('a top-level run that failed MODEL_FAILED says how to continue it; a child run does not', () => {
    const top = summarize(head({ runId: 'run_7', status: 'failed', reason: 'MODEL_FAILED' }));
    expect(top.continueWith).toEqual({
      command: 'agent-runtime retry run_7 --model M',
      request: 'POST /v1/runs/run_7/retry {"model": "M"}',
    });
    const child = summarize(head({ status: 'failed', reason: 'MODEL_FAILED', parentRunId: 'run_0' }));
    expect(child.parentRunId).toBe('run_0');
    expect(child).not.toHaveProperty('continueWith');
  });

  it('leaves out null columns instead of writing them as null', () => {
    const summary = summarize(head());
    for (const key of ['reason', 'failedNode', 'message', 'parentRunId', 'suspension', 'threadId'])
      expect(summary, key).not.toHaveProperty(key);
  });

  it('an empty reason or message is kept (only null is left out)', () => {
    const summary = summarize(head({ status: 'failed', reason: '', message: '' }));
    expect(summary.reason).toBe('');
    expect(summary.message).toBe('');
  });

  it('forkedFrom comes from the state document only, cut to run and seq', () => {
    const forked = whole({}, { forkedFrom: { runId: 'run_0', seq: 14, extra: 'x' } });
    expect(summarize(forked).forkedFrom).toEqual({ runId: 'run_0', seq: 14 });
    expect(summarize(whole())).not.toHaveProperty('forkedFrom');
  });

  it('the thread id from the head of a listing or from the state document', () => {
    expect(summarize(head({ threadId: 'T1' })).threadId).toBe('T1');
    expect(summarize(whole({}, { thread: { id: 'T2', history: [] } })).threadId).toBe('T2');
    expect(summarize(head({ threadId: '' }))).not.toHaveProperty('threadId');
  });

  it('a running run with a question held open shows it, with `until` as an ISO time', () => {
    const summary = summarize(whole({ status: 'running' }, { held }));
    expect(summary.held).toEqual({
      id: 'hld_ab12',
      question: 'Pick a size',
      elicitation: held.elicitation,
      until: '2026-01-01T00:10:00.000Z',
    });
  });

  it('no held question once it was answered, or when the run is not running', () => {
    const answered = {
      ...held,
      answer: { server: 'shop', tool: 'order_place', fingerprint: 'fp1', action: 'accept', who: 'olivia' },
    };
    expect(summarize(whole({ status: 'running' }, { held: answered }))).not.toHaveProperty('held');
    expect(summarize(whole({ status: 'suspended', suspension: approval }, { held }))).not.toHaveProperty(
      'held',
    );
  });

  it('gives the outputs and usage as stored, by reference to the same values', () => {
    const outputs = { pay: { amount: 40, receipt: { id: 'r1' } } };
    const summary = summarize(head({ status: 'completed', outputs }));
    expect(summary.outputs).toBe(outputs);
    expect(summary.usage).toEqual(USAGE);
  });

  it('every summary it makes fits the published RunSummarySchema', () => {
    const records = [
      head(),
      head({ status: 'suspended', suspension: approval }),
      head({ status: 'failed', reason: 'MODEL_FAILED', failedNode: 'pay', message: 'HTTP 500' }),
      whole(
        { status: 'completed', outputs: { pay: { ok: true } } },
        { reply: 'ok', forkedFrom: { runId: 'r', seq: 1 } },
      ),
      whole({ status: 'running' }, { held, thread: { id: 'T', history: [{ role: 'user', text: 'hi' }] } }),
    ];
    for (const record of records) {
      const summary = summarize(record);
      expect(RunSummarySchema.parse(summary)).toEqual(summary);
    }
  });
});

describe('RunSummarySchema', () => {
  const minimal = {
    runId: 'run_1',
    status: 'completed',
    outputs: { main: { n: 1 } },
    reply: null,
    usage: USAGE,
    flowId: 'f',
    createdAt: CREATED,
    updatedAt: UPDATED,
  };

  it('requires reply to be present, null allowed', () => {
    expect(RunSummarySchema.safeParse(minimal).success).toBe(true);
    const { reply: _, ...noReply } = minimal;
    expect(RunSummarySchema.safeParse(noReply).success).toBe(false);
  });

  it('refuses outputs that are not objects per node, and a fractional fork seq', () => {
    expect(RunSummarySchema.safeParse({ ...minimal, outputs: { main: 3 } }).success).toBe(false);
    expect(RunSummarySchema.safeParse({ ...minimal, forkedFrom: { runId: 'r', seq: 1.5 } }).success).toBe(
      false,
    );
    expect(RunSummarySchema.safeParse({ ...minimal, status: 'done' }).success).toBe(false);
  });
});
