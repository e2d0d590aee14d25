import { realpathSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { inside, type InputFileError } from '../fs/input-file.js';

/**
 * What the flow loader says about delegate files: the refusals and problems naming a delegate, and
 * the path checks behind them (hidden or package folders, links). Never quotes a file's content.
 */

/**
 * The one refusal of a request's delegate, whatever the cause (outside the folder, not found, hidden
 * or in node_modules, not a flow file): telling them apart would let a caller map the server's files.
 */
export function refusedDelegate(delegate: string): string {
  return `delegate flow ${JSON.stringify(delegate)} is not a flow file of the server's flows folder; flows sent over HTTP may delegate only to visible flow files there (not hidden ones, nor in node_modules)`;
}

/** True when `path`, relative to `root` (lexically or after resolving links), has a part starting with a dot or named node_modules. */
export function hiddenOrPackage(root: string, path: string): boolean {
  for (const base of new Set([resolve(root), realOrNull(root)])) {
    if (base === null || !inside(base, path)) continue;
    const parts = relative(base, path).split(sep);
    if (parts.some((part) => part.startsWith('.') || part === 'node_modules')) return true;
  }
  return false;
}

/** The real path of `path`, or null when it does not exist. */
export function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Not there: missing, or a path through a regular file.
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** The problem of a delegate file that does not exist. */
export function notFound(delegate: string): string {
  return `file not found: ${delegate}; expected a flow file relative to the flow's folder`;
}

/** The problem of a delegate file that cannot be read, by why. */
export function unreadable(name: string, error: InputFileError): string {
  if (error.code === 'NOT_REGULAR')
    return `${JSON.stringify(name)} is not a regular file; expected a flow file`;
  if (error.code === 'TOO_LARGE')
    return `${JSON.stringify(name)} is larger than the input file limit (AGENT_RUNTIME_MAX_FILE_BYTES)`;
  return `cannot read ${JSON.stringify(name)}; expected a readable flow file`;
}

/**
 * A path as short as it is clear: relative to the folder a request's flow is confined to (so no
 * server path is shown to the caller), else to the current directory when inside it.
 */
export function displayName(path: string, confineTo?: string): string {
  const from = confineTo === undefined ? process.cwd() : (realOrNull(confineTo) ?? confineTo);
  const rel = relative(from, path);
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  if (rel !== '' && !outside) return rel;
  return confineTo !== undefined ? basename(path) : path;
}
