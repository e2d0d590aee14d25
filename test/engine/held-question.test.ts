import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import {
  answerHeld,
  answerIfHeld,
  heldHost,
  holdQuestion,
  holdsQuestion,
  type HeldHost,
} from '../../src/engine/held-question.js';
import { newRun } from '../../src/engine/new-run.js';
import { RunSession } from '../../src/engine/session.js';
import { loadFlow } from '../../src/flow/load.js';
import type { Logger } from '../../src/log/logger.js';
import type { ElicitationPending } from '../../src/records/pending.js';
import type { HeldQuestion } from '../../src/records/state-doc.js';
import { MemoryStore } from '../../src/store/memory.js';
import { versionConflict, type RunRecord } from '../../src/store/store.js';
import { EventHub } from '../../src/trace/event-hub.js';

/**
 * Holding an MCP server's question open (docs/mcp.md, "Holding the request open"): which stored runs
 * hold one, how a person's answer reaches the held question from any process (checked, written once,
 * refused once the hold is over), and the driver's side: the question written into the run, an
 * answer given meanwhile adopted and recorded once, none by the end of the hold.
 */

afterEach(() => vi.useRealTimers());

const RUN = 'run_held';

const QUESTION: ElicitationPending = {
  server: 'shop',
  tool: 'order_create',
  fingerprint: 'fp_1',
  mode: 'form',
  message: 'Which size?',
  requestedSchema: {
    type: 'object',
    properties: { size: { type: 'string', enum: ['S', 'M'] } },
    required: ['size'],
  },
};

function held(extra: Partial<HeldQuestion> = {}): HeldQuestion {
  return { id: 'hld_1', nodeId: 'work', until: 10_000, elicitation: QUESTION, ...extra };
}

function record(status: RunRecord['status'], question: HeldQuestion | undefined, version = 3): RunRecord {
  return {
    runId: RUN,
    status,
    version,
    suspension: null,
    state: { ...(question ? { held: question } : {}) },
  } as unknown as RunRecord;
}

describe('holdsQuestion', () => {
  it('is true for a running run holding an unanswered question whose hold has not ended', () => {
    expect(holdsQuestion(record('running', held()), 9_999)).toBe(true);
  });

  it('is false at or after the end of the hold, once answered, with no question, or when not running', () => {
    expect(holdsQuestion(record('running', held()), 10_000)).toBe(false);
    expect(holdsQuestion(record('running', held()), 20_000)).toBe(false);
    const answer = {
      server: 'shop',
      tool: 'order_create',
      fingerprint: 'fp_1',
      action: 'decline' as const,
      who: null,
    };
    expect(holdsQuestion(record('running', held({ answer })), 0)).toBe(false);
    expect(holdsQuestion(record('running', undefined), 0)).toBe(false);
    expect(holdsQuestion(record('suspended', held()), 0)).toBe(false);
  });
});

/** A host over one record in memory: commits replace it; `conflicts` version conflicts first. */
function fakeHost(initial: RunRecord, options: { now?: number; conflicts?: number } = {}) {
  let current = initial;
  let conflicts = options.conflicts ?? 0;
  const commits: HeldQuestion[] = [];
  const host: HeldHost = {
    read: () => Promise.resolve(current),
    commit: (rec, q) => {
      if (conflicts > 0) {
        conflicts -= 1;
        return Promise.reject(versionConflict(RUN, rec.version, rec.version + 1));
      }
      commits.push(q);
      // The driver takes the answer at once: the stored question is cleared.
      current = { ...rec, version: rec.version + 1, state: { ...rec.state, held: undefined } };
      return Promise.resolve(current);
    },
    clock: () => options.now ?? 5_000,
    pollMs: 1,
  };
  return { host, commits, current: () => current };
}

/** The RunError a promise is rejected with. */
async function refusedWith(promise: Promise<unknown>): Promise<RunError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RunError);
  return error as RunError;
}

describe('answerHeld', () => {
  it('writes the checked answer with who gave it, and returns the run once the driver took it', async () => {
    const { host, commits } = fakeHost(record('running', held()));
    const summary = await answerHeld(host, RUN, { answer: '{"size":"M"}', who: 'olivia' });
    expect(commits).toEqual([
      {
        ...held(),
        answer: {
          server: 'shop',
          tool: 'order_create',
          fingerprint: 'fp_1',
          action: 'accept',
          content: { size: 'M' },
          who: 'olivia',
        },
      },
    ]);
    expect(summary.runId).toBe(RUN);
    expect(summary.status).toBe('running');
  });

  it('a decline carries no content', async () => {
    const { host, commits } = fakeHost(record('running', held()));
    await answerHeld(host, RUN, { answer: '', who: null, action: 'decline' });
    expect(commits[0]?.answer).toEqual({
      server: 'shop',
      tool: 'order_create',
      fingerprint: 'fp_1',
      action: 'decline',
      who: null,
    });
  });

  it('refuses an answer that does not fit the schema, writing nothing', async () => {
    const { host, commits } = fakeHost(record('running', held()));
    const error = await refusedWith(answerHeld(host, RUN, { answer: '{"size":"XL"}', who: null }));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(commits).toEqual([]);
  });

  it('refuses when no question is held any more: RUN_CONFLICT naming the status', async () => {
    for (const [rec, status] of [
      [record('suspended', held()), 'suspended'],
      [record('running', undefined), 'running'],
      [record('running', held({ until: 4_000 })), 'running'],
    ] as const) {
      const error = await refusedWith(
        answerHeld(fakeHost(rec).host, RUN, { answer: '{"size":"M"}', who: null }),
      );
      expect(error.code).toBe('RUN_CONFLICT');
      expect(error.message).toBe(`run ${RUN} is ${status}; no question of it waits for an answer now`);
    }
  });

  it('refuses an expect naming another held question', async () => {
    const { host, commits } = fakeHost(record('running', held()));
    const error = await refusedWith(
      answerHeld(host, RUN, { answer: '{"size":"M"}', who: null, expect: 'hld_0' }),
    );
    expect(error.code).toBe('RUN_CONFLICT');
    expect(error.message).toBe(`run ${RUN} waits for held question hld_1, not for hld_0`);
    expect(commits).toEqual([]);
    await answerHeld(host, RUN, { answer: '{"size":"S"}', who: null, expect: 'hld_1' });
    expect(commits).toHaveLength(1);
  });

  it('looks again after a version conflict (the driver renewed its lease) and writes once', async () => {
    const { host, commits } = fakeHost(record('running', held()), { conflicts: 2 });
    await answerHeld(host, RUN, { answer: '{"size":"M"}', who: 'olivia' });
    expect(commits).toHaveLength(1);
  });

  it('passes on an error of the store that is not a conflict', async () => {
    const { host } = fakeHost(record('running', held()));
    host.commit = () => Promise.reject(new Error('disk full'));
    await expect(answerHeld(host, RUN, { answer: '{"size":"M"}', who: null })).rejects.toThrow('disk full');
  });
});

describe('answerIfHeld', () => {
  it('is null, without a write, for a run that holds no question', async () => {
    const { host, commits } = fakeHost(record('suspended', held()));
    const accepted = vi.fn();
    expect(await answerIfHeld(host, RUN, { answer: 'x', who: null }, { onAccepted: accepted })).toBeNull();
    expect(accepted).not.toHaveBeenCalled();
    expect(commits).toEqual([]);
  });

  it('answers a held question and tells onAccepted the summary it returns', async () => {
    const { host, commits } = fakeHost(record('running', held()));
    const accepted = vi.fn();
    const summary = await answerIfHeld(
      host,
      RUN,
      { answer: '', who: 'sam', action: 'cancel' },
      { expect: 'hld_1', onAccepted: accepted },
    );
    expect(summary?.runId).toBe(RUN);
    expect(accepted).toHaveBeenCalledWith(summary);
    expect(commits[0]?.answer?.action).toBe('cancel');
  });

  it('checks expect when a question is held', async () => {
    const { host } = fakeHost(record('running', held()));
    const error = await refusedWith(
      answerIfHeld(host, RUN, { answer: '{"size":"M"}', who: null }, { expect: 'hld_x' }),
    );
    expect(error.code).toBe('RUN_CONFLICT');
  });
});

/** A logger that keeps its lines. */
function keepingLogger(): Logger & { lines: [string, string, Record<string, unknown> | undefined][] } {
  const lines: [string, string, Record<string, unknown> | undefined][] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push([level, message, fields]);
  };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

/** A running run in a memory store and the session that drives it (holding its lease). */
async function driving(store: MemoryStore): Promise<RunSession> {
  const flow = (await loadFlow({ id: 'f', locale: 'en', nodes: [{ id: 'work' }] }, { knownTools: [] })).flow;
  const { run, events } = newRun(RUN, {
    flow,
    flowDir: null,
    input: { text: 'x' },
    model: null,
    parentRunId: null,
    rootRunId: null,
    tenant: null,
    lease: { owner: 'me', expiresAt: Date.now() + 60_000 },
  });
  const session = await RunSession.open(store, new EventHub(), await store.createRun(run, events));
  session.lease = { owner: 'me', ms: 60_000 };
  return session;
}

describe('holdQuestion', () => {
  it('writes the question into the run, and with no answer by the end of the hold clears it and returns null', async () => {
    const store = new MemoryStore();
    const session = await driving(store);
    const logger = keepingLogger();
    const seen: (HeldQuestion | undefined)[] = [];
    const watching = (async () => {
      for (let i = 0; i < 200 && seen.length === 0; i += 1) {
        const q = (await store.getRun(RUN))?.state.held;
        if (q) seen.push(q);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const answer = await holdQuestion(
      session,
      { nodeId: 'work', elicitation: QUESTION, holdMs: 300 },
      logger,
      5,
    );
    await watching;
    expect(answer).toBeNull();
    expect(seen[0]).toMatchObject({ nodeId: 'work', elicitation: QUESTION });
    expect(seen[0]?.id).toMatch(/^hld_[0-9a-f]{16}$/);
    expect((await store.getRun(RUN))?.state.held).toBeUndefined();
    const events = await store.events(RUN, 0);
    const heldEvent = events.find((e) => e.type === 'mcp.held');
    expect(heldEvent).toMatchObject({
      nodeId: 'work',
      server: 'shop',
      tool: 'order_create',
      question: 'Which size?',
      id: seen[0]?.id,
      until: new Date(seen[0]?.until ?? 0).toISOString(),
    });
    expect(events.some((e) => e.type === 'mcp.answered')).toBe(false);
    const info = logger.lines.find(([level]) => level === 'info');
    expect(info?.[1]).toBe('MCP question held open for an answer');
    expect(info?.[2]).toMatchObject({
      runId: RUN,
      seconds: 0,
      answer: `agent-runtime answer ${RUN} TEXT (or --decline, --cancel)`,
    });
  });

  it('adopts an answer another process gives meanwhile, records it once and returns it without who', async () => {
    const store = new MemoryStore();
    const session = await driving(store);
    const logger = keepingLogger();
    const engine = {
      db: () => Promise.resolve(store),
      require: async (runId: string) => (await store.getRun(runId)) as RunRecord,
      clock: () => Date.now(),
    };
    const host = { ...heldHost(engine), pollMs: 5 };
    const holding = holdQuestion(
      session,
      { nodeId: 'work', elicitation: QUESTION, holdMs: 5_000 },
      logger,
      5,
    );
    let summary;
    for (let i = 0; i < 400; i += 1) {
      const stored = await store.getRun(RUN);
      if (stored && holdsQuestion(stored, Date.now())) {
        summary = await answerHeld(host, RUN, { answer: '{"size":"S"}', who: 'olivia' });
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const answer = await holding;
    expect(answer).toEqual({
      server: 'shop',
      tool: 'order_create',
      fingerprint: 'fp_1',
      action: 'accept',
      content: { size: 'S' },
    });
    expect(summary?.status).toBe('running');
    const stored = (await store.getRun(RUN)) as RunRecord;
    expect(stored.state.held).toBeUndefined();
    expect(stored.state.run.followUps).toEqual([
      {
        question: 'Which size?',
        options: null,
        answer: '{"size":"S"}',
        nodeId: 'work',
        elicitation: { ...answer, used: true },
      },
    ]);
    const answered = (await store.events(RUN, 0)).filter((e) => e.type === 'mcp.answered');
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({
      server: 'shop',
      tool: 'order_create',
      question: 'Which size?',
      action: 'accept',
      answer: '{"size":"S"}',
      who: 'olivia',
    });
  });

  it('stops holding early when the signal aborts', async () => {
    const store = new MemoryStore();
    const session = await driving(store);
    const controller = new AbortController();
    const started = Date.now();
    const holding = holdQuestion(
      session,
      { nodeId: 'work', elicitation: QUESTION, holdMs: 30_000, signal: controller.signal },
      keepingLogger(),
      5,
    );
    setTimeout(() => controller.abort(), 30);
    expect(await holding).toBeNull();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await store.getRun(RUN))?.state.held).toBeUndefined();
  });

  it('does not hold a question it cannot write: warns and returns null at once', async () => {
    const store = new MemoryStore();
    const session = await driving(store);
    const logger = keepingLogger();
    vi.spyOn(store, 'commit').mockRejectedValueOnce(new Error('database is locked'));
    const answer = await holdQuestion(
      session,
      { nodeId: 'work', elicitation: QUESTION, holdMs: 30_000 },
      logger,
      5,
    );
    expect(answer).toBeNull();
    expect(session.held).toBeUndefined();
    expect(logger.lines.map(([level, message]) => [level, message])).toEqual([
      ['warn', 'MCP question not held: the run could not be written'],
    ]);
    vi.restoreAllMocks();
  });
});
