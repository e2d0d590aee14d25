/** One Server-Sent Events message: `data` is built when the message is written, not when it is queued. */
export interface SseMessage {
  /** The `id:` line (a committed event's seq); absent for transient messages. */
  readonly id?: string;
  /** The `event:` line; absent for plain messages. */
  readonly event?: string;
  readonly data: () => string;
  /** Bytes this message counts against the queue's bound (0 for a coalesced one). */
  readonly bytes: number;
}

/** How much one stream may hold back for a reader that does not keep up, and for how long. */
export interface SseQueueLimits {
  /** Bytes of queued messages (coalesced ones not counted) at which the producer waits (`room`). */
  readonly maxBytes: number;
  /** Queued messages at which the producer waits. */
  readonly maxEntries: number;
  /** A reader that takes nothing for this long while messages wait for it is cut (ms). */
  readonly stallMs: number;
}

/** Defaults of SseQueueLimits: about 1 MiB or 500 events behind, per stream; cut after 30 s without progress. */
export const SSE_QUEUE_LIMITS: SseQueueLimits = Object.freeze({
  maxBytes: 1024 * 1024,
  maxEntries: 500,
  stallMs: 30_000,
});

interface Entry {
  message: SseMessage;
  key: string | null;
}

/** What the queue tells its owner. */
export interface SseQueueEvents {
  /**
   * The reader took nothing for `stallMs` while messages waited: the queue is closed. `lastWrittenId`
   * is the id of the last message handed to `write` (it precedes anything written after).
   */
  onStall(lastWrittenId: string | null): void;
  /** `write` failed (the transport is gone): the queue is closed. */
  onError(error: unknown): void;
}

/**
 * The bounded write queue of one event stream. Messages are written one after the other, in order,
 * through `write` (which resolves when the transport took the message: a reader that does not read
 * keeps it pending). A message pushed with a `key` replaces the queued, not yet written message of
 * that key in its place (a streaming model's delta carries its whole text so far, so only the latest
 * matters) and counts nothing against the bound; other messages count their bytes, and their producer
 * awaits `room()` before pushing, so the queue never holds much more than `maxBytes`/`maxEntries`.
 * A reader that takes nothing for `stallMs` while messages wait is cut: the queue drops what it holds,
 * closes and calls `onStall`. Memory held is thus the bound, one message per key and the one being written.
 */
export class SseQueue {
  readonly #entries: Entry[] = [];
  readonly #keyed = new Map<string, Entry>();
  readonly #waiting: (() => void)[] = [];
  #bytes = 0;
  #draining = false;
  #closed = false;
  #lastWrittenId: string | null = null;

  constructor(
    private readonly write: (message: { id?: string; event?: string; data: string }) => Promise<void>,
    private readonly limits: SseQueueLimits,
    private readonly events: SseQueueEvents,
  ) {}

  /** True once the queue stalled, failed or was closed (nothing more is accepted). */
  get closed(): boolean {
    return this.#closed;
  }

  /** True while nothing is queued or being written. */
  get idle(): boolean {
    return !this.#draining && this.#entries.length === 0;
  }

  /** The id of the last message handed to `write` (null: none yet). */
  get lastWrittenId(): string | null {
    return this.#lastWrittenId;
  }

  /** Queues a message (see the class comment for `key`); false once the queue is closed. */
  push(message: SseMessage, key: string | null = null): boolean {
    if (this.#closed) return false;
    const queued = key === null ? undefined : this.#keyed.get(key);
    if (queued) {
      queued.message = message;
      return true;
    }
    const entry: Entry = { message, key };
    this.#entries.push(entry);
    if (key !== null) this.#keyed.set(key, entry);
    else this.#bytes += message.bytes;
    void this.#drain();
    return true;
  }

  /** Resolves once the queue is below its bounds (or closed): the producer may push again. */
  async room(): Promise<void> {
    while (!this.#hasRoom()) await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Resolves once everything queued so far was written (or dropped). */
  async flushed(): Promise<void> {
    while (!this.idle && !this.#closed) await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Drops what is queued and accepts nothing more (the message being written still completes). */
  close(): void {
    this.#closed = true;
    this.#entries.length = 0;
    this.#keyed.clear();
    this.#bytes = 0;
    this.#wake();
  }

  #hasRoom(): boolean {
    return (
      this.#closed || (this.#bytes < this.limits.maxBytes && this.#entries.length < this.limits.maxEntries)
    );
  }

  #wake(): void {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let entry = this.#entries.shift(); entry; entry = this.#entries.shift()) {
        if (entry.key !== null) this.#keyed.delete(entry.key);
        else this.#bytes -= entry.message.bytes;
        const { id, event, data } = entry.message;
        const writing = this.write({
          ...(id !== undefined ? { id } : {}),
          ...(event ? { event } : {}),
          data: data(),
        });
        // Handed to the transport: it reaches the reader before anything written later.
        if (id !== undefined) this.#lastWrittenId = id;
        if (!(await this.#timed(writing))) {
          this.close();
          this.events.onStall(this.#lastWrittenId);
          return;
        }
        this.#wake();
      }
    } catch (error) {
      this.close();
      this.events.onError(error);
    } finally {
      this.#draining = false;
      this.#wake();
    }
  }

  /** True once `writing` resolved; false when it took longer than `stallMs` while other messages waited. */
  async #timed(writing: Promise<void>): Promise<boolean> {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>(
        (resolve) => (timer = setTimeout(resolve, this.limits.stallMs, 'late')),
      );
      try {
        if ((await Promise.race([writing.then(() => 'done' as const), late])) === 'done') return true;
      } finally {
        clearTimeout(timer);
      }
      if (this.#entries.length > 0) return false;
    }
  }
}
