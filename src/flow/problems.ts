/**
 * Problems found in a flow definition, and the error that carries them. A problem names the file,
 * the path inside it (`nodes[1].tools[0]`), the position when the flow came from YAML/JSON text, and
 * what is expected. Problems are data: every check collects them, none throws.
 */
import { AgentRuntimeError } from '../domain/agent-runtime-error.js';

/** One segment of a path inside a flow: a mapping key or a sequence index. */
export type PathSegment = string | number;

/** One thing wrong with a flow. */
export interface FlowProblem {
  /** The flow file (as given), or a name such as `<inline>` for a flow object. */
  readonly file: string;
  /** Where in the flow, e.g. `nodes[1].tools[0]` or `tools.web_site_create.params.spaceId.source`; `` for the whole file. */
  readonly path: string;
  /** 1-based, when the flow came from text. */
  readonly line?: number;
  readonly column?: number;
  /** What is wrong and what is expected, on one line. */
  readonly message: string;
}

/** A problem before it is placed in a file: its path as segments. */
export interface RawProblem {
  readonly path: readonly PathSegment[];
  readonly message: string;
  /** Point at the key of the last segment instead of its value (unknown or misspelled keys). */
  readonly atKey?: boolean;
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Renders path segments as `nodes[1].tools[0]`, quoting keys that are not plain (`aliases["cloud.x"]`). */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** One line: `file:line:col path: message` (position and path left out when unknown or empty). */
export function formatProblem(problem: FlowProblem): string {
  const position = problem.line === undefined ? '' : `:${problem.line}:${problem.column ?? 1}`;
  const path = problem.path === '' ? '' : ` ${problem.path}`;
  return `${problem.file}${position}${path}: ${oneLine(problem.message)}`;
}

/** Collapses white space (including newlines) so that a message stays on one line. */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Why a flow cannot be used. One code for now: every problem of a definition is data in `problems`,
 * so callers tell flows apart from other errors, not problems from each other.
 */
export type FlowErrorCode =
  /** The definition has problems (`problems`): CLI exit 2, HTTP 400 FLOW_INVALID. */
  'FLOW_INVALID';

/**
 * Thrown by `loadFlow` for a flow that cannot be used: carries every problem found. Its message is
 * the problems, one per line, so printing `error.message` is the whole report (no stack needed).
 */
export class FlowError extends AgentRuntimeError {
  declare readonly code: FlowErrorCode;
  readonly problems: readonly FlowProblem[];

  constructor(problems: readonly FlowProblem[]) {
    super('FLOW_INVALID', problems.map(formatProblem).join('\n'));
    this.name = 'FlowError';
    this.problems = problems;
  }
}

/** True for a FlowError (also across copies of this module). */
export function isFlowError(error: unknown): error is FlowError {
  return (
    error instanceof FlowError ||
    (error instanceof Error && error.name === 'FlowError' && 'problems' in error)
  );
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** ` (did you mean "x"?)` when a candidate is a likely typo of `name` (about one edit per five characters), else ``. */
export function suggest(name: string, candidates: Iterable<string>): string {
  const limit = Math.max(1, Math.floor(name.length / 5));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d > 0 && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}

/** `a, b, c` or `(none)`: for messages listing what is allowed. */
export function listOf(names: Iterable<string>): string {
  const all = [...names];
  return all.length === 0 ? '(none)' : all.join(', ');
}
