import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { failureOf } from '../../src/cli/failure.js';
import { RunError, type RunErrorCode } from '../../src/domain/run-error.js';
import { FlowError } from '../../src/flow/problems.js';
import { StoreError, versionConflict, type StoreErrorCode } from '../../src/store/store.js';
import { runNotFound, runConflict, runInputError } from '../../src/domain/run-error.js';

/** The exit code of every error code (docs/cli.md "Exit codes"); typed so that a new code must be listed. */
const RUN_EXITS: Record<RunErrorCode, number> = {
  RUN_NOT_FOUND: 2,
  RUN_CONFLICT: 4,
  REQUEST_INVALID: 2,
  INPUT_INVALID: 2,
  THREAD_BUSY: 4,
  APPROVER_REFUSED: 4,
  ARGS_REFUSED: 2,
  RUN_ENDED: 4,
  MESSAGE_TOO_LONG: 2,
  TOO_MANY_MESSAGES: 4,
};
const STORE_EXITS: Record<StoreErrorCode, number> = {
  VERSION_CONFLICT: 4,
  RUN_NOT_FOUND: 2,
  DUPLICATE: 2,
  INVALID_APPEND: 2,
  BAD_URL: 2,
  NOT_AVAILABLE: 2,
  SCHEMA_TOO_NEW: 2,
  CLOSED: 2,
  DOCUMENT_TOO_NEW: 2,
  BAD_DOCUMENT: 2,
};

describe('the CLI exit code of an error', () => {
  it.each(Object.entries(RUN_EXITS))('RunError %s exits %i', (code, exit) => {
    expect(failureOf(new RunError(code as RunErrorCode, 'refused')).exitCode).toBe(exit);
  });

  it.each(Object.entries(STORE_EXITS))('StoreError %s exits %i', (code, exit) => {
    expect(failureOf(new StoreError(code as StoreErrorCode, 'refused')).exitCode).toBe(exit);
  });

  it('prints the lines the docs show, for the deprecated classes too', () => {
    expect(failureOf(runNotFound('run_1'))).toEqual({
      exitCode: 2,
      line: 'agent-runtime: unknown run id run_1',
    });
    expect(failureOf(runConflict('run_1', 'run run_1 is completed, not suspended'))).toEqual({
      exitCode: 4,
      line: 'agent-runtime: run run_1 is completed, not suspended (nothing changed)',
    });
    expect(failureOf(new RunError('REQUEST_INVALID', 'flow f names no model and none was given')).line).toBe(
      'agent-runtime: flow f names no model and none was given',
    );
    expect(failureOf(runInputError('--input-json must be a JSON object')).exitCode).toBe(2);
    expect(failureOf(new StoreError('BAD_URL', 'not a store URL: x')).line).toBe(
      'agent-runtime: store: not a store URL: x',
    );
    // Two responses racing: the one that lost changed nothing (docs/cli.md, exit 4).
    expect(failureOf(versionConflict('run_1', 3, 4))).toEqual({
      exitCode: 4,
      line: 'agent-runtime: run run_1 is at version 4, not 3 (nothing changed)',
    });
    expect(failureOf(versionConflict('run_1', 3, 4)).exitCode).toBe(4);
  });

  it('prints a flow error as its problems, a usage error with the prefix, anything else as internal (1)', () => {
    const flow = new FlowError([
      { file: 'f.yaml', path: 'nodes', line: 2, column: 1, message: 'expected a list' },
    ]);
    expect(failureOf(flow)).toEqual({ exitCode: 2, line: 'f.yaml:2:1 nodes: expected a list' });
    expect(failureOf(new UsageError('run: missing FLOW'))).toEqual({
      exitCode: 2,
      line: 'agent-runtime: run: missing FLOW',
    });
    expect(failureOf(new TypeError('x is undefined'))).toEqual({
      exitCode: 1,
      line: 'agent-runtime: internal error: x is undefined',
    });
  });
});
