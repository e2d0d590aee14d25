/**
 * Data hooks of the pages: polling of lists and the live run (its summary plus its trace followed
 * over SSE). Each hook cancels its requests when the page leaves.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { LiveDelta, RunSummary, TraceEvent } from './api.js';
import { useSession } from './session.js';
import { followEvents, type StreamState } from './sse.js';
import { emptyRun, foldEvents, type RunView } from './trace-model.js';

/** A loaded value, the error of the last attempt, and a reload function. */
export interface Loaded<T> {
  data: T | null;
  error: Error | null;
  reload: () => void;
}

/** Loads `load()` now, every `everyMs`, and when the tab becomes visible again. */
export function usePolling<T>(load: () => Promise<T>, everyMs: number, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
      },
      (failure: unknown) => {
        if (live) setError(failure instanceof Error ? failure : new Error(String(failure)));
      },
    );
    const timer = setInterval(reload, everyMs);
    const onVisible = (): void => {
      if (document.visibilityState === 'visible') reload();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
    // `load` changes identity on each render; `deps` names what it reads.
  }, [...deps, tick, everyMs]);
  return { data, error, reload };
}

/** Event types after which the summary (status, pending item, outputs) is fetched again. */
const SUMMARY_CHANGES = new Set([
  'mcp.held',
  'mcp.answered',
  'run.suspended',
  'run.resumed',
  'run.retried',
  'approval.voted',
  'approval.escalated',
  'approval.expired',
  'node.completed',
  'node.failed',
  'run.completed',
  'run.failed',
  'run.cancelled',
]);

/** A run as the run page shows it. */
export interface LiveRun {
  summary: RunSummary | null;
  summaryError: Error | null;
  view: RunView;
  stream: { state: StreamState; error: Error | null };
  /** Replaces the summary with one a POST answered (approval, answer, cancel). */
  setSummary: (summary: RunSummary) => void;
  /** A streaming model's turn while it is written; null once the turn (or the run) is recorded. */
  delta: LiveDelta | null;
}

/**
 * The run's summary and its trace, live: events are read over SSE (replayed, then followed) and
 * folded in batches, one render per 50 ms at most, so a long replay stays fast.
 */
export function useLiveRun(runId: string): LiveRun {
  const { api } = useSession();
  const [summary, setSummary] = useState<RunSummary | null>(null);
  const [summaryError, setSummaryError] = useState<Error | null>(null);
  const [view, setView] = useState<RunView>(emptyRun);
  const [stream, setStream] = useState<LiveRun['stream']>({ state: 'connecting', error: null });
  const pending = useRef<TraceEvent[]>([]);
  const [delta, setDelta] = useState<LiveDelta | null>(null);

  const refresh = useCallback(() => {
    api.run(runId).then(
      (s) => {
        setSummary(s);
        setSummaryError(null);
      },
      (error: unknown) => setSummaryError(error instanceof Error ? error : new Error(String(error))),
    );
  }, [api, runId]);

  useEffect(() => {
    setView(emptyRun());
    setSummary(null);
    refresh();
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = (): void => {
      timer = null;
      const batch = pending.current.splice(0);
      if (batch.length === 0) return;
      setView((current) => foldEvents(current, batch));
      if (
        batch.some(
          (e) => e.type === 'model.response' || e.type.startsWith('run.') || e.type.startsWith('node.'),
        )
      )
        setDelta(null);
      if (batch.some((e) => SUMMARY_CHANGES.has(e.type))) refresh();
    };
    void followEvents({
      runId,
      token: api.token,
      signal: controller.signal,
      onEvent(event) {
        pending.current.push(event);
        timer ??= setTimeout(flush, 50);
      },
      onState(state, error) {
        setStream({ state, error: error ?? null });
      },
      onDelta: setDelta,
    });
    return () => {
      controller.abort();
      if (timer !== null) clearTimeout(timer);
      pending.current = [];
    };
  }, [api, runId, refresh]);

  return { summary, summaryError, view, stream, setSummary, delta };
}
