import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ApiError } from './errors.js';

/** A response as remembered for replay. */
export interface StoredResponse<T = unknown> {
  status: number;
  body: T;
}

/** Limits of the idempotency cache. */
export interface IdempotencyOptions {
  /** Most keys remembered; the oldest is forgotten first (default 10000). */
  maxEntries?: number;
  /** How long a key is remembered, in ms (default 24 h). */
  ttlMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

interface Entry {
  fingerprint: string;
  response: Promise<StoredResponse>;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` memory of one server process (docs/durability.md; docs/api.md): the first successful (2xx)
 * response to a key is replayed for every later request with the same key, caller and route; a
 * request arriving while the first is in progress waits for it. Error responses are not remembered:
 * an error changed nothing, so a retry simply runs again. The map is bounded (oldest forgotten first)
 * and lives in memory only — lost on restart, not shared between server processes.
 */
export class IdempotencyCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(options: IdempotencyOptions = {}) {
    const now = options.now ?? Date.now;
    this.entries = new LRUCache({
      max: options.maxEntries ?? 10_000,
      ttl: options.ttlMs ?? 24 * 60 * 60 * 1000,
      // A key's time runs from its first request, however often it is replayed.
      updateAgeOnGet: false,
      // Read the clock at every look (no cached reading), and never as 0: lru-cache takes a start
      // time of 0 for "no ttl", and a test clock may start there.
      ttlResolution: 0,
      perf: { now: () => now() + 1 },
    });
  }

  /** How many keys are remembered now. */
  get size(): number {
    this.entries.purgeStale();
    return this.entries.size;
  }

  /**
   * Runs `produce` once per (scope, key): returns its response and whether it was a replay. A key
   * reused with another request body is a 400 (`IDEMPOTENCY_KEY_REUSED`); a malformed key is a 400.
   */
  async run<T>(
    scope: string,
    key: string,
    body: unknown,
    produce: () => Promise<StoredResponse<T>>,
  ): Promise<StoredResponse<T> & { replayed: boolean }> {
    if (!KEY.test(key))
      throw new ApiError(400, 'BAD_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    const id = `${scope}\u0000${key}`;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(body ?? null))
      .digest('hex');
    const known = this.entries.get(id);
    if (known) {
      if (known.fingerprint !== fingerprint) {
        throw new ApiError(
          400,
          'IDEMPOTENCY_KEY_REUSED',
          'this Idempotency-Key was used with another request body; use a new key',
        );
      }
      // The scope names the route, so a remembered body has the type this route answers.
      return { ...((await known.response) as StoredResponse<T>), replayed: true };
    }
    const response = produce();
    this.entries.set(id, { fingerprint, response });
    try {
      const result = await response;
      if (result.status < 200 || result.status > 299) this.forget(id, response);
      return { ...result, replayed: false };
    } catch (error) {
      this.forget(id, response);
      throw error;
    }
  }

  private forget(id: string, response: Promise<StoredResponse>): void {
    if (this.entries.get(id)?.response === response) this.entries.delete(id);
  }
}
