import { describe, expect, it } from 'vitest';
import {
  decodeFlow,
  decodeState,
  decodeSuspension,
  upgradeState,
  type DocumentVersions,
  type RawDocument,
} from '../../src/store/document.js';
import { StoreError } from '../../src/store/store.js';
import { runState } from '../../src/testing/store-contract/helpers.js';

/**
 * The run-document codec with bad input (docs/design.md, "Run document"): what a store refuses when a
 * run's stored state, suspension or flow does not fit, and how a chain of migrations is applied.
 * test/store/document.test.ts has the basic cases.
 */

function refusal(run: () => unknown): StoreError {
  try {
    run();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

/** A made-up history of three versions: 1 → 2 renames `calls`, 2 → 3 adds `cost`. */
const seen: number[] = [];
const three: DocumentVersions = {
  latest: 3,
  migrations: new Map<number, (doc: RawDocument) => RawDocument>([
    [
      1,
      ({ calls, ...rest }) => {
        seen.push(1);
        return { ...rest, schema: 2, modelCalls: calls };
      },
    ],
    [
      2,
      (doc) => {
        seen.push(2);
        return { ...doc, schema: 3, cost: 0 };
      },
    ],
  ]),
};

describe('upgradeState: what has no readable version', () => {
  it.each([
    ['null', null],
    ['an array', [{ schema: 1 }]],
    ['a string', '{"schema":1}'],
    ['a number', 1],
    ['undefined', undefined],
  ])('refuses %s as not a JSON object', (_, raw) => {
    const error = refusal(() => upgradeState(raw, 'r1'));
    expect(error.code).toBe('BAD_DOCUMENT');
    expect(error.message).toBe('run r1 cannot be read: its state is not a JSON object');
  });

  it.each([
    ['missing', undefined],
    ['zero', 0],
    ['negative', -1],
    ['fractional', 1.5],
    ['a string', '1'],
    ['NaN', Number.NaN],
    ['infinite', Infinity],
    ['beyond safe integers', 2 ** 53],
    ['null', null],
  ])('refuses a schema version that is %s', (_, schema) => {
    const error = refusal(() => upgradeState({ schema, nodeId: 'x' }, 'r1'));
    expect(error.code).toBe('BAD_DOCUMENT');
    expect(error.message).toBe('run r1 cannot be read: its state has no schema version');
  });

  it('refuses a newer document with the versions in its message, telling the reader to upgrade', () => {
    const error = refusal(() => upgradeState({ schema: 2 }, 'run_x'));
    expect(error.code).toBe('DOCUMENT_TOO_NEW');
    expect(error.name).toBe('StoreError');
    expect(error.message).toBe(
      'run run_x was saved by a newer g2rain-agent-runtime (run document version 2; this one reads up to 1): upgrade g2rain-agent-runtime to continue it',
    );
  });
});

describe('upgradeState: migrations', () => {
  it('a document at the latest version is handed back as it is, the same object', () => {
    const doc = { schema: 3, anything: true };
    expect(upgradeState(doc, 'r1', three)).toBe(doc);
  });

  it('applies every step from the document’s version, in order, and only those', () => {
    seen.length = 0;
    expect(upgradeState({ schema: 1, calls: 4 }, 'r1', three)).toEqual({ schema: 3, modelCalls: 4, cost: 0 });
    expect(seen).toEqual([1, 2]);
    seen.length = 0;
    expect(upgradeState({ schema: 2, modelCalls: 1 }, 'r1', three)).toEqual({
      schema: 3,
      modelCalls: 1,
      cost: 0,
    });
    expect(seen).toEqual([2]);
  });

  it('names the step that is missing from the chain', () => {
    const gap: DocumentVersions = { latest: 3, migrations: new Map([[1, (d) => ({ ...d, schema: 2 })]]) };
    const error = refusal(() => upgradeState({ schema: 1 }, 'r1', gap));
    expect(error.code).toBe('BAD_DOCUMENT');
    expect(error.message).toBe('run r1 cannot be read: no upgrade from run document version 2 is known');
  });

  it('a migration that skips a version is a bug (a plain Error, not a refusal)', () => {
    const skipping: DocumentVersions = {
      latest: 3,
      migrations: new Map([[1, (d) => ({ ...d, schema: 3 })]]),
    };
    let error: unknown;
    try {
      upgradeState({ schema: 1 }, 'r1', skipping);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe('the migration from run document version 1 did not reach 2');
  });
});

describe('decodeState', () => {
  it('hands back the stored document itself, fields this version does not name kept', () => {
    const raw = { ...runState('r1'), futureField: { kept: true } };
    const decoded = decodeState(raw, 'r1');
    expect(decoded).toBe(raw);
    expect((decoded as unknown as Record<string, unknown>).futureField).toEqual({ kept: true });
  });

  it('names the first place the document does not fit, by its dotted path', () => {
    const doc = runState('r1');
    const error = refusal(() => decodeState({ ...doc, run: { ...doc.run, inputTexts: [1] } }, 'r1'));
    expect(error.code).toBe('BAD_DOCUMENT');
    expect(error.message).toMatch(
      /^run r1 cannot be read: its state does not fit this version at run\.inputTexts\.0: /,
    );
  });

  it('refuses a document without its parts, naming the part', () => {
    expect(refusal(() => decodeState({ schema: 1 }, 'r1')).message).toBe(
      'run r1 cannot be read: its state does not fit this version at run: Invalid input: expected object, received undefined',
    );
    const { loop: _, ...noLoop } = runState('r1');
    expect(refusal(() => decodeState(noLoop, 'r1')).message).toContain(' at loop: ');
  });

  it('refuses a newer document before looking at its shape', () => {
    expect(refusal(() => decodeState({ schema: 5 }, 'r1')).code).toBe('DOCUMENT_TOO_NEW');
  });
});

describe('decodeSuspension', () => {
  const suspension = { kind: 'FOLLOW_UP', pending: { id: 'pnd_1', question: 'Which?', options: null } };

  it('no suspension stored is null', () => {
    expect(decodeSuspension(null, 'r1')).toBeNull();
    expect(decodeSuspension(undefined, 'r1')).toBeNull();
  });

  it('a suspension that fits is handed back as stored', () => {
    const raw = { ...suspension, note: 'kept' };
    expect(decodeSuspension(raw, 'r1')).toBe(raw);
  });

  it('refuses an unknown kind, naming the field, and a value that is not an object, naming none', () => {
    const kind = refusal(() => decodeSuspension({ ...suspension, kind: 'PAYMENT' }, 'r1'));
    expect(kind.code).toBe('BAD_DOCUMENT');
    expect(kind.message).toMatch(
      /^run r1 cannot be read: its suspension does not fit this version at kind: /,
    );
    const text = refusal(() => decodeSuspension('APPROVAL', 'r1'));
    expect(text.message).toMatch(/^run r1 cannot be read: its suspension does not fit this version: /);
  });

  it('refuses a suspension whose pending item is no kind of item', () => {
    expect(refusal(() => decodeSuspension({ kind: 'APPROVAL', pending: {} }, 'r1')).message).toContain(
      'its suspension does not fit this version at pending',
    );
  });
});

describe('decodeFlow', () => {
  it('applies the flow format’s defaults (a parsed copy, unlike the state)', () => {
    const raw = { id: 'f', locale: 'en', nodes: [{ id: 'main' }] };
    const flow = decodeFlow(raw, 'r1');
    expect(flow).not.toBe(raw);
    expect(flow.version).toBe(1);
    expect(flow.mcpServers).toEqual({});
    expect(flow.edges).toEqual([]);
    expect(flow.limits).toEqual({ maxRounds: 30, maxStalls: 5, fingerprintRepeats: 2, toolTimeoutMs: 30000 });
    expect(flow.nodes[0]).toMatchObject({ id: 'main', instructions: '', tools: [] });
  });

  it('refuses a flow that does not fit, naming where', () => {
    const locale = refusal(() => decodeFlow({ id: 'f', locale: 'fr', nodes: [{ id: 'main' }] }, 'r1'));
    expect(locale.code).toBe('BAD_DOCUMENT');
    expect(locale.message).toMatch(/^run r1 cannot be read: its flow does not fit this version at locale: /);
    expect(refusal(() => decodeFlow(null, 'r1')).message).toMatch(/its flow does not fit this version: /);
  });
});
