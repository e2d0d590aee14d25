import { displayName } from '../flow/delegate-files.js';
import { formatProblem, type FlowProblem } from '../flow/problems.js';

/**
 * A flow's problems as the CLI prints them (`validate`, and every command refusing a flow): one line per
 * problem, `FILE:LINE:COL PATH: message`, each file named relative to the current folder when it is in
 * it, else by its absolute path.
 */
export function problemLines(problems: readonly FlowProblem[], prefix = ''): string[] {
  return problems.map((p) => `${prefix}${formatProblem({ ...p, file: displayName(p.file) })}`);
}
