import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CANCEL_POLL_MS, watchingCancel } from '../../src/tools/cancel-watch.js';

/**
 * Watching a call in flight for a cancel written by another process (src/tools/cancel-watch.ts): the
 * stored run is read every interval while the call lasts, never after it, never two reads at once,
 * and a failed read is ignored.
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A promise and the functions that settle it. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('watchingCancel', () => {
  it('looks every 250 ms by default', () => {
    expect(CANCEL_POLL_MS).toBe(250);
  });

  it('returns the call’s value; a call shorter than one interval never reads the store', async () => {
    const cancelled = vi.fn(() => Promise.resolve(false));
    const onCancel = vi.fn();
    const work = deferred<string>();
    const watching = watchingCancel(work.promise, { cancelled, onCancel });
    await vi.advanceTimersByTimeAsync(249);
    work.resolve('done');
    await expect(watching).resolves.toBe('done');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(cancelled).not.toHaveBeenCalled();
    expect(onCancel).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reads once per interval while the call lasts, and stops when it ends', async () => {
    const cancelled = vi.fn(() => Promise.resolve(false));
    const work = deferred<number>();
    const watching = watchingCancel(work.promise, { cancelled, onCancel: vi.fn(), intervalMs: 100 });
    await vi.advanceTimersByTimeAsync(350);
    expect(cancelled).toHaveBeenCalledTimes(3);
    work.resolve(1);
    await watching;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(cancelled).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('calls onCancel once when the stored run says cancelled, and reads no more; the call goes on', async () => {
    const answers = [false, false, true];
    const cancelled = vi.fn(() => Promise.resolve(answers.shift() ?? false));
    const onCancel = vi.fn();
    const work = deferred<string>();
    const watching = watchingCancel(work.promise, { cancelled, onCancel, intervalMs: 10 });
    await vi.advanceTimersByTimeAsync(100);
    expect(cancelled).toHaveBeenCalledTimes(3);
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
    // The caller aborts the call; the watch only reports the call's own end.
    work.resolve('aborted by the caller');
    await expect(watching).resolves.toBe('aborted by the caller');
  });

  it('ignores a failed read and tries again at the next interval', async () => {
    const cancelled = vi
      .fn<() => Promise<boolean>>()
      .mockRejectedValueOnce(new Error('SQLITE_BUSY'))
      .mockResolvedValueOnce(true);
    const onCancel = vi.fn();
    const work = deferred<void>();
    const watching = watchingCancel(work.promise, { cancelled, onCancel, intervalMs: 10 });
    await vi.advanceTimersByTimeAsync(10);
    expect(cancelled).toHaveBeenCalledTimes(1);
    expect(onCancel).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10);
    expect(onCancel).toHaveBeenCalledTimes(1);
    work.resolve();
    await watching;
  });

  it('never starts a read while one is pending: the next interval starts after a read ends', async () => {
    const reads: ReturnType<typeof deferred<boolean>>[] = [];
    const cancelled = vi.fn(() => {
      const read = deferred<boolean>();
      reads.push(read);
      return read.promise;
    });
    const work = deferred<void>();
    const watching = watchingCancel(work.promise, { cancelled, onCancel: vi.fn(), intervalMs: 10 });
    await vi.advanceTimersByTimeAsync(100);
    expect(cancelled).toHaveBeenCalledTimes(1);
    reads[0]!.resolve(false);
    await vi.advanceTimersByTimeAsync(9);
    expect(cancelled).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(cancelled).toHaveBeenCalledTimes(2);
    work.resolve();
    await watching;
  });

  it('does not report a cancel read after the call ended', async () => {
    const read = deferred<boolean>();
    const onCancel = vi.fn();
    const work = deferred<string>();
    const watching = watchingCancel(work.promise, {
      cancelled: () => read.promise,
      onCancel,
      intervalMs: 10,
    });
    await vi.advanceTimersByTimeAsync(10);
    work.resolve('ok');
    await watching;
    read.resolve(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('stops watching once its signal aborts, even with a cancel read in flight', async () => {
    const controller = new AbortController();
    const read = deferred<boolean>();
    const cancelled = vi.fn(() => read.promise);
    const onCancel = vi.fn();
    const work = deferred<void>();
    const watching = watchingCancel(work.promise, {
      cancelled,
      onCancel,
      signal: controller.signal,
      intervalMs: 10,
    });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    read.resolve(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(cancelled).toHaveBeenCalledTimes(1);
    expect(onCancel).not.toHaveBeenCalled();
    work.resolve();
    await watching;
  });

  it('never reads when its signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const cancelled = vi.fn(() => Promise.resolve(true));
    const work = deferred<void>();
    const watching = watchingCancel(work.promise, {
      cancelled,
      onCancel: vi.fn(),
      signal: controller.signal,
      intervalMs: 10,
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(cancelled).not.toHaveBeenCalled();
    work.resolve();
    await watching;
  });

  it('rejects with the call’s own error and leaves no timer behind', async () => {
    const cancelled = vi.fn(() => Promise.resolve(false));
    const work = deferred<void>();
    const watching = watchingCancel(work.promise, { cancelled, onCancel: vi.fn(), intervalMs: 10 });
    const failure = new Error('tool timed out');
    work.reject(failure);
    await expect(watching).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(cancelled).not.toHaveBeenCalled();
  });
});
