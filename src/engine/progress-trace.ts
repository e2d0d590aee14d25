import type { ToolProgress } from '../tools/call.js';
import type { RunSession } from './session.js';

/** After one `tool.progress` of a call, the next is traced no sooner than this (ms); a completing one always is. */
export const PROGRESS_INTERVAL_MS = 1_000;

/** At most this many `tool.progress` events per call; later reports are not traced. */
export const PROGRESS_MAX_EVENTS = 100;

/** A report's `message` is cut to this many characters. */
const MESSAGE_CHARS = 200;

/** Where a call runs, as its `tool.progress` events say. */
export interface ProgressCall {
  nodeId: string;
  round: number;
  callId: string;
  tool: string;
}

/**
 * What a call does with its tool's progress reports: each becomes a `tool.progress` event, committed at
 * once so that watchers (SSE, the console, `--trace`) see it while the call runs. A server that reports
 * in a tight loop cannot flood the trace: at most one event per `PROGRESS_INTERVAL_MS` (the first and
 * a report reaching its `total` always pass) and `PROGRESS_MAX_EVENTS` in all; the rest are dropped.
 */
export function progressTrace(
  session: RunSession,
  call: ProgressCall,
  now: () => number,
): (progress: ToolProgress) => void {
  let last = Number.NEGATIVE_INFINITY;
  let traced = 0;
  return (report) => {
    if (!Number.isFinite(report.progress) || traced >= PROGRESS_MAX_EVENTS) return;
    const total =
      typeof report.total === 'number' && Number.isFinite(report.total) ? report.total : undefined;
    const completes = total !== undefined && report.progress >= total;
    const at = now();
    if (!completes && at - last < PROGRESS_INTERVAL_MS) return;
    last = at;
    traced += 1;
    const message = typeof report.message === 'string' ? cut(report.message) : undefined;
    session.emit({
      type: 'tool.progress',
      ...call,
      progress: report.progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
    });
    // A failed commit (the run was cancelled or taken over) is the call's own commit's to report.
    session.checkpoint().catch(() => undefined);
  };
}

function cut(text: string): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length > MESSAGE_CHARS ? `${chars.slice(0, MESSAGE_CHARS - 1).join('')}…` : chars.join('');
}
