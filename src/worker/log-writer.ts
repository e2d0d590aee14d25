import { writeSync } from 'node:fs';

/**
 * A line writer for a worker's stderr logger (`createStderrLogger({ write })`): lines written during
 * one event-loop turn go out in one write at the end of it, instead of one write (a system call on a
 * pipe) per line — a busy worker logs a line per tool call. Lines keep their order; on process exit
 * what is pending is written synchronously, so nothing is lost but the last turn of a killed process.
 */
export function batchedStderrWriter(stream: NodeJS.WriteStream = process.stderr): (line: string) => void {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    stream.write(text);
  };
  process.on('exit', () => {
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    writeSync((stream as { fd?: number }).fd ?? 2, text);
  });
  return (line: string): void => {
    pending.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
