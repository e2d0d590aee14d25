import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Prepares the place of a SQLite database holding runs (flows, inputs, evidence: possibly
 * confidential): folders it creates are 0700, and a database file it creates is 0600, so other
 * local users cannot read it. SQLite gives its `-wal` and `-shm` files the database file's mode.
 * Existing folders and files keep their modes.
 */
export function preparePrivateDbFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
