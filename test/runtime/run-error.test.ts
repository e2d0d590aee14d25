import { describe, expect, it } from 'vitest';
import {
  RunError,
  RunConflictError,
  RunNotFoundError,
  RuntimeInputError,
  RunInputError,
  type RunErrorCode,
} from '../../src/index.js';
import { runConflict, runNotFound } from '../../src/domain/run-error.js';

/** The runtime's errors: one class with a code; the names from before codes stay as deprecated aliases. */

/** Each deprecated alias, an instance made by it, and the code it fixes. Typed so that every code is listed. */
const ALIASES: Record<
  Exclude<RunErrorCode, 'THREAD_BUSY'>,
  { make: () => RunError; alias: abstract new (...args: never[]) => RunError; name: string }
> = {
  RUN_NOT_FOUND: {
    make: () => new RunNotFoundError('run_1'),
    alias: RunNotFoundError,
    name: 'RunNotFoundError',
  },
  RUN_CONFLICT: {
    make: () => new RunConflictError('run_1', 'run run_1 is completed'),
    alias: RunConflictError,
    name: 'RunConflictError',
  },
  REQUEST_INVALID: {
    make: () => new RuntimeInputError('no model'),
    alias: RuntimeInputError,
    name: 'RuntimeInputError',
  },
  INPUT_INVALID: {
    make: () => new RunInputError('bad input', ['name: required']),
    alias: RunInputError,
    name: 'RunInputError',
  },
};

describe('RunError', () => {
  it.each(Object.entries(ALIASES))(
    '%s: the deprecated class is a RunError of that code, and keeps its name',
    (code, c) => {
      const error = c.make();
      expect(error).toBeInstanceOf(RunError);
      expect(error).toBeInstanceOf(c.alias);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.name).toBe(c.name);
    },
  );

  it.each(Object.entries(ALIASES))(
    '%s: a RunError made with the code is an instance of the deprecated class, named like it',
    (code, c) => {
      const error = new RunError(code as RunErrorCode, 'refused');
      expect(error).toBeInstanceOf(c.alias);
      expect(error.name).toBe(c.name);
      // …and of no other alias: the codes tell them apart.
      for (const [other, o] of Object.entries(ALIASES))
        if (other !== code) expect(error).not.toBeInstanceOf(o.alias);
    },
  );

  it('keeps the messages and data of the old classes', () => {
    const missing = runNotFound('run_9');
    expect(missing.message).toBe('unknown run id run_9');
    expect(missing.runId).toBe('run_9');
    expect(new RunNotFoundError('run_9').message).toBe(missing.message);
    expect(runConflict('run_9', 'run run_9 is completed')).toMatchObject({
      code: 'RUN_CONFLICT',
      runId: 'run_9',
    });
    const input = new RunInputError('--input-json does not match', [
      'name: required',
      'age: must be a number',
    ]);
    expect(input.message).toBe('--input-json does not match\n  name: required\n  age: must be a number');
    expect(input.problems).toEqual(['name: required', 'age: must be a number']);
    const cause = new Error('low level');
    expect(new RuntimeInputError('no model', { cause }).cause).toBe(cause);
  });

  it('narrows to the alias type, so old code reading runId still compiles and works', () => {
    const error: unknown = runConflict('run_3', 'taken');
    if (!(error instanceof RunConflictError)) throw new Error('expected a RunConflictError');
    const runId: string = error.runId;
    expect(runId).toBe('run_3');
  });
});
