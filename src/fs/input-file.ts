import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** The default largest file read because of input (flows, scripted models, `@file` inputs): 4 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The size cap of input files: env `AGENT_RUNTIME_MAX_FILE_BYTES` when it is a positive integer,
 * else DEFAULT_MAX_FILE_BYTES.
 */
export function maxFileBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENT_RUNTIME_MAX_FILE_BYTES;
  const n = raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_MAX_FILE_BYTES;
}

/** Why an input file was not read. */
export type InputFileErrorCode =
  /** No such file (or a folder on the way is a file). */
  | 'NOT_FOUND'
  /** A folder, device, FIFO or socket: only regular files are read. */
  | 'NOT_REGULAR'
  /** Larger than the cap (AGENT_RUNTIME_MAX_FILE_BYTES). */
  | 'TOO_LARGE'
  /** The file system refused (permissions, I/O): the message names the system code. */
  | 'UNREADABLE'
  /** The path leaves the folder it must lie in. */
  | 'OUTSIDE';

/** Why an input file was not read. The message names the path and the reason, never the content. */
export class InputFileError extends AgentRuntimeError {
  override readonly name = 'InputFileError';
  declare readonly code: InputFileErrorCode;
  constructor(
    code: InputFileErrorCode,
    readonly path: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
  }
}

/** Options of the input-file readers. */
export interface ReadInputOptions {
  /** Largest accepted size in bytes (default `maxFileBytes()`). */
  maxBytes?: number;
}

// O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it as not a regular file.
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Reads a file given by input as UTF-8: regular files only (no devices, FIFOs, sockets or folders),
 * at most `maxBytes` (counted while reading, so files that lie about their size are cut off too).
 * Throws InputFileError with a message that never quotes the file.
 */
export function readInputFileSync(path: string, options: ReadInputOptions = {}): string {
  const max = options.maxBytes ?? maxFileBytes();
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (error) {
    throw openError(path, error);
  }
  try {
    assertRegular(path, fstatSync(fd), max);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, max + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > max) throw tooLarge(path, max);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The asynchronous `readInputFileSync`, with the same checks and errors. */
export async function readInputFile(path: string, options: ReadInputOptions = {}): Promise<string> {
  const max = options.maxBytes ?? maxFileBytes();
  let handle;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    throw openError(path, error);
  }
  try {
    assertRegular(path, await handle.stat(), max);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, max + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) throw tooLarge(path, max);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Resolves `file` (relative to `dir`) to a real path inside `dir`, or throws InputFileError
 * OUTSIDE (its message names the file as `label`, by default as given). A path that leaves `dir`
 * by `..` or an absolute path is refused before the file system is touched (nothing outside can be
 * probed); links are then resolved and must stay inside too.
 */
export function confinedPath(dir: string, file: string, what: string, label: string = file): string {
  const root = realOrSelf(resolve(dir));
  const lexical = resolve(root, file);
  const outside = new InputFileError(
    'OUTSIDE',
    file,
    `${what} ${JSON.stringify(label)} is outside the folder it must lie in`,
  );
  if (!inside(root, lexical)) throw outside;
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch (error) {
    throw openError(label, error);
  }
  if (!inside(root, real)) throw outside;
  return real;
}

/** True when `path` is `root` or below it. */
export function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of `path` (links resolved), or `path` itself when it does not exist (yet). */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return path;
    throw error;
  }
}

function assertRegular(path: string, stat: { isFile(): boolean; size: number }, max: number): void {
  if (!stat.isFile()) throw new InputFileError('NOT_REGULAR', path, `${path} is not a regular file`);
  if (stat.size > max) throw tooLarge(path, max);
}

function tooLarge(path: string, max: number): InputFileError {
  return new InputFileError(
    'TOO_LARGE',
    path,
    `${path} is larger than ${max} bytes (AGENT_RUNTIME_MAX_FILE_BYTES sets the limit)`,
  );
}

function openError(path: string, error: unknown): InputFileError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new InputFileError('NOT_FOUND', path, `file not found: ${path}`, { cause: error });
  if (code === 'EISDIR') return new InputFileError('NOT_REGULAR', path, `${path} is not a regular file`);
  return new InputFileError('UNREADABLE', path, `cannot read ${path} (${code ?? 'error'})`, { cause: error });
}
