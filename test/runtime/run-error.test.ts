import { describe, expect, it } from 'vitest';
import {
  AgentRuntimeError,
  createRuntime,
  FlowError,
  ModelError,
  RunError,
  StoreError,
  type RunErrorCode,
} from '../../src/index.js';
import { runConflict, runInputError, runNotFound } from '../../src/domain/run-error.js';
import { ApiError, ServerConfigError } from '../../src/server/index.js';
import { UsageError } from '../../src/cli/args.js';
import { EvalSuiteError } from '../../src/eval/suite.js';
import { InputFileError } from '../../src/fs/input-file.js';
import { ParseBusyError } from '../../src/fs/yaml-worker.js';
import { SandboxError } from '../../src/tools/expression-sandbox.js';
import { ExpressionError } from '../../src/tools/expressions.js';
import { ToolRejectedException } from '../../src/tools/rejected.js';
import { SchemaBudgetExceeded } from '../../src/domain/schema-keywords.js';
import { code } from '../../src/domain/error-codes.js';
import { McpError } from '../../src/mcp/errors.js';

/** The runtime's errors: one base with a code string, RunError told apart by its code. */

const NAMES: Record<RunErrorCode, string> = {
  RUN_NOT_FOUND: 'RunNotFoundError',
  RUN_CONFLICT: 'RunConflictError',
  REQUEST_INVALID: 'RuntimeInputError',
  INPUT_INVALID: 'RunInputError',
  THREAD_BUSY: 'RunError',
  APPROVER_REFUSED: 'RunError',
  ARGS_REFUSED: 'RunError',
  RUN_ENDED: 'RunError',
  MESSAGE_TOO_LONG: 'RunError',
  TOO_MANY_MESSAGES: 'RunError',
};

describe('RunError', () => {
  it.each(Object.entries(NAMES))('%s: a RunError and an AgentRuntimeError, named %s', (c, name) => {
    const error = new RunError(c as RunErrorCode, 'refused');
    expect(error).toBeInstanceOf(AgentRuntimeError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(c);
    expect(error.name).toBe(name);
  });

  it('keeps the messages and data of each case', () => {
    const missing = runNotFound('run_9');
    expect(missing).toMatchObject({ code: 'RUN_NOT_FOUND', message: 'unknown run id run_9', runId: 'run_9' });
    expect(runConflict('run_9', 'run run_9 is completed')).toMatchObject({
      code: 'RUN_CONFLICT',
      runId: 'run_9',
    });
    const input = runInputError('--input-json does not match', ['name: required', 'age: must be a number']);
    expect(input.message).toBe('--input-json does not match\n  name: required\n  age: must be a number');
    expect(input.problems).toEqual(['name: required', 'age: must be a number']);
    const cause = new Error('low level');
    expect(new RunError('REQUEST_INVALID', 'no model', { cause }).cause).toBe(cause);
  });
});

describe('AgentRuntimeError', () => {
  /** One error of every class the package throws, with the code it must carry. */
  const every: [AgentRuntimeError, string][] = [
    [runNotFound('run_1'), 'RUN_NOT_FOUND'],
    [new ModelError('CONFIG', 'x'), 'CONFIG'],
    [new StoreError('CLOSED', 'x'), 'CLOSED'],
    [new McpError('CONNECT', 'x'), 'CONNECT'],
    [new FlowError([]), 'FLOW_INVALID'],
    [new ServerConfigError('TOKENS', 'x'), 'TOKENS'],
    [new ApiError(400, 'BAD_REQUEST', 'x'), 'BAD_REQUEST'],
    [new UsageError('x'), 'USAGE'],
    [new EvalSuiteError('x'), 'EVAL_SUITE_INVALID'],
    [new InputFileError('NOT_FOUND', '/x', 'x'), 'NOT_FOUND'],
    [new ParseBusyError(1), 'PARSE_BUSY'],
    [new SandboxError('x'), 'SANDBOX_FAILED'],
    [new ExpressionError('COMPILE', '$', 'x'), 'COMPILE'],
    [new ToolRejectedException(code('FINISH_OUTPUTS_MISSING'), 'r', 'n'), 'FINISH_OUTPUTS_MISSING'],
    [new SchemaBudgetExceeded('x'), 'SCHEMA_BUDGET_EXCEEDED'],
  ];

  it.each(every.map(([e, c]) => [e.name, e, c] as const))(
    '%s is an AgentRuntimeError with a code',
    (_n, error, c) => {
      expect(error).toBeInstanceOf(AgentRuntimeError);
      expect(AgentRuntimeError.isInstance(error)).toBe(true);
      expect(error.code).toBe(c);
    },
  );

  it('isInstance tells ours from other errors, and a subclass from its siblings', () => {
    expect(AgentRuntimeError.isInstance(new Error('x'))).toBe(false);
    expect(AgentRuntimeError.isInstance({ code: 'RUN_NOT_FOUND', message: 'x' })).toBe(false);
    expect(AgentRuntimeError.isInstance(null)).toBe(false);
    expect(RunError.isInstance(runNotFound('run_1'))).toBe(true);
    expect(RunError.isInstance(new StoreError('CLOSED', 'x'))).toBe(false);
    expect(StoreError.isInstance(new StoreError('CLOSED', 'x'))).toBe(true);
  });

  it('isInstance recognises an error of another copy of the package, where instanceof does not', async () => {
    // A second module instance of the same files: classes of their own, like a second installed copy.
    const other = (await import(
      /* @vite-ignore */ `../../src/domain/run-error.js?copy=${Date.now()}`
    )) as typeof import('../../src/domain/run-error.js');
    const foreign = other.runNotFound('run_1');
    expect(other.RunError).not.toBe(RunError);
    expect(foreign instanceof RunError).toBe(false);
    expect(AgentRuntimeError.isInstance(foreign)).toBe(true);
    expect(RunError.isInstance(foreign)).toBe(true);
    expect(StoreError.isInstance(foreign)).toBe(false);
    expect(foreign.code).toBe('RUN_NOT_FOUND');
    // And a base class of another copy: the brand is one symbol of the global registry.
    const base = (await import(
      /* @vite-ignore */ `../../src/domain/agent-runtime-error.js?copy=${Date.now()}`
    )) as typeof import('../../src/domain/agent-runtime-error.js');
    const theirs = new base.AgentRuntimeError('SOMETHING', 'x');
    expect(theirs instanceof AgentRuntimeError).toBe(false);
    expect(AgentRuntimeError.isInstance(theirs)).toBe(true);
    expect(RunError.isInstance(theirs)).toBe(false);
  });

  it('an unknown run id is an AgentRuntimeError with a code, from every operation', async () => {
    const runtime = createRuntime({ logger: false });
    try {
      for (const attempt of [
        () => runtime.status('run_nope'),
        () => runtime.approve('run_nope'),
        () => runtime.resume('run_nope'),
        () => runtime.evidence('run_nope'),
      ]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(AgentRuntimeError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: 'RUN_NOT_FOUND', runId: 'run_nope' });
      }
    } finally {
      await runtime.close();
    }
  });
});
