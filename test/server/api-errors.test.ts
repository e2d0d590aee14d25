import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { RunError, type RunErrorCode } from '../../src/domain/run-error.js';
import { FlowError } from '../../src/flow/problems.js';
import { ParseBusyError } from '../../src/fs/yaml-worker.js';
import { MemoryLogger } from '../../src/log/logger.js';
import {
  ApiError,
  ServerConfigError,
  type ApiErrorCode,
  type ServerConfigErrorCode,
} from '../../src/server/index.js';
import { toApiError } from '../../src/server/errors.js';
import { StoreError, type StoreErrorCode } from '../../src/store/store.js';
import { runNotFound, runConflict, runInputError } from '../../src/domain/run-error.js';
import { versionConflict } from '../../src/store/store-error.js';

/** The HTTP answer of every error code (docs/api.md "Errors"); typed so that a new code must be listed. */
const RUN_ANSWERS: Record<RunErrorCode, [number, ApiErrorCode]> = {
  RUN_NOT_FOUND: [404, 'RUN_NOT_FOUND'],
  RUN_CONFLICT: [409, 'CONFLICT'],
  REQUEST_INVALID: [400, 'BAD_REQUEST'],
  INPUT_INVALID: [400, 'INPUT_INVALID'],
  THREAD_BUSY: [409, 'THREAD_BUSY'],
  APPROVER_REFUSED: [403, 'FORBIDDEN'],
  ARGS_REFUSED: [400, 'ARGS_REFUSED'],
  RUN_ENDED: [409, 'RUN_ENDED'],
  MESSAGE_TOO_LONG: [413, 'MESSAGE_TOO_LONG'],
  TOO_MANY_MESSAGES: [429, 'TOO_MANY_MESSAGES'],
};
/** Only a version conflict is the client's; every other refusal of the store is the server's failure. */
const STORE_ANSWERS: Record<StoreErrorCode, [number, ApiErrorCode]> = {
  VERSION_CONFLICT: [409, 'CONFLICT'],
  RUN_NOT_FOUND: [500, 'INTERNAL'],
  DUPLICATE: [500, 'INTERNAL'],
  INVALID_APPEND: [500, 'INTERNAL'],
  BAD_URL: [500, 'INTERNAL'],
  NOT_AVAILABLE: [500, 'INTERNAL'],
  SCHEMA_TOO_NEW: [500, 'INTERNAL'],
  CLOSED: [500, 'INTERNAL'],
  DOCUMENT_TOO_NEW: [500, 'INTERNAL'],
  BAD_DOCUMENT: [500, 'INTERNAL'],
};

const answer = (error: unknown): ApiError => toApiError(error, new MemoryLogger());

describe('toApiError', () => {
  it.each(Object.entries(RUN_ANSWERS))('RunError %s answers %j', (code, [status, api]) => {
    const error = new RunError(code as RunErrorCode, 'refused', { runId: 'run_1' });
    expect(answer(error)).toMatchObject({ status, code: api });
  });

  it.each(Object.entries(STORE_ANSWERS))('StoreError %s answers %j', (code, [status, api]) => {
    const logger = new MemoryLogger();
    expect(toApiError(new StoreError(code as StoreErrorCode, 'refused'), logger)).toMatchObject({
      status,
      code: api,
    });
    // A 500 is logged (with the error), never explained to the client.
    expect(logger.find('HTTP internal error')).toHaveLength(status === 500 ? 1 : 0);
  });

  it('keeps the messages and problems of the deprecated classes', () => {
    expect(answer(runNotFound('run_1')).body()).toEqual({
      error: { code: 'RUN_NOT_FOUND', message: 'unknown run id run_1' },
    });
    expect(answer(runConflict('run_1', 'run run_1 is completed')).message).toBe(
      'run run_1 is completed (nothing changed)',
    );
    expect(answer(versionConflict('run_1', 3, 4)).body()).toEqual({
      error: {
        code: 'CONFLICT',
        message: 'run run_1 was changed by another request meanwhile (nothing changed)',
      },
    });
    expect(answer(new RunError('REQUEST_INVALID', 'no model')).body()).toEqual({
      error: { code: 'BAD_REQUEST', message: 'no model' },
    });
    expect(answer(runInputError('input does not match', ['name: required'])).body()).toEqual({
      error: { code: 'INPUT_INVALID', message: 'input does not match', problems: ['name: required'] },
    });
  });

  it('answers a flow error 400 with its problems, a busy parser 503, an unknown error 500', () => {
    const flow = new FlowError([{ file: 'f.yaml', path: 'nodes', message: 'expected a list' }]);
    expect(answer(flow).body()).toEqual({
      error: {
        code: 'FLOW_INVALID',
        message: 'the flow is not valid',
        problems: ['f.yaml nodes: expected a list'],
      },
    });
    expect(answer(new ParseBusyError(2))).toMatchObject({ status: 503, code: 'BUSY', retryAfterSeconds: 2 });
    expect(answer(new HTTPException(415))).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(answer(new Error('boom')).body()).toEqual({
      error: { code: 'INTERNAL', message: 'internal error' },
    });
  });
});

describe('ServerConfigError', () => {
  const NAMES: Record<ServerConfigErrorCode, string> = {
    UNSAFE_LISTEN: 'UnsafeListenError',
    TOKENS: 'TokenConfigError',
  };

  it.each(Object.entries(NAMES))('%s keeps the name its case had (%s)', (code, name) => {
    const made = new ServerConfigError(code as ServerConfigErrorCode, 'bad');
    expect(made).toMatchObject({ code, name });
  });
});
