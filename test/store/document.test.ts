import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_VERSIONS,
  RUN_DOCUMENT_VERSION,
  decodeState,
  upgradeState,
  type DocumentVersions,
} from '../../src/store/document.js';
import { StoreError } from '../../src/store/store.js';
import { runState } from '../../src/testing/store-contract/helpers.js';

/** A made-up history: version 1 named the model-call counter `calls`; version 2 renamed it `modelCalls`. */
const history: DocumentVersions = {
  latest: 2,
  migrations: new Map([
    [1, ({ calls, ...rest }) => ({ ...rest, schema: 2, modelCalls: typeof calls === 'number' ? calls : 0 })],
  ]),
};

function refusal(run: () => unknown): StoreError {
  try {
    run();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

describe('run-document codec', () => {
  it('today writes and reads version 1, with no migration to apply', () => {
    expect(RUN_DOCUMENT_VERSION).toBe(1);
    expect(DOCUMENT_VERSIONS.migrations.size).toBe(0);
    expect(decodeState(runState('r1'), 'r1')).toEqual(runState('r1'));
  });

  it('upgrades an older document through the registered migrations, in order', () => {
    const old = { schema: 1, calls: 3, nodeId: 'work' };
    expect(upgradeState(old, 'r1', history)).toEqual({ schema: 2, modelCalls: 3, nodeId: 'work' });
    expect(old).toEqual({ schema: 1, calls: 3, nodeId: 'work' });
  });

  it('refuses a newer document naming its version, and one without a known upgrade', () => {
    const newer = refusal(() => upgradeState({ schema: 3 }, 'r1', history));
    expect(newer.code).toBe('DOCUMENT_TOO_NEW');
    expect(newer.message).toContain('run document version 3');
    const unknown = refusal(() => upgradeState({ schema: 1 }, 'r1', { latest: 2, migrations: new Map() }));
    expect(unknown.code).toBe('BAD_DOCUMENT');
    expect(refusal(() => upgradeState({ nodeId: 'x' }, 'r1')).code).toBe('BAD_DOCUMENT');
    expect(refusal(() => decodeState({ ...runState('r1'), run: null }, 'r1')).message).toContain('at run');
  });

  it('treats a migration that does not reach the next version as a bug', () => {
    const broken: DocumentVersions = { latest: 2, migrations: new Map([[1, (doc) => doc]]) };
    expect(() => upgradeState({ schema: 1 }, 'r1', broken)).toThrow(/did not reach 2/);
  });
});
