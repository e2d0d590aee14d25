/** How often a call in flight looks at its stored run for a cancel from another process (ms). */
export const CANCEL_POLL_MS = 250;

/** What watching a call in flight for a cancel needs. */
export interface CancelWatch {
  /**
   * Whether the run as stored now was cancelled, carries a cancel request, or is gone (the store is
   * read behind it).
   */
  cancelled(): Promise<boolean>;
  /** Called once when the stored run says it was cancelled (the driver aborts its calls). */
  onCancel(): void;
  /** Watching stops when this aborts (the run is already being stopped). */
  signal?: AbortSignal;
  intervalMs?: number;
}

/**
 * Waits for `work` (one tool call) while looking at the stored run every `intervalMs`: a cancel made by
 * another process (`agent-runtime cancel`, the HTTP API of another `serve`) is only written to the store,
 * so the driving process would otherwise notice it at its next commit, after the call. When the stored
 * run is `cancelled`, or carries a cancel request (a write is in flight: it is finished and recorded,
 * never abandoned), `onCancel` is called, which aborts the reads in flight — the SDK tells the server
 * with `notifications/cancelled`. A call shorter than one interval never reads the store. A failed read
 * is ignored (the next one tries again).
 */
export async function watchingCancel<T>(work: Promise<T>, watch: CancelWatch): Promise<T> {
  const interval = watch.intervalMs ?? CANCEL_POLL_MS;
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    if (done || watch.signal?.aborted) return;
    const cancelled = await watch.cancelled().catch(() => false);
    if (done || watch.signal?.aborted) return;
    if (cancelled) {
      watch.onCancel();
      return;
    }
    timer = setTimeout(() => void tick(), interval);
  };
  timer = setTimeout(() => void tick(), interval);
  try {
    return await work;
  } finally {
    done = true;
    clearTimeout(timer);
  }
}
