import { RunError } from '../domain/run-error.js';
import { isFlowError } from '../flow/problems.js';
import { StoreError } from '../store/store.js';
import { UsageError } from './args.js';

/** How the CLI reports an error: the exit code (docs/cli.md) and the one line printed on stderr. */
export interface Failure {
  readonly exitCode: number;
  readonly line: string;
}

const PREFIX = 'agent-runtime: ';

/**
 * The exit code and message of an error thrown by a command: one origin at a time, each code mapped
 * in an exhaustive switch (a new code does not compile until it is given an exit code). Anything else
 * is an internal error (exit 1).
 */
export function failureOf(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  // A flow's problems are the whole report, one per line, already naming the file.
  if (isFlowError(error)) return { exitCode: 2, line: message };
  if (error instanceof UsageError) return { exitCode: 2, line: `${PREFIX}${message}` };
  if (error instanceof RunError) return { exitCode: runExitCode(error), line: runLine(error) };
  if (error instanceof StoreError) return storeFailure(error);
  return { exitCode: 1, line: `${PREFIX}internal error: ${message}` };
}

/** The exit code of a RunError: 4 when nothing changed because the run waits for something else, else 2. */
export function runExitCode(error: RunError): number {
  switch (error.code) {
    case 'RUN_CONFLICT':
    case 'THREAD_BUSY':
    case 'APPROVER_REFUSED':
    case 'RUN_ENDED':
    case 'TOO_MANY_MESSAGES':
      return 4;
    case 'MESSAGE_TOO_LONG':
    case 'ARGS_REFUSED':
    case 'RUN_NOT_FOUND':
    case 'REQUEST_INVALID':
    case 'INPUT_INVALID':
      return 2;
  }
}

function runLine(error: RunError): string {
  if (error.code === 'ARGS_REFUSED') return `${PREFIX}${[error.message, ...error.problems].join('\n  ')}`;
  return runExitCode(error) === 4
    ? `${PREFIX}${error.message} (nothing changed)`
    : `${PREFIX}${error.message}`;
}

/**
 * A store's refusal: a version conflict is another process moving the run meanwhile — nothing
 * changed, exit 4 like any response the run no longer waits for; every other refusal is a store that
 * cannot be used as given (bad URL, newer schema, …): exit 2.
 */
export function storeFailure(error: StoreError): Failure {
  switch (error.code) {
    case 'VERSION_CONFLICT':
      return { exitCode: 4, line: `${PREFIX}${error.message} (nothing changed)` };
    case 'RUN_NOT_FOUND':
    case 'DUPLICATE':
    case 'INVALID_APPEND':
    case 'BAD_URL':
    case 'NOT_AVAILABLE':
    case 'SCHEMA_TOO_NEW':
    case 'CLOSED':
    case 'DOCUMENT_TOO_NEW':
    case 'BAD_DOCUMENT':
      return { exitCode: 2, line: `${PREFIX}store: ${error.message}` };
  }
}
