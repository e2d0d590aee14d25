import { isAbsolute, relative } from 'node:path';
import { formatProblem, type FlowProblem } from '../flow/problems.js';

/**
 * How the CLI names a file in a flow's problem lines: relative to the current folder when the file is
 * in it (as the user most likely typed it), else its absolute path.
 */
export function shownPath(file: string, cwd: string = process.cwd()): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** One line per problem (`FILE:LINE:COL PATH: message`), each file named as `shownPath` does. */
export function problemLines(problems: readonly FlowProblem[], prefix = ''): string[] {
  return problems.map((p) => `${prefix}${formatProblem({ ...p, file: shownPath(p.file) })}`);
}

/** The closing line of a flow's problems: `FILE: N problems` (or `1 problem`). */
export function problemCount(file: string, count: number): string {
  return `${shownPath(file)}: ${count} problem${count === 1 ? '' : 's'}`;
}
