import { modelTimeout } from '../errors.js';
import { classifyFailure, type AttemptFailure } from './errors.js';

/** How long one attempt may take and how failed attempts are retried. */
export interface RetryPolicy {
  /** Time limit of one attempt (request and whole response), in ms. */
  timeoutMs: number;
  /** Further attempts after the first for a retryable failure (0: no retry). */
  maxRetries: number;
  /** Backoff before the first retry, doubled for each further one (with jitter), in ms. */
  initialDelayMs: number;
  /** Upper bound of any delay, including one a provider asks for with `retry-after`, in ms. */
  maxDelayMs: number;
}

/** Side effects of the retry loop, injectable for tests (and the runtime's clock). */
export interface RetryClock {
  /** Milliseconds since the epoch, for a `retry-after` given as an HTTP date (default `Date.now`). */
  now?(): number;
  /** Waits `ms`, or less when `signal` aborts (then resolves, never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1) for the backoff jitter. */
  random(): number;
}

/** The end of a call with retries: a value, or why there is none, and how many attempts were made. */
export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; cancelled: boolean; failure: AttemptFailure; attempts: number };

/** The real clock: `setTimeout` and `Math.random`. */
export const realClock: RetryClock = {
  sleep: (ms, signal) =>
    new Promise<void>((done) => {
      if (signal?.aborted) return done();
      const timer = setTimeout(finish, ms);
      function finish(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        done();
      }
      signal?.addEventListener('abort', finish, { once: true });
    }),
  random: () => Math.random(),
};

/**
 * Runs `attempt` until it succeeds, fails for a reason not worth retrying, or `maxRetries` retries are
 * used up. Each attempt gets a signal that aborts on its timeout or when `outer` aborts; an attempt
 * that ignores its signal is abandoned all the same. Retries wait an exponential backoff with jitter,
 * or what the provider asked for (`retry-after`) when that is longer, never more than `maxDelayMs`.
 * Never throws: cancellation (`outer` aborted) ends at once with `cancelled: true`.
 */
export async function withRetries<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  policy: RetryPolicy,
  clock: RetryClock,
  outer?: AbortSignal,
): Promise<RetryOutcome<T>> {
  for (let n = 1; ; n += 1) {
    const result = await runAttempt(attempt, policy.timeoutMs, outer);
    if (result.ok) return { ok: true, value: result.value, attempts: n };
    if (outer?.aborted) return cancelled(n);
    const failure = classifyFailure(result.error, clock.now ? clock.now() : Date.now());
    if (!failure.retryable || n > policy.maxRetries)
      return { ok: false, cancelled: false, failure, attempts: n };
    await clock.sleep(retryDelay(n, failure.retryAfterMs, policy, clock.random()), outer);
    if (outer?.aborted) return cancelled(n);
  }
}

/** The wait before retry `n` (1-based): backoff with jitter, or a longer `retry-after`, capped. */
export function retryDelay(
  n: number,
  retryAfterMs: number | null,
  policy: RetryPolicy,
  random: number,
): number {
  const backoff = policy.initialDelayMs * 2 ** (n - 1) * (0.5 + random / 2);
  return Math.round(Math.min(policy.maxDelayMs, Math.max(backoff, retryAfterMs ?? 0)));
}

async function runAttempt<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  if (outer?.aborted) return { ok: false, error: outer.reason };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(modelTimeout(timeoutMs)), timeoutMs);
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, fail) => {
    onAbort = () => fail(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return { ok: true, value: await Promise.race([attempt(signal), aborted]) };
  } catch (error) {
    // Whatever the attempt threw once its time was up, the reason is the timeout.
    return {
      ok: false,
      error: controller.signal.aborted && !outer?.aborted ? controller.signal.reason : error,
    };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
  }
}

function cancelled(attempts: number): RetryOutcome<never> {
  return {
    ok: false,
    cancelled: true,
    failure: { message: 'cancelled', detail: 'cancelled', retryable: false, retryAfterMs: null },
    attempts,
  };
}
