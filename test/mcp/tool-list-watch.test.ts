import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolListWatch } from '../../src/mcp/tool-list-watch.js';

/** Resolves when `promise` has settled, or reports that it is still pending after a macrotask. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return !done;
}

describe('ToolListWatch', () => {
  afterEach(() => vi.useRealTimers());

  it('settles at once with nothing announced, and after the one relisting of several notifications', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let release: () => void = () => undefined;
    let relists = 0;
    const watch = new ToolListWatch(() => {
      relists += 1;
      return new Promise<void>((resolve) => (release = resolve));
    }, 5);
    expect(await pending(watch.settled())).toBe(false);
    watch.notified();
    watch.notified();
    const settled = watch.settled();
    expect(await pending(settled)).toBe(true);
    await vi.advanceTimersByTimeAsync(4);
    expect(relists).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(relists).toBe(1);
    // The relisting runs: a caller asking now waits for it too.
    expect(await pending(watch.settled())).toBe(true);
    release();
    await settled;
    await watch.settled();
    expect(relists).toBe(1);
  });

  it('a failed relisting settles too, and stop lets nobody wait for a relisting that will not come', async () => {
    const failing = new ToolListWatch(() => Promise.reject(new Error('gone')), 1);
    failing.notified();
    await failing.settled();
    let relists = 0;
    const stopped = new ToolListWatch(() => Promise.resolve(void (relists += 1)), 1_000);
    stopped.notified();
    const settled = stopped.settled();
    stopped.stop();
    await settled;
    stopped.notified();
    await stopped.settled();
    expect(relists).toBe(0);
  });
});
