import { describe, expect, it } from 'vitest';
import { SseQueue, type SseMessage } from '../../src/server/sse-queue.js';

/** A transport whose writes wait until the test lets them through. */
function gatedTransport() {
  const written: { id?: string; data: string }[] = [];
  const pending: (() => void)[] = [];
  const write = (message: { id?: string; data: string }): Promise<void> =>
    new Promise((resolve) => {
      pending.push(() => {
        written.push(message);
        resolve();
      });
    });
  const release = async (): Promise<void> => {
    while (pending.length > 0) {
      pending.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { written, write, release, pending };
}

const msg = (data: string, id?: string): SseMessage => ({
  ...(id !== undefined ? { id } : {}),
  data: () => data,
  bytes: id === undefined ? 0 : data.length,
});

describe('SseQueue', () => {
  it('keeps order, replaces a queued delta of the same key in place, and writes the latest', async () => {
    const t = gatedTransport();
    const stalls: (string | null)[] = [];
    const queue = new SseQueue(
      t.write,
      { maxBytes: 1000, maxEntries: 10, stallMs: 60_000 },
      { onStall: (id) => stalls.push(id), onError: () => undefined },
    );
    queue.push(msg('e1', '1'));
    queue.push(msg('d-a'), 'delta');
    queue.push(msg('d-ab'), 'delta');
    queue.push(msg('e2', '2'));
    queue.push(msg('d-abc'), 'delta'); // the queued delta is not yet written: replaced in its place
    await t.release();
    expect(t.written.map((m) => m.data)).toEqual(['e1', 'd-abc', 'e2']);
    queue.push(msg('d-abcd'), 'delta'); // nothing of that key queued now: a new entry
    await t.release();
    expect(t.written.map((m) => m.data).at(-1)).toBe('d-abcd');
    expect(queue.lastWrittenId).toBe('2');
    expect(stalls).toEqual([]);
  });

  it('makes the producer wait at its bounds, and cuts a reader that takes nothing for stallMs', async () => {
    const t = gatedTransport();
    const stalls: (string | null)[] = [];
    const queue = new SseQueue(
      t.write,
      { maxBytes: 10, maxEntries: 3, stallMs: 50 },
      { onStall: (id) => stalls.push(id), onError: () => undefined },
    );
    queue.push(msg('aaaa', '1'));
    queue.push(msg('bbbb', '2'));
    queue.push(msg('cccc', '3'));
    queue.push(msg('dddd', '4')); // '1' is being written; three wait: the bound
    let roomy = false;
    void queue.room().then(() => (roomy = true));
    await new Promise((r) => setImmediate(r));
    expect(roomy).toBe(false);
    // The transport never takes '1': after stallMs with messages waiting, the reader is cut.
    const end = Date.now() + 5_000;
    while (stalls.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(stalls).toEqual(['1']);
    expect(queue.closed).toBe(true);
    expect(roomy).toBe(true);
    expect(queue.push(msg('eeee', '5'))).toBe(false);
  });
});
