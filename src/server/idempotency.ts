import { createHash } from 'node:crypto';
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
  at: number;
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
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: IdempotencyOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  /** How many keys are remembered now. */
  get size(): number {
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
    this.expire();
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
    this.entries.set(id, { fingerprint, at: this.now(), response });
    this.trim();
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

  private expire(): void {
    const limit = this.now() - this.ttlMs;
    for (const [id, entry] of this.entries) {
      if (entry.at > limit) break;
      this.entries.delete(id);
    }
  }

  private trim(): void {
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) return;
      this.entries.delete(oldest.value);
    }
  }
}
