/**
 * Counts the statements a node process sends to PostgreSQL (each `pg` query is one round trip), split
 * into the store's and the queue's (pg-boss keeps its tables in `<schema>_queue`). Imported by the
 * bench itself, and preloaded into workers (`node --import …/count-queries.js`), which write their counts
 * to the file in env `BENCH_QUERY_COUNTS` when sent SIGUSR2.
 * Nothing here is shipped.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';

/** Statements sent so far by this process. */
export interface QueryCounts {
  store: number;
  queue: number;
}

const counts: QueryCounts = { store: 0, queue: 0 };
/** With env `BENCH_QUERY_LOG=<file>`, every statement's first 160 characters are appended there. */
const logFile = process.env.BENCH_QUERY_LOG;

/** The statements this process sent since it started (or since the last `resetQueryCounts`). */
export function queryCounts(): QueryCounts {
  return { ...counts };
}

/** Starts counting from zero again. */
export function resetQueryCounts(): void {
  counts.store = 0;
  counts.queue = 0;
}

type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;
const marker = Symbol.for('g2rain.bench.countQueries');
const proto = pg.Client.prototype as unknown as Record<PropertyKey, unknown> & { query: QueryFn };
if (!proto[marker]) {
  proto[marker] = true;
  const original = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]): unknown {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '');
    if (logFile) appendFileSync(logFile, `${process.pid} ${text.replace(/\s+/g, ' ').slice(0, 160)}\n`);
    if (/_queue"?\./.test(text)) counts.queue += 1;
    else counts.store += 1;
    return original.apply(this, args);
  };
}

/**
 * In a preloaded process: on SIGUSR2, writes `{ seq, store, queue }` to the `BENCH_QUERY_COUNTS` file
 * (`seq` counts the signals), so the bench can read the counts at the start and the end of a measure.
 */
const signalFile = process.env.BENCH_QUERY_COUNTS;
if (signalFile && !proto[Symbol.for('g2rain.bench.countQueries.signal')]) {
  proto[Symbol.for('g2rain.bench.countQueries.signal')] = true;
  let seq = 0;
  process.on('SIGUSR2', () => {
    seq += 1;
    writeFileSync(signalFile, JSON.stringify({ seq, ...counts }));
  });
}
