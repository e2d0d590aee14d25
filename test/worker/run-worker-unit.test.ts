/**
 * The pure parts of a queue worker, without PostgreSQL: RunWorker (src/worker/worker.ts) with its
 * queue, runtime and store scripted — the sweep, the hand-off of jobs, the log line of each drive,
 * skipped and failed drives, stopping — and the batched stderr writer (src/worker/log-writer.ts).
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import type { Logger } from '../../src/log/logger.js';
import type { RunSummary } from '../../src/records/summary.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Store, StoredEvent } from '../../src/store/store.js';
import { batchedStderrWriter } from '../../src/worker/log-writer.js';
import type { RunQueue, RunQueueWorkOptions } from '../../src/worker/queue.js';
import { RunWorker } from '../../src/worker/worker.js';
import { tempDir } from '../runtime/helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function recordingLogger(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      lines.push({ level, message, fields: { ...fields } });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const summary = (runId: string, status: RunSummary['status']): RunSummary => ({
  runId,
  status,
  outputs: {},
  reply: null,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  flowId: 'f',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** A worker whose queue, runtime and store are scripted. */
function setup(options: { leaseMs?: number; sweepMs?: number; concurrency?: number; polling?: number } = {}) {
  const lines: Line[] = [];
  let handler: ((runId: string) => Promise<void>) | null = null;
  const workOptions: RunQueueWorkOptions[] = [];
  const enqueued: string[][] = [];
  const unleased = { ids: [] as string[], calls: [] as [number, number | undefined][], fail: false };
  const drives = new Map<string, (runId: string) => Promise<RunSummary>>();
  const queue = {
    work: (opts: RunQueueWorkOptions, h: (runId: string) => Promise<void>) => {
      workOptions.push(opts);
      handler = h;
      return Promise.resolve();
    },
    stopWork: vi.fn(() => Promise.resolve()),
    enqueueMany: (ids: readonly string[]) => {
      enqueued.push([...ids]);
      return Promise.resolve();
    },
  };
  const runtime = {
    clock: () => 42_000,
    drive: (runId: string) => {
      const drive = drives.get(runId);
      return drive ? drive(runId) : Promise.resolve(summary(runId, 'completed'));
    },
  };
  const store = {
    unleasedRuns: (now: number, limit?: number) => {
      unleased.calls.push([now, limit]);
      return unleased.fail ? Promise.reject(new Error('pool closed')) : Promise.resolve([...unleased.ids]);
    },
  };
  const worker = new RunWorker({
    runtime: runtime as unknown as Runtime,
    store: store as unknown as Store,
    queue: queue as unknown as RunQueue,
    leaseMs: options.leaseMs ?? 15_000,
    logger: recordingLogger(lines),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.sweepMs !== undefined ? { sweepMs: options.sweepMs } : {}),
    ...(options.polling !== undefined ? { pollingIntervalSeconds: options.polling } : {}),
  });
  const take = (runId: string): Promise<void> => {
    if (!handler) throw new Error('the worker has not started');
    return handler(runId);
  };
  return { worker, lines, workOptions, enqueued, unleased, drives, queue, take };
}

const event = (runId: string, seq: number) => ({ runId, seq, type: 'react.round' }) as unknown as StoredEvent;

describe('RunWorker: start and sweep', () => {
  it('takes jobs with its concurrency (4 by default) and sweeps at once, offering what no live lease holds', async () => {
    const w = setup();
    w.unleased.ids = ['run_a', 'run_b'];
    await w.worker.start();
    expect(w.workOptions).toEqual([{ concurrency: 4 }]);
    expect(w.unleased.calls).toEqual([[42_000, 200]]);
    expect(w.enqueued).toEqual([['run_a', 'run_b']]);
    expect(w.lines).toContainEqual({ level: 'debug', message: 'WORKER sweep', fields: { queued: 2 } });
    await w.worker.stop(0);

    const custom = setup({ concurrency: 2, polling: 7 });
    await custom.worker.start();
    expect(custom.workOptions).toEqual([{ concurrency: 2, pollingIntervalSeconds: 7 }]);
    await custom.worker.stop(0);
  });

  it('does not offer the runs it drives itself, and logs no sweep line when there is nothing', async () => {
    const w = setup();
    await w.worker.start();
    let finish: (s: RunSummary) => void = () => undefined;
    w.drives.set('run_mine', () => new Promise((resolve) => (finish = resolve)));
    const driving = w.take('run_mine');
    w.unleased.ids = ['run_mine', 'run_other'];
    expect(await w.worker.sweep()).toBe(1);
    expect(w.enqueued.at(-1)).toEqual(['run_other']);
    w.unleased.ids = ['run_mine'];
    expect(await w.worker.sweep()).toBe(0);
    expect(w.enqueued.at(-1)).toEqual([]);
    expect(w.lines.filter((l) => l.message === 'WORKER sweep')).toHaveLength(1);
    finish(summary('run_mine', 'completed'));
    await driving;
    await w.worker.stop(0);
  });

  it('runs one sweep at a time: a sweep asked for meanwhile shares it', async () => {
    const w = setup();
    w.unleased.ids = ['run_a'];
    const first = w.worker.sweep();
    const second = w.worker.sweep();
    expect(second).toBe(first);
    expect(await first).toBe(1);
    expect(w.unleased.calls).toHaveLength(1);
    await w.worker.sweep();
    expect(w.unleased.calls).toHaveLength(2);
  });

  it('sweeps every half lease, within 250 ms and 5 s, or every sweepMs; a failed sweep is logged', async () => {
    for (const [leaseMs, sweepMs, every] of [
      [15_000, undefined, 5_000],
      [2_000, undefined, 1_000],
      [300, undefined, 250],
      [15_000, 40, 40],
    ] as const) {
      vi.useFakeTimers();
      const w = setup({ leaseMs, ...(sweepMs !== undefined ? { sweepMs } : {}) });
      await w.worker.start();
      expect(w.unleased.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(every - 1);
      expect(w.unleased.calls, `lease ${leaseMs}`).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(w.unleased.calls, `lease ${leaseMs}`).toHaveLength(2);
      w.unleased.fail = true;
      await vi.advanceTimersByTimeAsync(every);
      expect(w.lines.filter((l) => l.message === 'WORKER sweep failed')).toHaveLength(1);
      expect(w.lines.find((l) => l.message === 'WORKER sweep failed')?.level).toBe('error');
      await w.worker.stop(0);
      await vi.advanceTimersByTimeAsync(every * 3);
      expect(w.unleased.calls).toHaveLength(3);
      vi.useRealTimers();
    }
  });
});

describe('RunWorker: drives', () => {
  it('logs each drive once with the seqs this process committed for that run', async () => {
    const w = setup();
    await w.worker.start();
    w.drives.set('run_a', (runId) => {
      w.worker.observe(event(runId, 5));
      w.worker.observe(event('run_other', 99));
      w.worker.observe(event(runId, 6));
      w.worker.observe(event(runId, 7));
      return Promise.resolve(summary(runId, 'suspended'));
    });
    await w.take('run_a');
    await w.take('run_b');
    const driven = w.lines.filter((l) => l.message === 'WORKER run.driven');
    expect(driven.map((l) => [l.level, l.fields.runId, l.fields.status, l.fields.seqs])).toEqual([
      ['info', 'run_a', 'suspended', '5-7'],
      ['info', 'run_b', 'completed', '---'],
    ]);
    expect(driven[0]?.fields.ms).toEqual(expect.any(Number));
    // an event after the drive ended is not counted for anything
    w.worker.observe(event('run_a', 8));
    expect(w.worker.driving).toEqual([]);
    await w.worker.stop(0);
  });

  it('warns run.lost when the drive ended with the run still running (another driver fenced it off)', async () => {
    const w = setup();
    await w.worker.start();
    w.drives.set('run_a', (runId) => Promise.resolve(summary(runId, 'running')));
    await w.take('run_a');
    expect(w.lines.filter((l) => l.message.startsWith('WORKER run.'))).toEqual([
      {
        level: 'warn',
        message: 'WORKER run.lost',
        fields: expect.objectContaining({ runId: 'run_a', status: 'running' }),
      },
    ]);
    await w.worker.stop(0);
  });

  it('skips a run it drives already, and lists what it drives', async () => {
    const w = setup();
    await w.worker.start();
    let finish: (s: RunSummary) => void = () => undefined;
    const drive = vi.fn(() => new Promise<RunSummary>((resolve) => (finish = resolve)));
    w.drives.set('run_a', drive);
    const first = w.take('run_a');
    expect(w.worker.driving).toEqual(['run_a']);
    await w.take('run_a');
    expect(drive).toHaveBeenCalledTimes(1);
    expect(w.lines).toContainEqual({
      level: 'debug',
      message: 'WORKER run.skipped',
      fields: { runId: 'run_a', reason: 'already driven here' },
    });
    finish(summary('run_a', 'completed'));
    await first;
    expect(w.worker.driving).toEqual([]);
    await w.worker.stop(0);
  });

  it('skips quietly a run another process holds or that is gone; logs and rethrows any other failure', async () => {
    const w = setup();
    await w.worker.start();
    w.drives.set('run_held', () => Promise.reject(new RunError('RUN_CONFLICT', 'run run_held is leased')));
    w.drives.set('run_gone', () => Promise.reject(new RunError('RUN_NOT_FOUND', 'no run run_gone')));
    w.drives.set('run_bad', (runId) => {
      w.worker.observe(event(runId, 3));
      return Promise.reject(new RunError('INPUT_INVALID', 'bad input'));
    });
    w.drives.set('run_broken', () => Promise.reject(new Error('pool closed')));
    await w.take('run_held');
    await w.take('run_gone');
    expect(w.lines.filter((l) => l.message === 'WORKER run.skipped').map((l) => [l.level, l.fields])).toEqual(
      [
        ['debug', { runId: 'run_held', reason: 'run run_held is leased' }],
        ['debug', { runId: 'run_gone', reason: 'no run run_gone' }],
      ],
    );
    await expect(w.take('run_bad')).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    await expect(w.take('run_broken')).rejects.toThrow('pool closed');
    const errors = w.lines.filter((l) => l.message === 'WORKER run.error');
    expect(errors.map((l) => [l.level, l.fields.runId, l.fields.seqs])).toEqual([
      ['error', 'run_bad', '3-3'],
      ['error', 'run_broken', '---'],
    ]);
    expect(w.worker.driving).toEqual([]);
    await w.worker.stop(0);
  });
});

describe('RunWorker.stop', () => {
  it('stops taking jobs and sweeping, and answers the runs still driven after the grace period', async () => {
    vi.useFakeTimers();
    const w = setup();
    await w.worker.start();
    w.drives.set('run_slow', () => new Promise<RunSummary>(() => undefined));
    let finish: (s: RunSummary) => void = () => undefined;
    w.drives.set('run_quick', () => new Promise<RunSummary>((resolve) => (finish = resolve)));
    void w.take('run_slow');
    void w.take('run_quick');
    const stopped = w.worker.stop(1_000);
    let left: string[] | null = null;
    void stopped.then((ids) => (left = ids));
    await vi.advanceTimersByTimeAsync(500);
    expect(left).toBeNull();
    finish(summary('run_quick', 'completed'));
    await vi.advanceTimersByTimeAsync(500);
    expect(left).toEqual(['run_slow']);
    expect(w.queue.stopWork).toHaveBeenCalledTimes(1);
    expect(await w.worker.sweep()).toBe(0);
    expect(w.unleased.calls).toHaveLength(1);
  });

  it('answers at once with nothing left when no run is driven', async () => {
    const w = setup();
    await w.worker.start();
    expect(await w.worker.stop()).toEqual([]);
  });
});

describe('batchedStderrWriter', () => {
  const added: ((...args: unknown[]) => void)[] = [];
  afterEach(() => {
    for (const listener of added.splice(0)) process.removeListener('exit', listener);
  });

  /** A writer on a stream that records its writes, and the exit listener it added. */
  function writer(fd = 2) {
    const before = new Set(process.listeners('exit'));
    const writes: string[] = [];
    const stream = { fd, write: (text: string) => writes.push(text) } as unknown as NodeJS.WriteStream;
    const write = batchedStderrWriter(stream);
    const onExit = process.listeners('exit').find((l) => !before.has(l)) as (...args: unknown[]) => void;
    added.push(onExit);
    return { write, writes, onExit };
  }

  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('writes the lines of one event-loop turn in one write, in order, and nothing for an empty turn', async () => {
    const { write, writes } = writer();
    write('one');
    write('two');
    write('three');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['one\ntwo\nthree\n']);
    await turn();
    expect(writes).toHaveLength(1);
    write('four');
    await turn();
    expect(writes).toEqual(['one\ntwo\nthree\n', 'four\n']);
  });

  it('writes what is pending synchronously to its file descriptor on exit, once', async () => {
    const path = join(tempDir('log-writer-'), 'stderr.log');
    const fd = openSync(path, 'w');
    try {
      const { write, writes, onExit } = writer(fd);
      write('last words');
      write('really last');
      onExit(0);
      expect(readFileSync(path, 'utf8')).toBe('last words\nreally last\n');
      onExit(0);
      await turn();
      expect(writes).toEqual([]);
      expect(readFileSync(path, 'utf8')).toBe('last words\nreally last\n');
    } finally {
      closeSync(fd);
    }
  });
});
