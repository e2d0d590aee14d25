/**
 * CPU and query accounting for `npm run bench:scale`: CPU seconds of processes from `/proc/<pid>/stat`
 * (Linux), of the PostgreSQL backends serving the bench (found in `pg_stat_activity` by their
 * `application_name`, sampled while the bench runs, since pools open and close connections), and the
 * queries each node process sends (counted by bench/count-queries.ts). Nothing here is shipped.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ: 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a live process has used, or null when it is gone or unreadable. */
export function processCpuSeconds(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces) start at state (field 3): utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Whether this machine exposes `/proc/<pid>/stat` (else CPU columns read as "n/a"). */
export const hasProcStat = (): boolean => processCpuSeconds(process.pid) !== null;

/**
 * The CPU used by the PostgreSQL backends whose `application_name` is `appName`, between `start()` and
 * `stop()`: a monitor connection lists their pids every `intervalMs`; each pid's CPU is its last
 * reading minus its reading when first seen after `start()` (zero for backends that connected later,
 * so their connection setup counts). A backend that exits between two samples loses its last interval.
 */
export class PgBackendSampler {
  readonly #first = new Map<number, number>();
  readonly #last = new Map<number, number>();
  #timer: NodeJS.Timeout | null = null;
  #client: pg.Client | null = null;
  #sampling: Promise<void> = Promise.resolve();

  constructor(
    private readonly connectionString: string,
    private readonly appName: string,
    private readonly intervalMs = 200,
  ) {}

  /** Connects, takes the first sample (the baseline of backends already there), then samples on a timer. */
  async start(): Promise<void> {
    this.#client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'bench-monitor',
    });
    await this.#client.connect();
    await this.#sample(true);
    this.#timer = setInterval(() => {
      this.#sampling = this.#sampling.then(() => this.#sample(false));
    }, this.intervalMs);
  }

  /** Takes a last sample, disconnects and returns the backends' CPU seconds and how many there were. */
  async stop(): Promise<{ seconds: number; backends: number }> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#sampling;
    await this.#sample(false);
    await this.#client?.end();
    let seconds = 0;
    for (const [pid, last] of this.#last) seconds += last - (this.#first.get(pid) ?? 0);
    return { seconds, backends: this.#last.size };
  }

  async #sample(baseline: boolean): Promise<void> {
    const result = await this.#client!.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [this.appName],
    );
    for (const { pid } of result.rows) {
      const cpu = processCpuSeconds(pid);
      if (cpu === null) continue;
      if (!this.#first.has(pid)) this.#first.set(pid, baseline ? cpu : 0);
      this.#last.set(pid, cpu);
    }
  }
}

/** A node process's CPU between two readings: `/proc` for a child, `process.cpuUsage` for this one. */
export class CpuMeter {
  readonly #start: number | null;
  constructor(private readonly pid: number | 'self') {
    this.#start = this.#read();
  }

  /** CPU seconds since construction (null when not measurable). */
  elapsed(): number | null {
    const now = this.#read();
    return now === null || this.#start === null ? null : now - this.#start;
  }

  #read(): number | null {
    if (this.pid !== 'self') return processCpuSeconds(this.pid);
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  }
}
