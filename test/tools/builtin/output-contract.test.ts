import { describe, expect, it } from 'vitest';
import { OutputContractSchema, type OutputContract } from '../../../src/domain/flow.js';
import { MemoryLogger } from '../../../src/log/logger.js';
import { newRunState, type EvidenceRecord, type RunState } from '../../../src/records/run-state.js';
import {
  OutputContractValidator,
  SOURCE_TYPES,
  type OutputWrite,
} from '../../../src/tools/builtin/output-contract.js';
import { parts } from '../guards/fixtures.js';

// Direct tests of src/tools/builtin/output-contract.ts; test/tools/builtin/output-set.test.ts and
// output-matching.test.ts drive the same validator through builtin_output_set.

const OUTPUTS: Record<string, OutputContract> = Object.fromEntries(
  Object.entries({
    total: {
      required: true,
      sources: ['evidence'],
      from: ['invoice'],
      schema: { type: 'number', minimum: 0 },
    },
    ids: { sources: ['evidence'], from: ['invoice'], match: 'equals' },
    note: { sources: ['evidence'] },
    owner: { required: true, sources: ['user', 'node', 'model'] },
    summary: { sources: ['model', 'code'] },
  }).map(([key, contract]) => [key, OutputContractSchema.parse(contract)]),
);

const INVOICE = {
  invoice: { id: 'INV-2024-001', total: '98.70', lines: [{ item_id: 'A-1' }, { item_id: 'B-2' }] },
  text: 'Invoice INV-2024-001 for Zhang Wei, due 2025-01-31.',
};

function evidence(
  id: string,
  tool: string,
  payload: unknown,
  outcome: 'SUCCESS' | 'FAILED' = 'SUCCESS',
): EvidenceRecord {
  return {
    id,
    tool,
    args: {},
    fingerprint: `fp_${id}`,
    outcome,
    errorCode: outcome === 'FAILED' ? 'TOOL_ERROR' : null,
    payload,
    ts: '2026-01-01T00:00:00.000Z',
    nodeId: 'n',
    callId: `call_${id}`,
  };
}

function run(): RunState {
  const state = newRunState('run_1', { text: 'The owner is Li Lei, total about 98.70' });
  state.evidence.push(
    evidence('ev_1', 'invoice', INVOICE),
    evidence('ev_2', 'search', { hits: ['Other Co'] }),
  );
  state.evidence.push(evidence('ev_3', 'invoice', { error: 'down' }, 'FAILED'));
  state.nodeOutputs = { pick: { owner: { name: 'Li Lei', role: 'admin' }, plain: 'Wang Fang' } };
  return state;
}

function validator(
  locale: 'en' | 'zh-CN' = 'en',
  outputs: Record<string, OutputContract> = OUTPUTS,
): OutputContractValidator {
  return new OutputContractValidator(outputs, run(), locale, new MemoryLogger());
}

/** The rejection of a write (fails the test when it was accepted). */
function rejected(write: OutputWrite, v = validator()): ReturnType<typeof parts> {
  const result = v.validate(write);
  if (result.ok) throw new Error(`expected a rejection, stored ${JSON.stringify(result.stored)}`);
  return parts(result.rejection);
}

const OPTIONAL = 'you may also leave it unwritten and call builtin_node_finish';

describe('OutputContractValidator: keys and types', () => {
  it('SOURCE_TYPES are the four a write may cite', () => {
    expect(SOURCE_TYPES).toEqual(['evidence', 'user', 'node', 'model']);
  });

  it('an undeclared key lists the declared ones, or (none)', () => {
    expect(rejected({ key: 'x', value: 1, sourceType: 'model' })).toMatchObject({
      code: 'OUTPUT_KEY_UNDECLARED',
      reason: 'Output key [x] is not declared by the node',
      next: 'write only the output keys the node declares: total, ids, note, owner, summary',
    });
    expect(rejected({ key: 'x', value: 1, sourceType: 'model' }, validator('en', {})).next).toBe(
      'write only the output keys the node declares: (none)',
    );
  });

  it('`code` is no source type a model write may cite, even where the contract lists it', () => {
    expect(rejected({ key: 'summary', value: 'x', sourceType: 'code' })).toMatchObject({
      code: 'OUTPUT_SOURCE_INVALID',
      reason: 'Source check failed: there is no source type code',
      next: `use a sourceType this key accepts: model, code; ${OPTIONAL}`,
    });
  });

  it('the schema is checked before the source, with the rules and the schema in the texts', () => {
    expect(
      rejected({ key: 'total', value: '98.70', sourceType: 'evidence', sourceRef: 'ev_1' }),
    ).toMatchObject({
      code: 'OUTPUT_SCHEMA_MISMATCH',
      reason: 'The value "98.70" of output [total] does not match its schema: must be of type number',
      next: 'write [total] again with a JSON value its schema {"type":"number","minimum":0} accepts (numbers and objects as they are, not as strings)',
    });
    expect(rejected({ key: 'total', value: -1, sourceType: 'bogus' }).code).toBe('OUTPUT_SCHEMA_MISMATCH');
  });
});

describe('OutputContractValidator: evidence', () => {
  it('stores the value with a trimmed sourceRef and where each value was found', () => {
    expect(
      validator().validate({ key: 'total', value: 98.7, sourceType: 'evidence', sourceRef: ' ev_1 ' }),
    ).toEqual({
      ok: true,
      stored: {
        value: 98.7,
        sourceType: 'evidence',
        sourceRef: 'ev_1',
        match: [{ at: [], source: 'evidence', evidenceId: 'ev_1', path: ['invoice', 'total'] }],
      },
    });
  });

  it('finds a string inside a text by default, with its span', () => {
    const result = validator().validate({
      key: 'note',
      value: 'zhang wei',
      sourceType: 'evidence',
      sourceRef: 'ev_1',
    });
    expect(result).toEqual({
      ok: true,
      stored: {
        value: 'zhang wei',
        sourceType: 'evidence',
        sourceRef: 'ev_1',
        match: [{ at: [], source: 'evidence', evidenceId: 'ev_1', path: ['text'], span: [25, 34] }],
      },
    });
  });

  it('without `from`, any tool’s evidence may be cited', () => {
    const result = validator().validate({
      key: 'note',
      value: 'Other Co',
      sourceType: 'evidence',
      sourceRef: 'ev_2',
    });
    expect(result.ok).toBe(true);
  });

  it('a list value is matched element by element, each at its index', () => {
    const result = validator().validate({
      key: 'ids',
      value: ['B-2', 'INV-2024-001'],
      sourceType: 'evidence',
      sourceRef: 'ev_1',
    });
    expect(result.ok && result.stored.match).toEqual([
      { at: [0], source: 'evidence', evidenceId: 'ev_1', path: ['invoice', 'lines', 1, 'item_id'] },
      { at: [1], source: 'evidence', evidenceId: 'ev_1', path: ['invoice', 'id'] },
    ]);
  });

  it('`match: equals` refuses a value that stands only inside a text, and says so', () => {
    expect(
      rejected({ key: 'ids', value: ['Zhang Wei'], sourceType: 'evidence', sourceRef: 'ev_1' }),
    ).toMatchObject({
      code: 'OUTPUT_VALUE_MISMATCH',
      reason: 'Source check failed: the result ev_1 of invoice does not hold the value Zhang Wei',
      next: `cite the evidence that holds the exact value: it must equal a value of the result (this output takes no part of a text); values of [ids] in it: INV-2024-001; ${OPTIONAL}`,
    });
  });

  it('offers values named like the key (or its singular) from the cited result', () => {
    expect(rejected({ key: 'note', value: 'zzz', sourceType: 'evidence', sourceRef: 'ev_2' }).next).toBe(
      `cite the evidence whose text holds the exact value: a string may be a whole word or phrase inside a result text (at least 3 characters, 2 for Chinese or Japanese, never part of a longer word or number); any other value must equal a value of the result; ${OPTIONAL}`,
    );
    const outputs = { item_ids: OutputContractSchema.parse({ required: true, sources: ['evidence'] }) };
    expect(
      rejected(
        { key: 'item_ids', value: 'C-3', sourceType: 'evidence', sourceRef: 'ev_1' },
        validator('en', outputs),
      ).next,
    ).toBe(
      'cite the evidence whose text holds the exact value: a string may be a whole word or phrase inside a result text (at least 3 characters, 2 for Chinese or Japanese, never part of a longer word or number); any other value must equal a value of the result; values of [item_ids] in it: A-1, B-2',
    );
  });

  it('samples at most five distinct values, without null or empty ones, each cut to 40 characters', () => {
    const state = run();
    const long = 'x'.repeat(60);
    const codes = ['a', 'b', 'a', null, '', 'c', 'd', long, 'e', 'f'].map((code) => ({ code }));
    state.evidence.push(evidence('ev_4', 'lookup', codes));
    const outputs = { code: OutputContractSchema.parse({ required: true, sources: ['evidence'] }) };
    const v = new OutputContractValidator(outputs, state, 'en', new MemoryLogger());
    expect(
      rejected({ key: 'code', value: 'zzz', sourceType: 'evidence', sourceRef: 'ev_4' }, v).next,
    ).toMatch(new RegExp(`; values of \\[code\\] in it: a, b, c, d, ${'x'.repeat(39)}…$`));
  });

  it('a missing ref, a blank ref, an unknown or failed result and a tool outside `from` are refused', () => {
    const write = { key: 'total', value: 98.7, sourceType: 'evidence' };
    expect(rejected(write)).toMatchObject({
      code: 'OUTPUT_SOURCE_REF_MISSING',
      reason: 'Output [total] has no sourceRef',
      next: 'set sourceRef to the evidence id (e.g. ev_1) of a successful call of invoice',
    });
    expect(rejected({ ...write, sourceRef: '   ' }).code).toBe('OUTPUT_SOURCE_REF_MISSING');
    expect(rejected({ ...write, sourceRef: null }).code).toBe('OUTPUT_SOURCE_REF_MISSING');
    expect(rejected({ ...write, sourceRef: 'ev_9' })).toMatchObject({
      code: 'OUTPUT_SOURCE_INVALID',
      reason: 'Source check failed: there is no evidence ev_9',
      next: 'cite the evidence id of a successful call of one of: invoice',
    });
    expect(rejected({ ...write, sourceRef: 'ev_3' }).reason).toBe(
      'Source check failed: the call ev_3 of invoice did not succeed',
    );
    expect(rejected({ ...write, sourceRef: 'ev_2' }).reason).toBe(
      'Source check failed: search (ev_2) is not a source tool output [total] accepts',
    );
    expect(rejected({ key: 'note', value: 'x', sourceType: 'evidence' }).next).toBe(
      `set sourceRef to the evidence id (e.g. ev_1) of a successful call of any tool; ${OPTIONAL}`,
    );
  });

  it('an empty value of an optional output needs no source, and has no match', () => {
    expect(validator().validate({ key: 'note', value: '  ', sourceType: 'evidence' })).toEqual({
      ok: true,
      stored: { value: '  ', sourceType: 'evidence', sourceRef: null },
    });
    expect(
      validator().validate({ key: 'note', value: null, sourceType: 'evidence', sourceRef: 'ev_9' }),
    ).toEqual({
      ok: true,
      stored: { value: null, sourceType: 'evidence', sourceRef: 'ev_9' },
    });
  });
});

describe('OutputContractValidator: user, node and model', () => {
  it('user: the value must be in the user’s words; an empty required value is not', () => {
    expect(validator().validate({ key: 'owner', value: 'li lei', sourceType: 'user' })).toEqual({
      ok: true,
      stored: { value: 'li lei', sourceType: 'user', sourceRef: null },
    });
    expect(rejected({ key: 'owner', value: 'Wang Fang', sourceType: 'user' })).toMatchObject({
      code: 'OUTPUT_VALUE_MISMATCH',
      reason: 'Source check failed: the user’s input and answers do not contain Wang Fang',
      next: 'use a value in the user’s own words; if they have not said it, ask with builtin_node_follow_up',
    });
    expect(rejected({ key: 'owner', value: '', sourceType: 'user' }).code).toBe('OUTPUT_VALUE_MISMATCH');
  });

  it('node: the ref must name a completed node’s output; the value must occur in it', () => {
    const v = validator();
    expect(
      v.validate({ key: 'owner', value: 'Li Lei', sourceType: 'node', sourceRef: 'pick.owner' }).ok,
    ).toBe(true);
    expect(
      v.validate({
        key: 'owner',
        value: { role: 'ADMIN', name: 'li lei' },
        sourceType: 'node',
        sourceRef: 'pick.owner',
      }).ok,
    ).toBe(true);
    expect(
      rejected({ key: 'owner', value: 'Li', sourceType: 'node', sourceRef: 'pick.owner' }, v),
    ).toMatchObject({
      code: 'OUTPUT_VALUE_MISMATCH',
      reason: 'Source check failed: the node output pick.owner does not hold the value Li',
      next: 'use the value of pick.owner: {"name":"Li Lei","role":"admin"}',
    });
  });

  it('node: a missing or malformed ref lists the outputs that may be cited', () => {
    const what = 'set sourceRef to a completed node’s output as <node id>.<key>: pick.owner, pick.plain';
    expect(rejected({ key: 'owner', value: 'Li Lei', sourceType: 'node' })).toMatchObject({
      code: 'OUTPUT_SOURCE_REF_MISSING',
      next: what,
    });
    for (const ref of ['owner', '.owner', 'pick.', 'other.owner', 'pick.owner.name']) {
      expect(rejected({ key: 'owner', value: 'Li Lei', sourceType: 'node', sourceRef: ref })).toMatchObject({
        code: 'OUTPUT_SOURCE_INVALID',
        reason: `Source check failed: there is no node output ${ref}`,
        next: what,
      });
    }
  });

  it('model: anything the contract accepts, stored as given', () => {
    expect(
      validator().validate({ key: 'owner', value: 'made up', sourceType: 'model', sourceRef: '' }),
    ).toEqual({
      ok: true,
      stored: { value: 'made up', sourceType: 'model', sourceRef: null },
    });
  });

  it('speaks zh-CN', () => {
    expect(rejected({ key: 'note', value: 1, sourceType: 'user' }, validator('zh-CN'))).toMatchObject({
      reason: '来源校验失败：产出 [note] 不接受来源类型 user',
      next: 'sourceType 使用该键接受的来源类型：evidence；也可以不写，直接调用 builtin_node_finish',
    });
  });
});
