/**
 * The CLI's stderr while a run is driven: progress lines, log lines, the live text of a streaming
 * model and the TTY spinner, written by one writer so that they keep their order.
 *
 * Why log lines are held: trace events reach the CLI when the run commits them (one commit per step,
 * docs/durability.md), while a log line (`INFO TOOL invoked …`) is written the moment it happens —
 * before the events of the same step. Written at once, a step's log line came out above the progress
 * lines of what preceded it. So a log line waits (at most HOLD_MS) for the next committed events and
 * is printed after every event that happened before it (by timestamp, in milliseconds), before every
 * later one — except that the log lines since the previous event follow a tool call's progress line
 * (they are about that call: its `TOOL invoked` line, its server's stderr), see `settle`.
 */

/** Longest a log line waits for the events that precede it, ms (then it is printed anyway). */
export const HOLD_MS = 1000;

/** A stderr writer that keeps progress, logs and streamed text in order (see the module comment). */
export class ProgressWriter {
  private held: { at: number; line: string }[] = [];
  private holdTimer: NodeJS.Timeout | null = null;
  /** The stream whose text is on the open (unterminated) line, or null. */
  private openStream: string | null = null;
  private spinner: NodeJS.Timeout | null = null;
  private frame = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Writes whole lines (text ending in a newline) that happened at `at` (default now): held logs before it go first. */
  lines(text: string, at?: number): void {
    this.release(at ?? this.clock());
    this.raw(text);
  }

  /**
   * Prints the held log lines that happened at or before `at`: called after a tool call's progress
   * line, so that its own `TOOL invoked` line (logged just before the event) follows it.
   */
  settle(at: number): void {
    this.release(at + 1);
  }

  /** A log line (without its newline): held until the events that happened before it are printed. */
  log(line: string): void {
    this.held.push({ at: this.clock(), line });
    this.schedule();
  }

  private schedule(): void {
    if (this.holdTimer || this.held.length === 0) return;
    this.holdTimer = setTimeout(() => {
      this.holdTimer = null;
      this.release(this.clock() - HOLD_MS + 1);
      this.schedule();
    }, HOLD_MS);
    this.holdTimer.unref();
  }

  /**
   * Appends `text` to the open line of stream `key` (opening it with `head` first). Another stream's
   * open line is ended first. Held log lines that happened before now go first.
   */
  stream(key: string, head: string, text: string): void {
    this.release(this.clock());
    this.stopSpinner();
    if (this.openStream !== key) {
      this.endOpenLine();
      this.write(head);
      this.openStream = key;
    }
    if (text !== '') this.write(text);
  }

  /** Whether stream `key` has its line open (its text has been shown). */
  isOpen(key: string): boolean {
    return this.openStream === key;
  }

  /** Prints every held log line (before the closing summary, and when the command ends). */
  flush(): void {
    this.release(Number.POSITIVE_INFINITY);
    this.stopSpinner();
    this.endOpenLine();
  }

  /** Shows `label` after a spinner until anything else is written (TTY only). */
  startSpinner(label: string): void {
    if (this.spinner || this.openStream !== null) return;
    const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
    this.spinner = setInterval(() => {
      this.frame = (this.frame + 1) % frames.length;
      this.write(`\r${frames[this.frame]} ${label}`);
    }, 80);
    this.spinner.unref();
  }

  /** Stops the spinner and clears its line. */
  stopSpinner(): void {
    if (!this.spinner) return;
    clearInterval(this.spinner);
    this.spinner = null;
    this.write('\r\x1b[K');
  }

  private raw(text: string): void {
    this.stopSpinner();
    this.endOpenLine();
    this.write(text);
  }

  private endOpenLine(): void {
    if (this.openStream === null) return;
    this.openStream = null;
    this.write('\n');
  }

  /** Prints the held log lines that happened before `until`, in order. */
  private release(until: number): void {
    if (this.held.length === 0) return;
    const due: string[] = [];
    while (this.held.length > 0 && (this.held[0]?.at ?? Infinity) < until)
      due.push(this.held.shift()?.line ?? '');
    if (this.held.length === 0 && this.holdTimer) {
      clearTimeout(this.holdTimer);
      this.holdTimer = null;
    }
    if (due.length > 0) this.raw(due.map((line) => `${line}\n`).join(''));
  }
}
