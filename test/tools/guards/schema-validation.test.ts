import { Ajv } from 'ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSchema } from '../../../src/tools/guards/schema-validation.js';

const logger = { info: () => undefined, warn: vi.fn(), error: () => undefined };

/** A tool schema as each run's `tools/list` answer brings it: a new object every time. */
function listedSchema(): Record<string, unknown> {
  return {
    $id: 'https://example.test/site-create',
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 } },
    required: ['name'],
  };
}

describe('checkSchema', () => {
  afterEach(() => vi.restoreAllMocks());

  it('compiles a schema once however many equal copies arrive, and validates with every copy', () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    for (let run = 0; run < 5; run++) {
      expect(checkSchema(listedSchema(), { name: 'Alpha' }, 'en', logger)).toEqual({
        missing: [],
        violations: [],
      });
      expect(checkSchema(listedSchema(), {}, 'en', logger).missing).toEqual(['name']);
    }
    expect(compile).toHaveBeenCalledTimes(1);
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
