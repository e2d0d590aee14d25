/**
 * The errors of the runtime facade and its run engine: one class, `RunError`, told apart by `code`
 * (the MCP SDK's `SdkError` pattern). Lives in the domain because the engine, the runtime, the worker,
 * the server and the CLI all throw or tell them apart. Its `name` is, by code, the name each case had
 * before codes (`RunNotFoundError`, `RunConflictError`, …), which logs and failure messages show.
 */

import { AgentRuntimeError } from './agent-runtime-error.js';

/** Why the runtime refused an operation on a run. Nothing was changed in any case. */
export type RunErrorCode =
  /** No run with this id (`runId`). CLI exit 2, HTTP 404 RUN_NOT_FOUND. */
  | 'RUN_NOT_FOUND'
  /** The run is not waiting for this input, or another driver holds it (`runId`). CLI exit 4, HTTP 409 CONFLICT. */
  | 'RUN_CONFLICT'
  /** The caller's request cannot be used: no model, an unusable model, input not fitting the flow… CLI exit 2, HTTP 400 BAD_REQUEST. */
  | 'REQUEST_INVALID'
  /** The run input given to a front end (`--input`, `--input-json`) cannot be used (`problems`). CLI exit 2, HTTP 400 INPUT_INVALID. */
  | 'INPUT_INVALID'
  /**
   * A message for a thread whose last run is running or waits for an approval (`threadId`, `runId` of
   * that run): refused, nothing changed (docs/threads.md). CLI exit 4, HTTP 409 THREAD_BUSY.
   */
  | 'THREAD_BUSY'
  /**
   * An approval from a person who may not give it here (docs/approvals.md): a role the tool's policy
   * does not allow, or the person who started the run when several approvers are needed. CLI exit 4,
   * HTTP 403 FORBIDDEN.
   */
  | 'APPROVER_REFUSED'
  /**
   * Edited arguments of an approval that the guards refuse (`problems`: `<code>: <reason>` of the check
   * that stopped them, docs/approvals.md). CLI exit 2, HTTP 400 ARGS_REFUSED.
   */
  | 'ARGS_REFUSED'
  /** A steering message to a run that has ended (`runId`, docs/approvals.md). CLI exit 4, HTTP 409 RUN_ENDED. */
  | 'RUN_ENDED'
  /** A steering message longer than the limit. CLI exit 2, HTTP 413 MESSAGE_TOO_LONG. */
  | 'MESSAGE_TOO_LONG'
  /** A steering message while the limit of unread ones already wait (`runId`). CLI exit 4, HTTP 429 TOO_MANY_MESSAGES. */
  | 'TOO_MANY_MESSAGES';

/** The `name` of a RunError by code: the class each code had before codes, which users and logs match. */
const NAMES: Record<RunErrorCode, string> = {
  RUN_NOT_FOUND: 'RunNotFoundError',
  RUN_CONFLICT: 'RunConflictError',
  REQUEST_INVALID: 'RuntimeInputError',
  INPUT_INVALID: 'RunInputError',
  // Codes newer than the per-case classes are named after the class itself.
  THREAD_BUSY: 'RunError',
  APPROVER_REFUSED: 'RunError',
  ARGS_REFUSED: 'RunError',
  RUN_ENDED: 'RunError',
  MESSAGE_TOO_LONG: 'RunError',
  TOO_MANY_MESSAGES: 'RunError',
};

/** What a RunError carries besides its code and message. */
export interface RunErrorOptions extends ErrorOptions {
  /** The run concerned (RUN_NOT_FOUND, RUN_CONFLICT). */
  readonly runId?: string;
  /** The failing fields of the input, one line each (INPUT_INVALID). */
  readonly problems?: readonly string[];
  /** The thread concerned (THREAD_BUSY). */
  readonly threadId?: string;
}

/** An operation on a run that the runtime refused, with the reason as `code`. */
export class RunError extends AgentRuntimeError {
  declare readonly code: RunErrorCode;
  /** The run concerned, when there is one (always for RUN_NOT_FOUND and RUN_CONFLICT). */
  readonly runId?: string;
  /** The failing input fields, one line each (`name: required`); empty when there are none. */
  readonly problems: readonly string[];
  /** The thread concerned (THREAD_BUSY). */
  readonly threadId?: string;

  constructor(code: RunErrorCode, message: string, options: RunErrorOptions = {}) {
    super(code, message, options);
    this.name = NAMES[code];
    if (options.runId !== undefined) this.runId = options.runId;
    if (options.threadId !== undefined) this.threadId = options.threadId;
    this.problems = options.problems ?? [];
  }
}

/** A run input error's message: the summary, then each failing field indented on its own line. */
export function inputMessage(message: string, problems: readonly string[]): string {
  return problems.length === 0 ? message : `${message}\n${problems.map((p) => `  ${p}`).join('\n')}`;
}

/** RUN_NOT_FOUND for `runId`, with the message every front end prints (`unknown run id run_…`). */
export function runNotFound(runId: string): RunError {
  return new RunError('RUN_NOT_FOUND', `unknown run id ${runId}`, { runId });
}

/** INPUT_INVALID: `message`, then each failing field (`problems`) on its own line. */
export function runInputError(
  message: string,
  problems: readonly string[] = [],
  options?: ErrorOptions,
): RunError {
  return new RunError('INPUT_INVALID', inputMessage(message, problems), { ...options, problems });
}

/** RUN_CONFLICT for `runId`: `message` says what the run waits for instead. */
export function runConflict(runId: string, message: string): RunError {
  return new RunError('RUN_CONFLICT', message, { runId });
}
