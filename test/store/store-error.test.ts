import { describe, expect, it } from 'vitest';
import { MemoryStore, StoreError } from '../../src/index.js';
import { isVersionConflict, versionConflict } from '../../src/store/store.js';

/** The store's errors: one class with a code; VersionConflictError is the deprecated name of VERSION_CONFLICT. */

describe('StoreError', () => {
  it('VERSION_CONFLICT carries the versions and keeps the old name and message', () => {
    const error = versionConflict('run_1', 3, null);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(error).toMatchObject({ code: 'VERSION_CONFLICT', runId: 'run_1', expected: 3, actual: null });
    expect(error.name).toBe('VersionConflictError');
    expect(error.message).toBe('run run_1 is at version none, not 3');
    expect(isVersionConflict(error)).toBe(true);
  });

  it('the deprecated constructor makes the same error', () => {
    const error = versionConflict('run_1', 3, 4);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: 'VERSION_CONFLICT',
      expected: 3,
      actual: 4,
      name: 'VersionConflictError',
    });
    expect(error.message).toBe(versionConflict('run_1', 3, 4).message);
  });

  it('other codes are StoreErrors by name and no version conflicts', () => {
    const error = new StoreError('CLOSED', 'the store is closed');
    expect(error.name).toBe('StoreError');
    expect(error).not.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(isVersionConflict(error)).toBe(false);
    expect(isVersionConflict(new Error('x'))).toBe(false);
  });

  it('a store refuses a stale commit with VERSION_CONFLICT', async () => {
    const store = new MemoryStore();
    const error = await store
      .commit({ runId: 'run_missing', expectedVersion: 1, patch: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('VERSION_CONFLICT');
    expect(error).toMatchObject({ code: 'VERSION_CONFLICT' });
    await store.close();
  });
});
