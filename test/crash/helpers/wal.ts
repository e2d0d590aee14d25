import { readFileSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { callCrashTool } from '../../../examples/crash/crash-tools.js';
import { SqliteStore } from '../../../src/store/sqlite/index.js';
import type { WriteEntry } from './world.js';

/** The store's WAL as a run left it: the main file and every commit's end in the log. */
export interface WalCapture {
  main: Buffer;
  wal: Buffer;
  /** Byte offset in `wal` just after each commit's last frame, in commit order. */
  commits: number[];
}

/**
 * Records every commit made to a SQLite store, by any process, so that the store can be rebuilt as it
 * was right after each one. SQLite in WAL mode appends each committed transaction to the `-wal` file
 * (a commit ends with a frame whose header holds the database size) and copies pages back into the
 * main file only at checkpoints. A reader that opened its transaction while the WAL was empty holds
 * the WAL's read lock 0 ("reading the main file only"), and no checkpoint may write the main file
 * while it holds it: not the automatic ones, not the one a closing connection attempts. So while the
 * recorder is open the main file stays as it was and the WAL holds every commit; the main file plus
 * the WAL cut after commit k is the database after commit k, exactly as SQLite's own recovery
 * reads it after a crash.
 */
export class WalRecorder {
  private readonly reader: DatabaseSync;

  /** Creates the store's file with the current schema, then starts the read transaction that pins it. */
  static async open(path: string): Promise<WalRecorder> {
    await new SqliteStore({ path }).close();
    return new WalRecorder(path);
  }

  private constructor(readonly path: string) {
    this.reader = new DatabaseSync(path);
    this.reader.exec('BEGIN');
    this.reader.prepare('SELECT count(*) AS n FROM runs').get();
  }

  /** The main file and the WAL as they are now; ends the pin. */
  capture(): WalCapture {
    const main = readFileSync(this.path);
    const wal = readFileSync(`${this.path}-wal`);
    this.reader.exec('COMMIT');
    this.reader.close();
    return { main, wal, commits: commitEnds(wal) };
  }
}

/** The end offsets of the commits in a WAL file (format: sqlite.org/fileformat2.html#walformat). */
export function commitEnds(wal: Buffer): number[] {
  if (wal.length < 32) return [];
  const pageSize = wal.readUInt32BE(8);
  const frame = 24 + pageSize;
  const ends: number[] = [];
  for (let offset = 32; offset + frame <= wal.length; offset += frame) {
    if (wal.readUInt32BE(offset + 4) !== 0) ends.push(offset + frame);
  }
  return ends;
}

/** Writes the database as it was right after commit `k` (0-based) to `path` (plus its `-wal`). */
export function materialize(capture: WalCapture, k: number, path: string): void {
  const end = capture.commits[k];
  if (end === undefined) throw new Error(`the WAL holds ${capture.commits.length} commits, not ${k + 1}`);
  writeFileSync(path, capture.main);
  writeFileSync(`${path}-wal`, capture.wal.subarray(0, end));
}

/**
 * Rebuilds a crash server's data folder by replaying executed writes, in order, through the server's
 * own tool code with their idempotency keys: the same calls give the same state (the flow's reads do
 * not change it), so the first j writes of a run's log give the data as it was after its j-th write.
 */
export async function replayWrites(writes: readonly WriteEntry[], dataDir: string): Promise<void> {
  const signal = new AbortController().signal;
  for (const w of writes)
    await callCrashTool(w.tool, w.args, { dataDir, idempotencyKey: w.idempotencyKey, signal });
}
